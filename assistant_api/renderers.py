"""JSON rendering with orjson: the hot path of every API response."""

from __future__ import annotations

from typing import Any

import orjson
from django.http import HttpResponse
from rest_framework.renderers import BaseRenderer


def json_default(value: Any) -> Any:
    # Decimal and lazy strings reach the renderer from serializers and error details.
    from decimal import Decimal

    if isinstance(value, Decimal):
        return float(value)
    return str(value)


JSON = "application/json"


def json_bytes(data: Any) -> bytes:
    """The API's JSON: orjson, timestamps in UTC ending in `Z` (docs/api.md#timestamps)."""
    return orjson.dumps(data, default=json_default, option=orjson.OPT_UTC_Z)


def json_response(data: Any, *, status: int = 200) -> HttpResponse:
    """`data` as a response body for views outside DRF, exactly as JsonRenderer writes it."""
    return HttpResponse(json_bytes(data), status=status, content_type=JSON)


class JsonRenderer(BaseRenderer):
    media_type = JSON
    format = "json"
    charset = None

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context=None
    ) -> bytes:
        if data is None:
            # A view that returns no body (204, 304) renders nothing; a view that returns
            # JSON null (docs/api.md#get-or-generate-a-pdp-question-set) sets `render_null`.
            response = (renderer_context or {}).get("response")
            if response is None or not getattr(response, "render_null", False):
                return b""
        return json_bytes(data)
