from django.core.management.base import CommandError

from accounts.management.json_command import JsonCommand
from accounts.services import organization_create


class Command(JsonCommand):
    help = "Create an organization."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("name")
        parser.add_argument("--quota", type=int, help="monthly message quota (default: unlimited)")

    def run(self, *, name: str, quota: int | None, **options):
        if quota is not None and quota < 0:
            raise CommandError("--quota must be >= 0")
        organization = organization_create(name=name, monthly_quota=quota)
        return {
            "organizationId": str(organization.id)
        }, f"Created organization {organization.name} ({organization.id})"
