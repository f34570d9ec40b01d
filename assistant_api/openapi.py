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
    401: (
        "API key missing, unknown, revoked, expired, or of the other environment; or a client "
        "token that is invalid, expired, or whose API key was revoked."
    ),
    403: (
        "The key's scope does not allow this operation (chat keys chat, catalog keys catalog); "
        "a client token used on another chat or an operation it does not cover, or from an "
        "origin the organization does not allow."
    ),
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


# Operations that take an API key only, on viewsets whose other actions take client tokens:
# extend_schema(auth=...) takes security requirements (its annotation says names).
API_KEY_ONLY: Any = [{"apiKey": []}, {"bearer": []}]


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
            # No bearerFormat: a key is an opaque string, not a JWT.
            {"type": "http", "scheme": "bearer"},
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


class ChatTokenAuthenticationScheme(OpenApiAuthenticationExtension):
    """A chat's client token (docs/api.md, "Shop front-ends"): opaque, not a JWT."""

    target_class = "chats.token_auth.ChatTokenAuthentication"
    name = "clientToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "A chat's client token from Create Client Token, for that chat's operations "
                "from a browser. On the event streams it may also be sent as `?token=`."
            ),
        }


def public_operations_without_security(result, generator, request, public):
    """drf-spectacular postprocessing hook: an operation that takes no credentials says so
    with `security: []` (the PDP endpoints), where it would otherwise say nothing, which
    readers and linters take as "unspecified"."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation.setdefault("security", [])
    return result


def nullable_schemas_typed(result, generator, request, public):
    """drf-spectacular postprocessing hook: a nullable reference (`allOf`/`oneOf` of a component,
    as drf-spectacular writes a nullable nested serializer or choice field) gets the type of
    the component it refers to, since OpenAPI 3.0 ignores `nullable` without a `type`."""
    components = result.get("components", {}).get("schemas", {})

    def referred_type(schema: dict) -> str | None:
        for option in schema.get("allOf", []) + schema.get("oneOf", []):
            name = option.get("$ref", "").rpartition("/")[2]
            if components.get(name, {}).get("type"):
                return components[name]["type"]
        return None

    def visit(node: object) -> None:
        if isinstance(node, dict):
            if node.get("nullable") and "type" not in node and (found := referred_type(node)):
                node["type"] = found
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(result)
    return result
