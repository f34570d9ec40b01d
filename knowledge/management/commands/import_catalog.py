"""`import_catalog ORG FEED [--inventory FILE] [--stores FILE] [--full] [--strict]`
(docs/api.md#operators-command-line)."""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from pathlib import Path

from django.core.management.base import CommandError
from tqdm import tqdm

from accounts.management.json_command import JsonCommand
from accounts.services import organization_resolve
from knowledge.catalog.services import ImportFile, catalog_import


class Command(JsonCommand):
    help = (
        "Import a Google Merchant Center product feed (TSV or RSS XML) into an organization's "
        "catalog (ORG is its id or exact name), with an optional local inventory feed and stores "
        "file. Exits with status 1 when a file could not be read or --strict aborted."
    )

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("org")
        parser.add_argument("feed", help="product feed: .tsv/.txt or RSS 2.0 .xml")
        parser.add_argument("--inventory", help="local inventory feed (store_code, id, ...)")
        parser.add_argument("--stores", help="stores file (store_code, name)")
        parser.add_argument(
            "--full", action="store_true", help="remove items missing from the feed"
        )
        parser.add_argument(
            "--strict", action="store_true", help="import nothing if any row is bad"
        )

    def run(self, *, org, feed, inventory, stores, full, strict, **options):
        organization = organization_resolve(ref=org)
        paths = {"feed": feed, "inventory": inventory, "stores": stores}
        for label, path in paths.items():
            if path is not None and not Path(path).is_file():
                raise CommandError(f"{label} file not found: {path}")
        total = sum(os.path.getsize(path) for path in paths.values() if path)
        show_progress = not options["json"] and sys.stderr.isatty()
        with ExitStack() as stack:
            files = {
                label: ImportFile(stack.enter_context(open(path, "rb")), Path(path).name)
                for label, path in paths.items()
                if path is not None
            }
            bar = stack.enter_context(
                tqdm(
                    total=total,
                    unit="B",
                    unit_scale=True,
                    desc="Importing",
                    disable=not show_progress,
                )
            )
            report, _run = catalog_import(
                organization=organization,
                feed=files["feed"],
                inventory=files.get("inventory"),
                stores=files.get("stores"),
                full=full,
                strict=strict,
                on_read=bar.update if show_progress else None,
            )
        self.failed = not report.succeeded
        return report.as_json(), report.as_text()

    def handle(self, *args, **options) -> None:
        self.failed = False
        super().handle(*args, **options)
        if self.failed:
            # The summary (with the reasons) is already printed; the status tells scripts.
            raise CommandError("the import failed; see the errors above", returncode=1)
