from django.apps import AppConfig
from django.db.models.signals import post_migrate


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = "Knowledge"

    def ready(self) -> None:
        post_migrate.connect(_ensure_search_schema, sender=self)


def _ensure_search_schema(sender, using: str = "default", **kwargs) -> None:
    # SQLite table remakes in later migrations drop the search triggers; put them back.
    from django.db import connections

    from knowledge.search.schema_sqlite import ensure_sqlite_search

    if connections[using].vendor == "sqlite":
        ensure_sqlite_search(connections[using])
