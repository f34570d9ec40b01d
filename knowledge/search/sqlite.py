"""SQLite search: an FTS5 table (porter stemming, accents removed) kept current by triggers.

Columns: title, facets (brand, categories, colour, material), description; bm25 weights them
10 / 4 / 1 so that, as on PostgreSQL, a title match counts most. Schema in `schema_sqlite`.
"""

from __future__ import annotations

from django.db.models import FloatField, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Length

from accounts.models import Organization
from knowledge.models import Product, SearchTerm
from knowledge.search.schema_sqlite import FTS_TABLE
from knowledge.search.text import SIMILARITY_THRESHOLD, similarity

# bm25() is lower for better matches; negated so that `rank` is higher-is-better everywhere.
_RANK = (
    f"-(SELECT bm25({FTS_TABLE}, 10.0, 4.0, 1.0) FROM {FTS_TABLE}"
    f' WHERE {FTS_TABLE} MATCH %s AND {FTS_TABLE}.rowid = "knowledge_product"."id")'
)
_MATCHING_IDS = f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"


class SqliteBackend:
    def match(self, queryset: QuerySet[Product], terms: list[str], *, every: bool) -> QuerySet:
        # Quoted strings: FTS5 tokenizes (and stems) each, and nothing in them is an operator.
        expression = (" AND " if every else " OR ").join(f'"{term}"' for term in terms)
        return queryset.filter(id__in=RawSQL(_MATCHING_IDS, [expression])).annotate(
            rank=RawSQL(_RANK, [expression], output_field=FloatField())
        )

    def closest_term(self, organization: Organization, term: str) -> str | None:
        # A misspelling is rarely more than two letters longer or shorter than the word.
        candidates = (
            SearchTerm.objects.filter(organization=organization)
            .annotate(term_length=Length("term"))
            .filter(term_length__gte=len(term) - 2, term_length__lte=len(term) + 2)
            .values_list("term", flat=True)
        )
        # Same order as on PostgreSQL: most similar, then shortest, then alphabetical.
        ranked = sorted(
            (-score, len(candidate), candidate)
            for candidate in candidates
            if (score := similarity(term, candidate)) >= SIMILARITY_THRESHOLD
        )
        return ranked[0][2] if ranked else None
