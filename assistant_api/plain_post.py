"""The chat creation POST answered without DRF's request cycle, as
assistant_api/plain_get.py answers the hot GETs.

Every chat screen a shopper opens creates a chat. Only a request DRF would read the same way
takes the plain path: JSON accepted as is, `Content-Type: application/json`, and a body that
is a JSON object as DRF's parser reads it (orjson, assistant_api/parsers.py). Anything else
(another media type, a body that is not JSON, an array) goes to DRF, which answers it as
before (415, 400, 422); the plain function has not run then, so the request's rate limit is
counted once either way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import orjson
from django.http import HttpRequest, HttpResponseBase

from assistant_api.plain_get import allow_header, answers_json_as_is, error_response

PlainPost = Callable[..., HttpResponseBase]


def plain_post(drf_view: Callable[..., HttpResponseBase], post: PlainPost) -> Callable[..., Any]:
    """The URL's view: `post(request, body)` answers a plain JSON POST, `drf_view` every other
    request."""
    allow = allow_header(drf_view.actions)  # type: ignore[attr-defined]

    def view(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
        if request.method != "POST":
            return drf_view(request, **kwargs)
        try:
            body = json_object_body(request) if answers_json_as_is(request) else None
            if body is None:
                return drf_view(request, **kwargs)
            response = post(request, body, **kwargs)
        except Exception as exc:
            response = error_response(exc, request)
        response["Allow"] = allow  # as DRF sends on every response of the view
        return response

    # The view's attributes (cls, initkwargs, actions, csrf_exempt) for the schema and Django.
    return functools.update_wrapper(view, drf_view)


def json_object_body(request: HttpRequest) -> dict[str, Any] | None:
    """The body when it is a JSON object sent as `application/json`, read as DRF's parser
    reads it (assistant_api/parsers.py); else None."""
    if request.content_type != "application/json":
        return None
    try:
        data = orjson.loads(request.body)
    except orjson.JSONDecodeError:  # DRF answers it: 400 with the reason
        return None
    return data if isinstance(data, dict) else None
