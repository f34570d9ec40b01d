"""Database functions that return a column already in the API's text form (docs/api.md#conventions).

Reading a UUID or a timestamp into a Python object only to format it back into the response
cost a page of 20 messages about 0.1 ms of worker CPU; PostgreSQL writes the same
text for about 15 us more per query.
"""

from __future__ import annotations

from django.db.models import CharField, Func


class UuidText(Func):
    """A UUID column as `str(uuid.UUID)` writes it: lowercase, with hyphens."""

    output_field = CharField()
    template = "(%(expressions)s)::text"  # PostgreSQL's uuid output is that form already

    def as_sqlite(self, compiler, connection, **extra_context):
        # Django stores a UUID on SQLite as its 32 lowercase hex digits (`uuid.hex`).
        sql, params = compiler.compile(self.source_expressions[0])
        groups = ((1, 8), (9, 4), (13, 4), (17, 4), (21, 12))
        parts = [f"substr({sql}, {start}, {length})" for start, length in groups]
        return " || '-' || ".join(parts), tuple(params) * len(groups)


class UtcIsoTimestamp(Func):
    """A datetime column in ISO 8601 UTC ending in `Z`, as `serializers.iso_timestamp` writes
    it: microseconds only when there are some."""

    output_field = CharField()
    template = (
        "replace(to_char(%(expressions)s AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), '.000000Z', 'Z')"
    )

    def as_sqlite(self, compiler, connection, **extra_context):
        # Django stores an aware datetime on SQLite as str() of it in UTC (no DATABASES
        # TIME_ZONE), without tzinfo: `2025-01-31 09:30:00.250000`, microseconds left out
        # when zero.
        return super().as_sql(
            compiler, connection, template="replace(%(expressions)s, ' ', 'T') || 'Z'"
        )
