"""Django's session, login and message middleware, for browser pages only.

They serve the admin console and the docs page. API requests authenticate with a key and
never read a cookie, yet each of these middleware did work on every one of them (building
the message storage alone cost more than reading the request's API key from the cache).
Each class here is its Django counterpart, so Django's and the admin's checks still find
them, but it steps aside on the API's paths. (CSRF stays as it is: DRF's views are exempt,
so it costs next to nothing there, and the deployment check looks for Django's own class.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest
from django.http.response import HttpResponseBase

# What Django's MiddlewareMixin.__call__ returns (these are sync only, in fact).
Response = HttpResponseBase | Awaitable[HttpResponseBase]

# The JSON API and the health probes; `/docs/` and `/admin/` are browser pages.
API_PATH_PREFIXES = ("/v1/", "/healthz", "/readyz")


def is_api_request(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PATH_PREFIXES)


class _BrowserOnly:
    """Steps aside on API requests; anything else goes through the Django middleware it is
    mixed into."""

    get_response: Callable[[HttpRequest], Response]

    def __call__(self, request: HttpRequest) -> Response:
        if is_api_request(request):
            return self.get_response(request)
        return super().__call__(request)  # type: ignore[misc]


class BrowserSessionMiddleware(_BrowserOnly, SessionMiddleware):
    pass


class BrowserAuthenticationMiddleware(_BrowserOnly, AuthenticationMiddleware):
    pass


class BrowserMessageMiddleware(_BrowserOnly, MessageMiddleware):
    pass
