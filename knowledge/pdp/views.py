"""The two public PDP endpoints (operations 6 and 7, docs/api.md#pdp-question-sets): no key,
CORS, cached GET."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils.http import parse_etags
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions as drf
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from assistant_api.errors import NotFoundError, ValidationFailedError
from assistant_api.exception_handlers import error_response
from assistant_api.openapi import ERROR_RESPONSES
from assistant_api.renderers import json_response
from assistant_api.throttling import PublicRateThrottle, public_rate_limit
from assistant_api.validation import validated
from assistant_api.viewsets import ApiViewSet
from knowledge.canonical import InvalidUrlError, canonicalize_url_cached
from knowledge.pdp.cors import remember_allowed_origins
from knowledge.pdp.selectors import (
    QUESTION_SET_NOT_FOUND,
    organization_get_public,
    parse_organization_id,
)
from knowledge.pdp.serializers import INVALID_URL, PdpQuestionsInput
from knowledge.pdp.services import question_set_get_or_generate
from knowledge.pdp.serving import question_set_serve

PUBLIC_ALLOW = "GET, HEAD, OPTIONS"  # OPTIONS: the CORS preflight (django-cors-headers)
# Shops call the GET on every product page view: browsers and CDNs may reuse it for a minute.
CACHE_CONTROL = "public, max-age=60"
REQUIRED = "This field is required."

NULLABLE_SET = {
    # `type` beside `nullable`: OpenAPI 3.0 ignores `nullable` without one (linters say so).
    "type": "object",
    "allOf": [{"$ref": "#/components/schemas/PdpQuestionsSet"}],
    "nullable": True,
}


class PdpQuestionSetViewSet(ApiViewSet):
    """The body form; the GET is the plain view `question_set_public`."""

    # Public (docs/api.md#authentication): a key sent is ignored, never checked.
    authentication_classes: list = []
    permission_classes = [AllowAny]
    # Per client address (docs/api.md#rate-limits), not per key: there is none here.
    throttle_classes = [PublicRateThrottle]
    # A shop's page calls it with whatever its browser sends (assistant_api/negotiation.py).
    accept_ignored = True

    @extend_schema(
        operation_id="getPdpQuestionSetBodyForm",
        summary="PDP Question Set (body form)",
        description=(
            "Returns the set stored for the canonical form of `url`; when there is none and the "
            "organization's catalog has a product at that URL, generates a set from the "
            "product, stores it and returns it; otherwise returns `null`. No API key; "
            "CORS-enabled. Each set returned counts one request. "
            "Reference: docs/api.md#get-or-generate-a-pdp-question-set"
        ),
        auth=[],
        request=PdpQuestionsInput,
        responses={
            200: OpenApiResponse(NULLABLE_SET, description="The stored or generated set, or null."),
            **ERROR_RESPONSES(400, 404, 413, 415, 422, 429),
        },
    )
    def get_questions(self, request: Request) -> Response:
        data = validated(PdpQuestionsInput, request.data)
        organization = organization_get_public(organization_id=data["organizationId"])
        remember_allowed_origins(request._request, organization.allowed_origins)

        found = question_set_get_or_generate(organization=organization, url=data["url"])
        if found is None:
            response = Response(None)
            response.render_null = True  # type: ignore[attr-defined]
            return response
        return Response(found.body())


@csrf_exempt  # no key, no cookies: other methods get 405, not a CSRF 403
def question_set_public(request: HttpRequest, organizationId: str) -> HttpResponseBase:
    """GET /v1/knowledge/pdp-questions/{organizationId}/public: a plain Django view, not a
    DRF one, since every product page view calls it (described in OpenAPI by
    knowledge/pdp/openapi.py). JSON whatever the client accepts; errors as DRF answers them
    (assistant_api/exception_handlers.py)."""
    try:
        if request.method == "OPTIONS":  # not a preflight: django-cors-headers answers those
            response: HttpResponseBase = HttpResponse()
        elif request.method in ("GET", "HEAD"):
            public_rate_limit(request)  # the address's rate limit first, as DRF throttles
            response = question_set_response(request, organizationId)
        else:
            raise drf.MethodNotAllowed(request.method or "")
    except Exception as exc:
        response = error_response(exc, request)
    response["Allow"] = PUBLIC_ALLOW
    return response


def question_set_response(request: HttpRequest, organization_id: str) -> HttpResponseBase:
    """The stored set for `?url=`, 304 when the client has it, 404 or 422
    (docs/api.md#get-a-pdp-question-set)."""
    org_id = parse_organization_id(organization_id)
    raw_url = request.GET.get("url")
    try:
        url = canonicalize_url_cached(raw_url) if raw_url else None
    except InvalidUrlError:
        url = None
    if url is None:
        # An unknown organization is a 404 whatever the query says.
        organization_get_public(organization_id=org_id)
        raise ValidationFailedError.from_detail({"url": [INVALID_URL if raw_url else REQUIRED]})

    found = question_set_serve(organization_id=org_id, url=url)
    if found is None:
        organization = organization_get_public(organization_id=org_id)
        remember_allowed_origins(request, organization.allowed_origins)
        raise NotFoundError(QUESTION_SET_NOT_FOUND)
    remember_allowed_origins(request, found.allowed_origins)

    etag = found.etag
    if _etag_matches(request.META.get("HTTP_IF_NONE_MATCH", ""), etag):
        response: HttpResponseBase = HttpResponseNotModified()  # no body, no Content-Type
    else:
        response = json_response(found.body())
    response["ETag"] = etag
    response["Cache-Control"] = CACHE_CONTROL
    return response


def _etag_matches(if_none_match: str, etag: str) -> bool:
    """Weak comparison, as If-None-Match requires (RFC 9110 §13.1.2)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == opaque for tag in parse_etags(if_none_match))
