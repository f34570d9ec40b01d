"""The API's one content negotiation: DRF's, without parsing `Accept` for what nearly every
client sends.

Clients send no `Accept`, `*/*` or `application/json`; for those DRF always picks the first
renderer, so it is picked at once (DRF's own negotiation cost a cached GET chat about a tenth
of its time). Anything else, and a `?format=` override, goes through DRF's negotiation
unchanged: `Accept: text/html` is still a 406 (docs/api.md#status-codes). A view that sets
`accept_ignored` (the public PDP operations, which a shop's page calls with whatever its
browser sends) answers JSON whatever the client accepts.
"""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.settings import api_settings


class JsonFirstNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        first = renderers[0]
        if accepts_first_as_is(request, first.media_type, format_suffix) or accept_ignored(request):
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)


def accepts_first_as_is(request, media_type: str, format_suffix: str | None) -> bool:
    """Whether DRF would pick the first renderer without a look at anything else."""
    meta = request._request.META  # not through DRF's proxy of each attribute
    # An absent header accepts anything; an empty one is DRF's to refuse (406).
    if meta.get("HTTP_ACCEPT", "*/*") not in ("*/*", media_type):
        return False
    # Without a query string there is no ?format=: no QueryDict built to find out.
    return format_suffix is None and (
        not meta.get("QUERY_STRING") or api_settings.URL_FORMAT_OVERRIDE not in request.query_params
    )


def accept_ignored(request) -> bool:
    view = (getattr(request, "parser_context", None) or {}).get("view")
    return bool(getattr(view, "accept_ignored", False))
