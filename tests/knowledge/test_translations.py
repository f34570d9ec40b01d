"""The reply texts' translation catalogs: every message the catalog engine writes is
translated in each served language, and the committed .mo files are the .po files compiled
(`manage.py compile_translations`), so a fresh clone replies in every language."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "knowledge" / "engines" / "catalog"
KEYWORDS = {"gettext": None, "ngettext": (1, 2)}


def _engine_messages() -> set[str]:
    found = set()
    for _filename, _line, message, _comments, _context in extract_from_dir(
        str(ENGINE), keywords=KEYWORDS, comment_tags=()
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


@pytest.mark.parametrize("language", ["fr", "de", "es", "it"])
def test_every_reply_text_is_translated_and_compiled(language):
    po_path = ROOT / "locale" / language / "LC_MESSAGES" / "django.po"
    with po_path.open("rb") as source:
        catalog = read_po(source)

    messages = _engine_messages()
    missing = sorted(m for m in messages if m not in catalog or not catalog[m].string)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)

    assert len(messages) > 100  # the extraction found the engine's texts
    assert missing == []
    assert po_path.with_suffix(".mo").read_bytes() == compiled.getvalue()
