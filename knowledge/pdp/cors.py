"""CORS for the public PDP endpoints, narrowed to an organization's allowed origins
(docs/api.md#cors).

django-cors-headers answers CORS on the PDP paths only (`CORS_URLS_REGEX`) with
`Access-Control-Allow-Origin: *`. Its `check_request_enabled` signal can only grant, never
refuse, so this subclass adds the one rule it lacks: when the organization lists origins, only
those get CORS headers (their own origin echoed back, never `*`).

The organization is known from the view (it stores `pdp_allowed_origins` on the request, from
the row it loaded anyway) or, for a GET preflight, from the path. A POST preflight carries no
body and so no organization: it is answered for any origin, and the POST's own response is
then refused to an origin the organization does not list, which is what the browser enforces.
"""

from __future__ import annotations

import functools
import re
import uuid
from urllib.parse import urlsplit

from corsheaders.middleware import (
    ACCESS_CONTROL_ALLOW_CREDENTIALS,
    ACCESS_CONTROL_ALLOW_HEADERS,
    ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS,
    ACCESS_CONTROL_MAX_AGE,
    CorsMiddleware,
)
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from knowledge.canonical import DEFAULT_PORTS
from knowledge.pdp.selectors import organization_allowed_origins

_CORS_HEADERS = (
    ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_ALLOW_CREDENTIALS,
    ACCESS_CONTROL_ALLOW_HEADERS,
    ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_EXPOSE_HEADERS,
    ACCESS_CONTROL_MAX_AGE,
)
_GET_PATH = re.compile(
    r"^/v1/knowledge/pdp-questions/"
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/public$"
)


def remember_allowed_origins(request: HttpRequest, allowed_origins: list[str]) -> None:
    """Called by the views with the organization they loaded, so CORS needs no query."""
    request.pdp_allowed_origins = allowed_origins  # type: ignore[attr-defined]


def origin_normalize(origin: str) -> str:
    """origin_normalize_uncached, remembering short origins (asked on every PDP request, for
    the Origin and each allowed origin); a long header is not kept."""
    if len(origin) > _REMEMBERED_ORIGIN_LENGTH:
        return origin_normalize_uncached(origin)
    return _origin_normalize_remembered(origin)


def origin_normalize_uncached(origin: str) -> str:
    """`scheme://host[:port]`, lowercased, default port dropped: how browsers send Origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return origin.strip().lower()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or DEFAULT_PORTS.get(scheme) == port:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


_REMEMBERED_ORIGIN_LENGTH = 256  # a real Origin is far shorter; at most ~0.5 MB per worker
_origin_normalize_remembered = functools.lru_cache(maxsize=1024)(origin_normalize_uncached)


def origin_allowed(origin: str, allowed_origins: list[str]) -> bool:
    """Whether the request's Origin is one the organization lists ("*" lists every origin)."""
    wanted = origin_normalize(origin)
    return any(
        entry.strip() == "*" or origin_normalize(entry) == wanted
        for entry in allowed_origins
        if isinstance(entry, str)
    )


class PdpCorsMiddleware(CorsMiddleware):
    """django-cors-headers' middleware plus the per-organization origin list."""

    def add_response_headers(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        response = super().add_response_headers(request, response)
        if ACCESS_CONTROL_ALLOW_ORIGIN not in response:
            return response
        allowed = self._allowed_origins(request)
        if not allowed:
            return response
        origin = request.headers.get("origin", "")
        if origin_allowed(origin, allowed):
            response[ACCESS_CONTROL_ALLOW_ORIGIN] = origin
        else:
            for header in _CORS_HEADERS:
                if header in response:
                    del response[header]
        return response

    def _allowed_origins(self, request: HttpRequest) -> list[str]:
        known = getattr(request, "pdp_allowed_origins", None)
        if known is not None:
            return list(known)
        matched = _GET_PATH.match(request.path_info)
        if matched is None:
            return []
        # A GET preflight, or an answer given before the view loaded the organization.
        return organization_allowed_origins(organization_id=uuid.UUID(matched.group(1))) or []
