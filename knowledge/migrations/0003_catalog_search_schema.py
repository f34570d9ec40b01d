"""Full-text search objects of the catalog: PostgreSQL or SQLite, by the database in use."""

from django.db import migrations

from knowledge.search import schema_postgres, schema_sqlite


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {
        "postgresql": schema_postgres.INSTALL,
        "sqlite": schema_sqlite.INSTALL + schema_sqlite.REBUILD,
    }.get(vendor, [])
    for statement in statements:
        schema_editor.execute(statement)


def uninstall(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {
        "postgresql": schema_postgres.UNINSTALL,
        "sqlite": schema_sqlite.UNINSTALL,
    }.get(vendor, [])
    for statement in statements:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0002_catalog_import_runs_search_terms")]

    operations = [migrations.RunPython(install, uninstall)]
