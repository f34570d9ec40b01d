"""Base of the operators' commands: `--json` prints one JSON object as the last line."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from assistant_api.errors import ApplicationError


class JsonCommand(BaseCommand):
    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--json", action="store_true", help="print one JSON object on the last line"
        )
        self.add_command_arguments(parser)

    def add_command_arguments(self, parser) -> None:
        """Subclasses add their own arguments here."""

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result, text = self.run(**options)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        if options["json"]:
            self.stdout.write(json.dumps(result, default=str))
        else:
            self.stdout.write(self.style.SUCCESS(text))

    def run(self, *args: Any, **options: Any) -> tuple[dict[str, Any], str]:
        """Does the work; returns the JSON result and the human-readable text."""
        raise NotImplementedError
