"""The two staff groups of the admin console and what each may do.

A data migration applies these; a migration that adds models calls `sync_role_groups` again.
"""

from __future__ import annotations

OPERATORS = "Operators"
SUPPORT = "Support"

# app label -> model -> actions
OPERATOR_PERMISSIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "accounts": {
        "organization": ("add", "change", "delete", "view"),
        "chatbot": ("add", "change", "delete", "view"),
        "apikey": ("add", "change", "view"),
    },
    "knowledge": {
        "product": ("add", "change", "delete", "view"),
        "store": ("add", "change", "delete", "view"),
        "storeinventory": ("add", "change", "delete", "view"),
        "pdpquestionset": ("add", "change", "delete", "view"),
        "pdpquestion": ("add", "change", "delete", "view"),
        # Adding an import run is running the admin import form.
        "importrun": ("add", "view"),
        "feedsource": ("add", "change", "delete", "view"),
    },
    # Deleting chats is erasing a shopper's data (the chat list's erase action); the console
    # offers no other way to delete one.
    "chats": {
        "chat": ("view", "delete"),
        "message": ("view",),
        "event": ("view",),
        "feedback": ("view",),
    },
    # The insights pages (per organization and chatbot) read these daily rows.
    "insights": {"insightday": ("view",)},
    # Admin sign-ins (django-axes): deleting an access attempt lifts its lockout.
    "axes": {
        "accessattempt": ("delete", "view"),
        "accesslog": ("view",),
        "accessfailurelog": ("view",),
    },
}

SUPPORT_PERMISSIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "chats": {
        "chat": ("view",),
        "message": ("view",),
        "event": ("view",),
        "feedback": ("view",),
    },
    "knowledge": {"product": ("view",), "store": ("view",), "storeinventory": ("view",)},
}


def sync_role_groups(apps, schema_editor=None) -> None:
    """Creates both groups and sets exactly their permissions (usable from a migration)."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for group_name, grants in ((OPERATORS, OPERATOR_PERMISSIONS), (SUPPORT, SUPPORT_PERMISSIONS)):
        group, _ = Group.objects.get_or_create(name=group_name)
        wanted = []
        for app_label, models in grants.items():
            for model, actions in models.items():
                codenames = [f"{action}_{model}" for action in actions]
                found = Permission.objects.filter(
                    content_type__app_label=app_label,
                    content_type__model=model,
                    codename__in=codenames,
                )
                wanted.extend(found)
        group.permissions.set(wanted)
