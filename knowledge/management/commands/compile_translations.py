"""Compiles the reply texts of locale/<code>/LC_MESSAGES/django.po into the .mo files Django
reads, with Babel (a runtime dependency), so no gettext tools are needed."""

from __future__ import annotations

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile locale/*/LC_MESSAGES/django.po into django.mo (after editing a .po file)."

    def handle(self, *args, **options) -> None:
        for directory in settings.LOCALE_PATHS:
            for po_path in sorted(directory.glob("*/LC_MESSAGES/django.po")):
                with po_path.open("rb") as source:
                    catalog = read_po(source)
                with po_path.with_suffix(".mo").open("wb") as target:
                    write_mo(target, catalog)
                self.stdout.write(f"{po_path.with_suffix('.mo')}: {len(catalog)} messages")
