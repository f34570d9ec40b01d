"""Staff members of the console for tests against the live server (committed rows)."""

from __future__ import annotations

from accounts.roles import OPERATOR_PERMISSIONS, OPERATORS, SUPPORT, SUPPORT_PERMISSIONS

PASSWORD = "console-pw-1"


def staff_member(role: str):
    """A staff user in the role's group, with the group's permissions as roles.py sets them.

    Tests on committed rows flush the tables after each test, the groups the data migration
    made with them, so the group is made again here from the same table of permissions.
    """
    from django.contrib.auth.models import Group, Permission, User

    grants = {OPERATORS: OPERATOR_PERMISSIONS, SUPPORT: SUPPORT_PERMISSIONS}[role]
    group, _ = Group.objects.get_or_create(name=role)
    for app_label, models in grants.items():
        for model, actions in models.items():
            group.permissions.add(
                *Permission.objects.filter(
                    content_type__app_label=app_label,
                    codename__in=[f"{action}_{model}" for action in actions],
                )
            )
    user = User.objects.create_user(role.lower(), f"{role.lower()}@example.com", PASSWORD)
    user.is_staff = True
    user.save()
    user.groups.add(group)
    return user
