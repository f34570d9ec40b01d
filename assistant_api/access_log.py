"""Gunicorn's logger with credentials taken out of access log lines.

A chat's client token may travel in the query string of the event streams (`?token=`, since
`EventSource` cannot send headers); the request line, the query and the environ atoms of the
access log would otherwise write it out for anyone who reads the logs.
"""

from __future__ import annotations

import re
from typing import Any

from gunicorn.glogging import Logger

_TOKEN_PARAMETER = re.compile(r"((?:^|[?&])token=)[^&\s]*", re.IGNORECASE)
_SECRET_HEADERS = ("{authorization}i", "{x-api-key}i")
REDACTED = "[redacted]"


def redact_query_tokens(text: str) -> str:
    """`text` (a URL, a query string or a request line) with every `token=` value hidden."""
    return _TOKEN_PARAMETER.sub(r"\g<1>" + REDACTED, text)


class RedactingLogger(Logger):
    def atoms(self, resp, req, environ, request_time) -> dict[str, Any]:
        atoms = super().atoms(resp, req, environ, request_time)
        for name in ("r", "q", "{raw_uri}e", "{query_string}e"):
            value = atoms.get(name)
            if isinstance(value, str) and "token=" in value.lower():
                atoms[name] = redact_query_tokens(value)
        for name in _SECRET_HEADERS:
            if name in atoms:
                atoms[name] = REDACTED
        return atoms
