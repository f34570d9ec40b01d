"""Alternatives for a query word that matches nothing: near catalog words and longer ones.

"samsng" -> samsung (trigram similarity), "iphnoe" -> iphone (one swap), "phone" ->
smartphones, iphone (catalog words containing it). The search then asks for any of them.
"""

from __future__ import annotations

from django.db.models.functions import Length

from accounts.models import Organization
from knowledge.models import SearchTerm
from knowledge.search.backend import TextBackend
from knowledge.search.text import SIMILARITY_THRESHOLD, edit_distance

MAX_NEAR = 2
MAX_CONTAINING = 3
MIN_CORRECTED_LENGTH = 4  # "car" is one letter from "cap" and "care": too short to guess
MIN_CONTAINED_LENGTH = 4  # "pan" inside "japan" and "panel" says little


def alternatives(backend: TextBackend, organization: Organization, word: str) -> list[str]:
    """Catalog words to search instead of `word`, best first (empty: nothing is near)."""
    if len(word) < MIN_CORRECTED_LENGTH:
        return []
    near = [
        term
        for term, score in backend.near_terms(organization, word)
        if score >= SIMILARITY_THRESHOLD or edit_distance(word, term) <= _allowed_edits(word, term)
    ]
    near.sort(key=lambda term: edit_distance(word, term))  # stable: similarity order on ties
    containing: list[str] = []
    if len(word) >= MIN_CONTAINED_LENGTH:
        containing = list(
            SearchTerm.objects.filter(organization=organization, term__contains=word)
            .exclude(term=word)
            .order_by(Length("term"), "term")
            .values_list("term", flat=True)[:MAX_CONTAINING]
        )
    return list(dict.fromkeys([*near[:MAX_NEAR], *containing]))


def _allowed_edits(word: str, term: str) -> int:
    # Two edits may make a short word another one ("shelves" is two from "sleeve" and
    # "sieve"); a typo of two keeps the word's start ("knives": "knife", "samsnug": "samsung").
    if len(word) <= 5 or (len(word) <= 7 and word[:2] != term[:2]):
        return 1
    return 2
