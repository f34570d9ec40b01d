"""Operation 6, the public PDP GET, in the OpenAPI description
(docs/api.md#get-a-pdp-question-set).

drf-spectacular documents DRF views only, and the GET is a plain Django view
(knowledge/pdp/views.py `question_set_public`): this DRF view stands in for it in the schema
and answers nothing, as chats/stream/openapi.py does for the event stream.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from assistant_api.openapi import ERROR_RESPONSES
from knowledge.pdp.serializers import PdpQuestionsSetSerializer


class PdpQuestionSetDescription(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="getPdpQuestionSet",
        summary="Get PDP Question Set",
        description=(
            "The question set stored for the canonical form of `url`. No API key; CORS-enabled. "
            "Sent with `Cache-Control: public, max-age=60` and an `ETag`; a matching "
            "`If-None-Match` gets 304 with no body. Each set returned counts one request. "
            "Reference: docs/api.md#get-a-pdp-question-set"
        ),
        auth=[],
        parameters=[
            OpenApiParameter(
                "organizationId",
                OpenApiTypes.UUID,
                OpenApiParameter.PATH,
                description="The organization whose shop shows the page.",
            ),
            OpenApiParameter(
                "url",
                OpenApiTypes.URI,
                OpenApiParameter.QUERY,
                required=True,
                description="The product page URL; canonicalized by the server before matching.",
            ),
        ],
        responses={
            200: PdpQuestionsSetSerializer,
            304: OpenApiResponse(description="Not modified: the `If-None-Match` ETag matches."),
            **ERROR_RESPONSES(404, 422, 429),
        },
    )
    def get(self, request, organizationId: str):  # pragma: no cover - question_set_public answers
        raise NotImplementedError
