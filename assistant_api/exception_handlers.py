"""The one place where exceptions become error responses in the documented shape
(docs/api.md#errors)."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from accounts.authentication import AUTHENTICATE, MISSING_KEY
from assistant_api import errors
from assistant_api.renderers import json_response

logger = logging.getLogger("assistant_api.errors")

_DRF_MESSAGES: dict[type[Exception], str] = {
    drf.NotAuthenticated: MISSING_KEY,
    drf.AuthenticationFailed: "Invalid API key",
    drf.ParseError: errors.INVALID_JSON,
    drf.NotFound: errors.NOT_FOUND,
}


def error_body(message: str, field_errors: dict[str, list[str]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message}
    if field_errors:
        body["errors"] = field_errors
    return body


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, errors.ApplicationError):
        response = Response(error_body(exc.message, exc.errors), status=exc.status_code)
        for name, value in exc.headers.items():
            response[name] = value
        return response
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body(errors.BODY_TOO_LARGE), status=413)
    if isinstance(exc, SuspiciousOperation):  # e.g. over 1,000 query parameters: not our bug
        return Response(error_body(errors.bad_request_message(exc)), status=400)
    if isinstance(exc, drf.ValidationError):
        exc = errors.ValidationFailedError.from_detail(exc.detail)
        return Response(error_body(exc.message, exc.errors), status=422)
    if isinstance(exc, OperationalError | InterfaceError):
        logger.error("database unavailable: %s", type(exc).__name__)
        return Response(error_body(errors.DATABASE_UNAVAILABLE), status=503)
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = drf.PermissionDenied()

    handled = drf_exception_handler(exc, context)
    if handled is None:
        if isinstance(exc, DatabaseError):
            logger.exception("database error")
        else:
            logger.exception("unhandled error")
        return Response(error_body(errors.INTERNAL_ERROR), status=500)

    handled.data = error_body(_message_for(exc))
    return handled


def _message_for(exc: Exception) -> str:
    """A detail our code (or DRF, for the request at hand) set on purpose, else our default."""
    detail = getattr(exc, "detail", None)
    default = getattr(exc, "default_detail", None)
    if isinstance(detail, str) and str(detail) != str(default):
        return str(detail)
    return _DRF_MESSAGES.get(type(exc)) or str(default or errors.INTERNAL_ERROR)


def error_response(exc: Exception, request: HttpRequest) -> HttpResponse:
    """What a DRF view would answer for `exc`, for the plain Django views (the public PDP GET,
    the event streams): the same handler, the same body and headers."""
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        exc.auth_header = AUTHENTICATE  # type: ignore[union-attr]  # as APIView sets it
    handled = exception_handler(exc, {"request": request})
    if handled is None:  # never: the handler answers every exception
        raise exc
    response = json_response(handled.data, status=handled.status_code)
    for name, value in handled.items():
        if name.lower() != "content-type":
            response[name] = value
    return response
