"""JSON request parsing with orjson: fast, and strict about what it accepts.

orjson refuses nesting deeper than 1024, invalid UTF-8, lone surrogates, NaN/Infinity and
integers beyond 64 bits, each with a short reason that is safe to show (docs/api.md#json-bodies:
400).
"""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from assistant_api.errors import INVALID_JSON


class JsonParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        raw = stream.read() if stream is not None else b""
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            reason = str(exc).split(":", 1)[0]
            raise ParseError(f"{INVALID_JSON}: {reason}") from None
