"""Catalog search in the organization's language on PostgreSQL: one text search configuration
per language, chosen by the trigger from Organization.language (SQLite stems query words in
Python instead, knowledge/search/sqlite.py)."""

from django.db import migrations

from knowledge.search import schema_postgres


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in schema_postgres.LANGUAGES_INSTALL:
            schema_editor.execute(statement)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in schema_postgres.LANGUAGES_UNINSTALL:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0006_feed_sources"),
        ("accounts", "0009_organization_language"),
    ]

    operations = [migrations.RunPython(install, uninstall)]
