"""SQLite search: an FTS5 table (porter stemming, accents removed) kept current by triggers.

FTS5's only stemmer is English (porter). In a catalog of another language each word is
searched as the prefix of its stem in that language (Snowball): "chaussures" as `chaussur*`,
which finds "chaussure" and "chaussures" whatever porter made of them.

Columns: title, facets (brand, categories, colour, material), description; bm25 weights them
10 / 4 / 1 so that, as on PostgreSQL, a title match counts most. Schema in `schema_sqlite`.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import FloatField, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Length

from accounts.models import Organization
from knowledge.language.vocabulary import STEMMERS, stemmer
from knowledge.models import Product, SearchTerm
from knowledge.search.backend import LENGTH_WINDOW, NEAR_CANDIDATES
from knowledge.search.schema_sqlite import FTS_TABLE
from knowledge.search.text import similarity

# bm25() is lower for better matches; negated so that `rank` is higher-is-better everywhere.
_RANK = (
    f"-(SELECT bm25({FTS_TABLE}, 10.0, 4.0, 1.0) FROM {FTS_TABLE}"
    f' WHERE {FTS_TABLE} MATCH %s AND {FTS_TABLE}.rowid = "knowledge_product"."id")'
)
_MATCHING_IDS = f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"


class SqliteBackend:
    def match(
        self,
        queryset: QuerySet[Product],
        groups: Sequence[Sequence[str]],
        *,
        every: bool,
        language: str = "en",
    ) -> QuerySet:
        # Quoted strings: FTS5 tokenizes (and stems) each, and nothing in them is an operator.
        expression = (" AND " if every else " OR ").join(
            "(" + " OR ".join(_term(word, language) for word in group) + ")" for group in groups
        )
        return queryset.filter(id__in=RawSQL(_MATCHING_IDS, [expression])).annotate(
            rank=RawSQL(_RANK, [expression], output_field=FloatField())
        )

    def near_terms(self, organization: Organization, word: str) -> list[tuple[str, float]]:
        candidates = (
            SearchTerm.objects.filter(organization=organization)
            .annotate(term_length=Length("term"))
            .filter(
                term_length__gte=len(word) - LENGTH_WINDOW,
                term_length__lte=len(word) + LENGTH_WINDOW,
            )
            .values_list("term", flat=True)
        )
        # The same order as on PostgreSQL: most similar, then shortest, then alphabetical.
        ranked = sorted((-similarity(word, term), len(term), term) for term in candidates)
        return [(term, -score) for score, _, term in ranked[:NEAR_CANDIDATES]]


# Shorter stems would find too many other words as prefixes ("vin" in "vinaigre").
MIN_PREFIX_STEM = 4


def _term(word: str, language: str) -> str:
    if language == "en" or language not in STEMMERS:
        return f'"{word}"'
    stem = stemmer(language).stemWord(word)
    return f'"{stem}" *' if len(stem) >= MIN_PREFIX_STEM else f'"{word}"'
