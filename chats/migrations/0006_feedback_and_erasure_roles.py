from django.db import migrations

from accounts.roles import sync_role_groups


class Migration(migrations.Migration):
    """Both roles read feedback; Operators may erase a shopper's chats."""

    dependencies = [
        ("chats", "0005_feedback"),
        ("accounts", "0007_organization_retention_days"),
    ]

    operations = [migrations.RunPython(sync_role_groups, migrations.RunPython.noop)]
