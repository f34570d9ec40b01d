"""Bulk work on PostgreSQL without prepared statements (DB_PREPARED_STATEMENTS, README).

A prepared statement run five times may get a generic plan, one plan for any values. For the
request path that is the point (planning once halved PostgreSQL's CPU per chat creation), but
the catalog import's batch statements got generic plans four times slower than their custom
ones (BENCHMARKS.md): inside `statements_unprepared()` every statement is planned
for its values.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections


@contextmanager
def statements_unprepared(using: str = "default") -> Iterator[None]:
    connection = connections[using]
    if connection.vendor != "postgresql":
        yield
        return
    connection.ensure_connection()
    raw = connection.connection
    threshold = raw.prepare_threshold
    raw.prepare_threshold = None
    try:
        yield
    finally:
        if not raw.closed:
            raw.prepare_threshold = threshold
