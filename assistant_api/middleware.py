"""Request id, body size limit and JSON error bodies for every path (docs/api.md#conventions)."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable

import orjson
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase

from assistant_api import errors
from assistant_api.request_body import UNREADABLE_BODY, body_limit
from assistant_api.request_context import request_id_var

logger = logging.getLogger("assistant_api.errors")

Handler = Callable[[HttpRequest], HttpResponseBase]

# A client's id is echoed only when it is safe to put back in a header and a log line.
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")

_STATUS_MESSAGES = {
    400: "Bad request",
    403: "Forbidden",
    408: "Request timeout",
    404: errors.NOT_FOUND,
    405: "Method not allowed",
    406: "Not acceptable",
    413: errors.BODY_TOO_LARGE,
    415: "Unsupported media type",
    500: errors.INTERNAL_ERROR,
    503: "Service unavailable",
}


def json_error(status: int, message: str | None = None) -> HttpResponse:
    body = orjson.dumps({"message": message or _STATUS_MESSAGES.get(status, "Error")})
    response = HttpResponse(body, status=status, content_type="application/json")
    # Made outside CommonMiddleware, which says every other response's length: without it
    # the server would send this one chunked.
    response["Content-Length"] = str(len(body))
    return response


class RequestIdMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        # META, not request.headers: see accounts.authentication.key_from_headers.
        given = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = given if _SAFE_REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        token = request_id_var.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response["X-Request-Id"] = request_id
        return response


class BodySizeLimitMiddleware:
    """Refuses declared bodies over 64 KiB before anything reads them (413), and bodies
    assistant_api/request_body.py could not read: too slow (408), cut off or malformed (400).

    The catalog API, the AI SDK endpoint (whose client sends the whole conversation every
    time) and the admin's catalog import form, from a request with a session, take larger
    ones (request_body.body_limit).
    """

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        unreadable = request.META.get(UNREADABLE_BODY)
        if unreadable is not None:
            return json_error(*unreadable)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return json_error(400, "Invalid Content-Length header")
        limit = body_limit(request.META)
        if length > limit:
            return json_error(413, errors.body_too_large(limit))
        return self.get_response(request)


class JsonErrorMiddleware:
    """Gives every error a JSON body, whoever produced it, on every path (docs/api.md#errors).

    DRF views already answer in the documented shape; this catches what Django itself
    answers (method not allowed on plain and admin views, empty-bodied errors) and unexpected
    exceptions in plain views, so no HTML page or trace ever reaches a client.
    """

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if response.status_code < 400 or response.streaming:
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        # Only the body changes: Allow, Retry-After and the security headers stay.
        replacement = json_error(response.status_code)
        for header, value in response.items():
            if header.lower() not in ("content-type", "content-length"):
                replacement[header] = value
        return replacement

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404 | PermissionDenied | SuspiciousOperation | BadRequest):
            return None  # Django's handlers (our JSON views in urls.py) answer these.
        if isinstance(exception, OperationalError | InterfaceError):
            logger.error("database unavailable: %s", type(exception).__name__)
            return json_error(503, errors.DATABASE_UNAVAILABLE)
        logger.exception("unhandled error", exc_info=exception)
        return json_error(500)
