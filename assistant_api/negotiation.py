"""Content negotiation (DRF's) without parsing `Accept` for what nearly every client sends.

Clients send no `Accept`, `*/*` or `application/json`; for those DRF always picks the first
renderer, so it is picked at once (DRF's own negotiation cost a cached GET chat about a tenth
of its time). Anything else, and a `?format=` override, goes through DRF's
negotiation unchanged: `Accept: text/html` is still a 406 (docs/api.md#status-codes).
"""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.settings import api_settings


class JsonFirstNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        first = renderers[0]
        # An absent header accepts anything; an empty one is DRF's to refuse (406).
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if (
            accept in ("*/*", first.media_type)
            and format_suffix is None
            # Without a query string there is no ?format=: no QueryDict built to find out.
            and (
                not request.META.get("QUERY_STRING")
                or api_settings.URL_FORMAT_OVERRIDE not in request.query_params
            )
        ):
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)
