"""PostgreSQL search: weighted full-text search on a trigger-kept `search_vector`, pg_trgm typos.

The column, its GIN index, the `catalog_<language>` text search configurations (stemming and
stop words of the catalog's language, accents folded by `unaccent`) and the trigram index on
search terms come from `knowledge.search.schema_postgres`, applied by migrations. The trigger
indexes each product with its organization's configuration; queries use the same one.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection
from django.db.models import BooleanField, FloatField, QuerySet
from django.db.models.expressions import RawSQL

from accounts.models import Organization
from knowledge.models import Product
from knowledge.search.backend import LENGTH_WINDOW, NEAR_CANDIDATES

CONFIG = "catalog_english"
# Organization.language -> its text search configuration (schema_postgres.LANGUAGE_CONFIGS).
CONFIGS = {
    "en": CONFIG,
    "fr": "catalog_french",
    "de": "catalog_german",
    "es": "catalog_spanish",
    "it": "catalog_italian",
}
_VECTOR = '"knowledge_product"."search_vector"'


class PostgresBackend:
    def match(
        self,
        queryset: QuerySet[Product],
        groups: Sequence[Sequence[str]],
        *,
        every: bool,
        language: str = "en",
    ) -> QuerySet:
        # Words are folded letters and digits only (text.query_words), so they are safe as
        # to_tsquery operands; words the language's config treats as stop words drop out.
        query = f"to_tsquery('{CONFIGS.get(language, CONFIG)}', %s)"
        tsquery = (" & " if every else " | ").join(
            "(" + " | ".join(group) + ")" for group in groups
        )
        return queryset.filter(
            RawSQL(f"{_VECTOR} @@ {query}", [tsquery], output_field=BooleanField())
        ).annotate(
            rank=RawSQL(f"ts_rank({_VECTOR}, {query})", [tsquery], output_field=FloatField())
        )

    def near_terms(self, organization: Organization, word: str) -> list[tuple[str, float]]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT term, similarity(term, %s) AS score FROM knowledge_searchterm"
                " WHERE organization_id = %s AND length(term) BETWEEN %s AND %s"
                " ORDER BY score DESC, length(term), term LIMIT %s",
                [
                    word,
                    organization.pk,
                    len(word) - LENGTH_WINDOW,
                    len(word) + LENGTH_WINDOW,
                    NEAR_CANDIDATES,
                ],
            )
            return [(term, float(score)) for term, score in cursor.fetchall()]
