"""An organization's allowed origins (docs/api.md#cors), as operators type them in the admin."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError

NOT_A_LIST = 'Enter a list of origins, e.g. ["https://shop.example"]; an empty list allows any.'


def allowed_origins_clean(value: Any) -> list[str]:
    """The list to store, or ValidationError naming what is not an origin.

    Nothing (a cleared field, JSON null) is the empty list. Anything else must be a list of
    `scheme://host[:port]` (http or https, nothing after the host but a slash) or "*": a bare
    string or a URL with a path would match no browser's Origin, and silently end CORS for
    every page of the shop.
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationError(NOT_A_LIST)
    wrong = [entry for entry in value if not _is_origin(entry)]
    if wrong:
        raise ValidationError(
            "Not an origin (scheme://host[:port], without a path): %(wrong)s",
            params={"wrong": ", ".join(repr(entry) for entry in wrong)},
        )
    return value


def _is_origin(entry: Any) -> bool:
    if entry == "*":
        return True
    if not isinstance(entry, str):
        return False
    try:
        parts = urlsplit(entry.strip())
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError:
        return False
    return (
        parts.scheme in {"http", "https"}
        and bool(parts.hostname)
        and parts.username is None
        and parts.path in {"", "/"}
        and not parts.query
        and not parts.fragment
    )
