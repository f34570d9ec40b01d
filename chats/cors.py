"""CORS on the chat paths, for client-token requests only (docs/api.md, "Shop front-ends").

A preflight carries no credentials, so it is answered for any origin; the request that
follows is refused (403 `Origin not allowed`, before anything is stored) when its token's
organization does not allow the origin (chats/token_auth.py). Allowed token requests get
their origin echoed. API-key requests never get CORS headers: a key is a server-side secret,
and a page that holds one should fail loudly. No cookies are used, so no
`Access-Control-Allow-Credentials`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import patch_vary_headers

from chats.token_auth import CORS_ORIGIN_ATTRIBUTE

CHAT_PATHS = re.compile(r"^/v1/(?:chats/[^/]+(?:/.*)?|ui/chat(?:/.*)?)$")
ALLOW_METHODS = "GET, POST, PUT, DELETE, OPTIONS"  # PUT and DELETE: answer feedback
ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key, Last-Event-ID"
EXPOSE_HEADERS = "X-Request-Id, Retry-After, X-Quota-Limit, X-Quota-Remaining"
# How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours).
PREFLIGHT_MAX_AGE_SECONDS = 600

Handler = Callable[[HttpRequest], HttpResponseBase]


class ChatCorsMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not CHAT_PATHS.match(request.path_info):
            return self.get_response(request)
        origin = request.META.get("HTTP_ORIGIN")
        if (
            origin
            and request.method == "OPTIONS"
            and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in request.META
        ):
            return preflight_response(origin)
        response = self.get_response(request)
        allowed = getattr(request, CORS_ORIGIN_ATTRIBUTE, None)
        if allowed is not None:
            response["Access-Control-Allow-Origin"] = allowed
            response["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
            patch_vary_headers(response, ["Origin"])
        return response


def preflight_response(origin: str) -> HttpResponse:
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Origin"] = origin
    response["Access-Control-Allow-Methods"] = ALLOW_METHODS
    response["Access-Control-Allow-Headers"] = ALLOW_HEADERS
    response["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE_SECONDS)
    patch_vary_headers(response, ["Origin"])
    return response
