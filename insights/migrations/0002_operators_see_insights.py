from django.db import migrations

from accounts.roles import sync_role_groups


class Migration(migrations.Migration):
    """Operators read the insights pages."""

    dependencies = [
        ("insights", "0001_daily_figures"),
        ("chats", "0006_feedback_and_erasure_roles"),
    ]

    operations = [migrations.RunPython(sync_role_groups, migrations.RunPython.noop)]
