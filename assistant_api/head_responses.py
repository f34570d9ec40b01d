"""Responses to HEAD without their body (RFC 9110 §9.3.2), whatever the view returned.

Django answers HEAD with the GET's response, body included, and leaves dropping the body to the
server: runserver and the test client do, gunicorn does not. It sent the body after the
headers, and a client reusing the connection read those bytes as the start of its next
response. This WSGI wrapper drops the body and keeps every header, Content-Length included, so
a HEAD tells what a GET would get.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant_api.request_body import WsgiApp


class HeadWithoutBody:
    def __init__(self, app: WsgiApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]):
        body = self.app(environ, start_response)
        if environ.get("REQUEST_METHOD") != "HEAD":
            return body
        close = getattr(body, "close", None)
        if close is not None:
            close()  # Django's request_finished: the connection goes back, as after a GET
        return []
