from django.db import migrations

from accounts.roles import sync_role_groups


class Migration(migrations.Migration):
    """Operators may view admin sign-in attempts and lift lockouts (django-axes' models)."""

    dependencies = [
        ("accounts", "0005_foreign_keys_indexed_by_composites"),
        ("axes", "0010_accessattemptexpiration"),
    ]

    operations = [migrations.RunPython(sync_role_groups, migrations.RunPython.noop)]
