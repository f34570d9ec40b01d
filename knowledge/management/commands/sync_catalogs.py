"""`sync_catalogs`: fetches the feed sources that are due and imports what changed.

Meant to run every minute or few from cron or a Kubernetes CronJob (README "Scheduled feeds");
each source keeps its own schedule. Exits with status 1 when a source failed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from accounts.management.json_command import JsonCommand
from accounts.services import organization_resolve
from knowledge.models import FeedSource
from knowledge.sources.sync import FAILED, catalog_sources_sync


class Command(JsonCommand):
    help = "Fetch the catalog feed sources that are due and import the feeds that changed."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument(
            "--org", help="only this organization's source (id or exact name), due or not"
        )
        parser.add_argument(
            "--all", action="store_true", help="every enabled source now, due or not"
        )

    def run(self, *, org: str | None, all: bool, **options: Any) -> tuple[dict, str]:
        sources = None
        if org is not None:
            organization = organization_resolve(ref=org)
            sources = FeedSource.objects.filter(organization=organization).select_related(
                "organization"
            )
        elif all:
            sources = FeedSource.objects.filter(enabled=True).select_related("organization")
        outcomes = catalog_sources_sync(sources=sources)
        self.failed = [outcome for outcome in outcomes if outcome.status == FAILED]
        lines = [
            f"{outcome.organization.name}: {outcome.status}. {outcome.message}"
            for outcome in outcomes
        ] or ["No feed source was due."]
        return {"sources": [outcome.as_json() for outcome in outcomes]}, "\n".join(lines)

    def handle(self, *args: Any, **options: Any) -> None:
        self.failed = []
        super().handle(*args, **options)
        if self.failed:
            names = ", ".join(outcome.organization.name for outcome in self.failed)
            raise CommandError(f"failed: {names} (see the import history)")
