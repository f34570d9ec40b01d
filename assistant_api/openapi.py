"""Shared pieces of the OpenAPI description: the error body and both auth schemes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers
from rest_framework.views import APIView

ErrorBody = inline_serializer(
    name="Error",
    fields={
        "message": serializers.CharField(),
        "errors": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)

_DESCRIPTIONS = {
    400: (
        "Malformed request: a body that is not valid JSON, or a request line or header the "
        "HTTP server refuses (e.g. a control character in a header value)."
    ),
    401: "API key missing, unknown, revoked, expired, or of the other environment.",
    403: "The key's scope does not allow this operation (chat keys chat, catalog keys catalog).",
    404: "The resource does not exist or belongs to another organization.",
    408: "The body did not arrive within REQUEST_BODY_TIMEOUT_SECONDS (10 s by default).",
    413: "Body larger than 64 KiB (the catalog API: `CATALOG_MAX_BODY_BYTES`, 16 MiB).",
    415: "The body is not application/json.",
    422: "The body or query failed validation.",
    429: (
        "Monthly message quota reached, rate limit exceeded, too many refused API keys from "
        "this address, or too many open event streams (with Retry-After)."
    ),
    503: "The database or the assistant engine is unavailable.",
}


def chat_id_parameter() -> OpenApiParameter:
    return OpenApiParameter(
        "chatId",
        OpenApiTypes.UUID,
        OpenApiParameter.PATH,
        description="Id of the chat (from Create Chat).",
    )


def message_id_parameter() -> OpenApiParameter:
    return OpenApiParameter(
        "messageId",
        OpenApiTypes.UUID,
        OpenApiParameter.PATH,
        description="Id of a message of the chat (from its history or Add Message to Chat).",
    )


# Any request can be malformed at the HTTP level, and any operation needs the database.
ALWAYS_POSSIBLE = (400, 503)


def ERROR_RESPONSES(*statuses: int) -> dict[int, OpenApiResponse]:
    codes = {*statuses, *ALWAYS_POSSIBLE}
    if 413 in codes:  # a body can arrive too late wherever it can be too large
        codes.add(408)
    return {
        code: OpenApiResponse(ErrorBody, description=_DESCRIPTIONS[code]) for code in sorted(codes)
    }


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = ["apiKey", "bearer"]

    def get_security_requirement(self, auto_schema):
        # Either header works (docs/api.md#authentication): two alternative requirements, not both
        # at once.
        return [{"apiKey": []}, {"bearer": []}]

    def get_security_definition(self, auto_schema):
        return [
            {"type": "apiKey", "in": "header", "name": "x-api-key"},
            {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
        ]


def documented_as(description: type[APIView], view: Callable[..., Any]) -> Callable[..., Any]:
    """`view` as a URL's view that drf-spectacular documents from `description`, a DRF view
    standing in for a plain Django one (it reads a view's `cls`); `view` answers every request."""

    @functools.wraps(view)
    def documented(request, **kwargs):
        return view(request, **kwargs)

    documented.cls = description  # type: ignore[attr-defined]
    documented.initkwargs = {}  # type: ignore[attr-defined]
    return documented
