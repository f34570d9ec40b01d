from django.db import migrations

from accounts.roles import sync_role_groups


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("chats", "0001_initial"),
        ("knowledge", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(sync_role_groups, migrations.RunPython.noop)]
