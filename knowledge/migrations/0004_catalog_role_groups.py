"""Gives the admin groups their permissions on the catalog import history (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_role_groups


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0003_catalog_search_schema"),
        ("accounts", "0002_role_groups"),
    ]

    operations = [migrations.RunPython(sync_role_groups, migrations.RunPython.noop)]
