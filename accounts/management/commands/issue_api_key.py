import datetime as dt

from django.core.management.base import CommandError
from django.utils import timezone

from accounts.management.json_command import JsonCommand
from accounts.models import Scope
from accounts.services import api_key_issue, organization_resolve


def parse_expiry(value: str) -> dt.datetime:
    """A date (end of that day, UTC) or an ISO 8601 timestamp."""
    try:
        if len(value) == 10:
            day = dt.date.fromisoformat(value)
            return dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC)
        moment = dt.datetime.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(
            f"--expires must be a date (YYYY-MM-DD) or ISO 8601 timestamp: {value!r}"
        ) from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


class Command(JsonCommand):
    help = "Issue an API key for an organization; the full key is printed once."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("org")
        parser.add_argument("--environment", choices=["staging", "production"], default="staging")
        parser.add_argument("--expires", help="expiry date (YYYY-MM-DD) or timestamp")
        parser.add_argument("--name", default="", help="a label for the key")
        parser.add_argument(
            "--scope",
            choices=Scope.values,
            default=Scope.CHAT,
            help="chat (the chat operations, default) or catalog (the catalog API)",
        )

    def run(
        self,
        *,
        org: str,
        environment: str,
        expires: str | None,
        name: str,
        scope: str,
        **options,
    ):
        expires_at = parse_expiry(expires) if expires else None
        if expires_at is not None and expires_at <= timezone.now():
            raise CommandError("--expires must be in the future")
        issued = api_key_issue(
            organization=organization_resolve(ref=org),
            environment=environment,
            name=name,
            expires_at=expires_at,
            scope=scope,
        )
        text = (
            f"API key: {issued.key}\n"
            f"Prefix: {issued.api_key.prefix}\n"
            f"Scope: {issued.api_key.scope}\n"
            "Store it now: it will not be shown again."
        )
        result = {"apiKey": issued.key, "prefix": issued.api_key.prefix, "scope": scope}
        return result, text
