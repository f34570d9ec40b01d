"""`manage.py erase_user ORG USER_ID`: deletes one shopper's chats, messages, events and
feedback in an organization (a privacy request); usage counts stay."""

from __future__ import annotations

from accounts.management.json_command import JsonCommand
from accounts.services import organization_resolve
from chats.erasure import user_erase


class Command(JsonCommand):
    help = (
        "Erase a shopper: delete their chats with messages, events and feedback in the "
        "organization (by id or name). Usage counts are kept."
    )

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("org", help="organization id or exact name")
        parser.add_argument("user_id", help="the shopper's userId (a UUID)")

    def run(self, *, org: str, user_id: str, **options):
        organization = organization_resolve(ref=org)
        removed = user_erase(organization=organization, user_id=user_id)
        result = {"organizationId": str(organization.pk), "userId": user_id, **removed.as_dict()}
        text = (
            f"Erased user {user_id} in {organization.name}: {removed.chats} chats, "
            f"{removed.messages} messages, {removed.events} events, "
            f"{removed.feedback} feedback removed."
        )
        return result, text
