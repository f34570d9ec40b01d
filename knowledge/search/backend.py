"""The text-search backend protocol and the choice of backend by the database in use."""

from __future__ import annotations

from typing import Protocol

from django.db import connection
from django.db.models import QuerySet

from accounts.models import Organization
from knowledge.models import Product


class TextBackend(Protocol):
    def match(self, queryset: QuerySet[Product], terms: list[str], *, every: bool) -> QuerySet:
        """`queryset` narrowed to products matching all (`every`) or any of `terms`,
        annotated with `rank` (higher is better)."""
        ...

    def closest_term(self, organization: Organization, term: str) -> str | None:
        """The organization's catalog word nearest to a misspelt `term`, if one is near enough."""
        ...


def text_backend() -> TextBackend:
    if connection.vendor == "postgresql":
        from knowledge.search.postgres import PostgresBackend

        return PostgresBackend()
    if connection.vendor == "sqlite":
        from knowledge.search.sqlite import SqliteBackend

        return SqliteBackend()
    raise NotImplementedError(f"no catalog search backend for {connection.vendor}")
