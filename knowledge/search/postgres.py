"""PostgreSQL search: weighted full-text search on a trigger-kept `search_vector`, pg_trgm typos.

The column, its GIN index, the `catalog_english` text search configuration (English stemming
with accents folded by `unaccent`) and the trigram index on search terms come from
`knowledge.search.schema_postgres`, applied by a migration.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import BooleanField, FloatField, QuerySet
from django.db.models.expressions import RawSQL

from accounts.models import Organization
from knowledge.models import Product
from knowledge.search.text import SIMILARITY_THRESHOLD

CONFIG = "catalog_english"
_VECTOR = '"knowledge_product"."search_vector"'


class PostgresBackend:
    def match(self, queryset: QuerySet[Product], terms: list[str], *, every: bool) -> QuerySet:
        # Terms are folded letters and digits only (text.query_words), so they are safe as
        # to_tsquery operands; words the English config treats as stop words drop out.
        tsquery = (" & " if every else " | ").join(terms)
        query_sql = f"to_tsquery('{CONFIG}', %s)"
        return queryset.filter(
            RawSQL(f"{_VECTOR} @@ {query_sql}", [tsquery], output_field=BooleanField())
        ).annotate(
            rank=RawSQL(f"ts_rank({_VECTOR}, {query_sql})", [tsquery], output_field=FloatField())
        )

    def closest_term(self, organization: Organization, term: str) -> str | None:
        with connection.cursor() as cursor:
            # `%%` is pg_trgm's similarity operator (uses the trigram index); the explicit
            # threshold keeps both backends equally strict.
            cursor.execute(
                "SELECT term FROM knowledge_searchterm"
                " WHERE organization_id = %s AND term %% %s AND similarity(term, %s) >= %s"
                " ORDER BY similarity(term, %s) DESC, length(term), term LIMIT 1",
                [organization.pk, term, term, SIMILARITY_THRESHOLD, term],
            )
            row = cursor.fetchone()
        return row[0] if row else None
