from django.core.management.base import CommandError

from accounts.management.json_command import JsonCommand
from accounts.services import organization_resolve, quota_set


def parse_quota(value: str) -> int | None:
    if value.strip().lower() == "unlimited":
        return None
    try:
        quota = int(value)
    except ValueError as exc:
        raise CommandError(
            f"Quota must be a whole number >= 0 or 'unlimited', got {value!r}"
        ) from exc
    if quota < 0:
        raise CommandError(f"Quota must be a whole number >= 0 or 'unlimited', got {value!r}")
    return quota


class Command(JsonCommand):
    help = "Set an organization's monthly message quota (a number or 'unlimited')."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("org")
        parser.add_argument("quota")

    def run(self, *, org: str, quota: str, **options):
        organization = quota_set(
            organization=organization_resolve(ref=org), monthly_quota=parse_quota(quota)
        )
        shown = "unlimited" if organization.monthly_quota is None else organization.monthly_quota
        return {"quota": organization.monthly_quota}, f"Quota of {organization.name}: {shown}"
