"""Identifiers as the API spells them (docs/api.md#identifiers): the 36-character hyphenated UUID
text."""

from __future__ import annotations

import re
import uuid

_UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def uuid_from_text(value: object) -> uuid.UUID | None:
    """The UUID of a path or body value, or None for anything else.

    uuid.UUID() also reads braces, a `urn:uuid:` prefix and 32 hex digits without hyphens;
    the API's identifiers are never spelled so, and such a path is malformed (404).
    """
    if isinstance(value, str) and _UUID_TEXT.fullmatch(value):
        return uuid.UUID(value)
    return None
