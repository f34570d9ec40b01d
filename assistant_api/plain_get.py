"""The hot GETs answered without DRF's request cycle.

DRF's dispatch (its Request, the authenticator, permission, throttle and negotiation objects
it makes per request, its template response) cost a cached GET chat or a PDP GET about 60 us
of CPU in process, a sixth of the whole request. These GETs run on every chat screen and
every product page view.

`plain_get()` gives such a path a view that answers GET with a plain function doing the same
steps in the same order (the key, its rate limit, the view's work) and turns its exceptions
into the same responses through the one exception handler (assistant_api/exception_handlers.py).
The DRF view still answers everything else: other methods (405, OPTIONS), HEAD, an `Accept`
other than JSON (406) and `?format=` if DRF's `URL_FORMAT_OVERRIDE` is turned on (settings turn
it off). It also keeps the path in the OpenAPI schema, which drf-spectacular reads from the
view's `cls` and `actions`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from rest_framework import exceptions as drf
from rest_framework.settings import api_settings

from assistant_api.exception_handlers import exception_handler
from assistant_api.renderers import JSON, json_response

PlainGet = Callable[..., HttpResponseBase]

# What ApiKeyAuthentication.authenticate_header gives DRF for a 401.
AUTHENTICATE = 'Bearer realm="api"'


def plain_get(drf_view: Callable[..., HttpResponseBase], get: PlainGet) -> Callable[..., Any]:
    """The URL's view: `get` answers a plain JSON GET, `drf_view` every other request."""
    allow = allow_header(drf_view.actions)  # type: ignore[attr-defined]

    def view(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
        if request.method != "GET":
            return drf_view(request, **kwargs)
        try:
            # Inside: reading the query may fail too (over 1,000 parameters is a 400).
            if not answers_json_as_is(request):
                return drf_view(request, **kwargs)
            response = get(request, **kwargs)
        except Exception as exc:
            response = error_response(exc, request)
        response["Allow"] = allow  # as DRF sends on every response of the view
        return response

    # The view's attributes (cls, initkwargs, actions, csrf_exempt) for the schema and Django.
    return functools.update_wrapper(view, drf_view)


def answers_json_as_is(request: HttpRequest) -> bool:
    """Whether DRF's negotiation would pick JSON without a look at anything else."""
    if request.META.get("HTTP_ACCEPT", "*/*") not in ("*/*", JSON):
        return False
    return not request.META.get("QUERY_STRING") or (
        api_settings.URL_FORMAT_OVERRIDE not in request.GET
    )


def allow_header(actions: dict[str, str]) -> str:
    """DRF's `Allow`: the view's methods in `http_method_names` order, HEAD with GET."""
    methods = set(actions) | {"options"} | ({"head"} if "get" in actions else set())
    order = ("get", "post", "put", "patch", "delete", "head", "options")
    return ", ".join(method.upper() for method in order if method in methods)


def error_response(exc: Exception, request: HttpRequest) -> HttpResponse:
    """What DRF would answer for `exc`, for views outside DRF (these GETs, the event stream)."""
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        exc.auth_header = AUTHENTICATE  # type: ignore[union-attr]  # as APIView does
    handled = exception_handler(exc, {"request": request})
    if handled is None:  # never: the handler answers every exception
        raise exc
    response = json_response(handled.data, status=handled.status_code)
    for name, value in handled.items():
        if name.lower() != "content-type":
            response[name] = value
    return response
