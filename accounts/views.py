"""`GET /v1/usage`: the calling organization's use of its monthly quota (docs/api.md#get-usage)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_organization
from accounts.serializers import UsageOutput
from accounts.usage import quota_state
from assistant_api.openapi import ERROR_RESPONSES


class UsageView(APIView):
    permission_classes = [IsAuthenticated]  # a key of any scope may read its usage

    @extend_schema(
        operation_id="getUsage",
        description="Reference: docs/api.md#get-usage",
        summary="Get Usage",
        responses={200: UsageOutput, **ERROR_RESPONSES(401, 403, 429)},
    )
    def get(self, request: Request) -> Response:
        state = quota_state(organization=request_organization(request))
        body = {
            "month": state.month,
            "messages": state.used,
            "quota": state.limit,
            "remaining": state.remaining,
            "resetsAt": state.resets_at,
        }
        return Response(UsageOutput(body).data)
