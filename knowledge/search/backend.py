"""The text-search backend protocol, which `postgres.py` and `sqlite.py` implement (the
search service picks one by the database in use)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from django.db.models import QuerySet

from accounts.models import Organization
from knowledge.models import Product

NEAR_CANDIDATES = 20
LENGTH_WINDOW = 2  # a misspelling is rarely more than two letters longer or shorter


class TextBackend(Protocol):
    def match(
        self,
        queryset: QuerySet[Product],
        groups: Sequence[Sequence[str]],
        *,
        every: bool,
        language: str = "en",
    ) -> QuerySet:
        """`queryset` narrowed to products matching all (`every`) or any of the groups, a group
        matching when any of its words does; annotated with `rank` (higher is better). Words
        are stemmed as `language` stems them (the catalog's, Organization.language)."""
        ...

    def near_terms(self, organization: Organization, word: str) -> list[tuple[str, float]]:
        """Up to NEAR_CANDIDATES catalog words of about the same length as `word`, with their
        trigram similarity to it, most similar first."""
        ...
