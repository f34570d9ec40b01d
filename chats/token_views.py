"""`POST /v1/chats/{chatId}/client-tokens`: a browser credential for one chat (API key only)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_organization
from accounts.client_tokens import MAX_TTL_SECONDS, MIN_TTL_SECONDS, client_token_mint
from accounts.models import ApiKey
from assistant_api.fields import StrictIntegerField
from assistant_api.openapi import ERROR_RESPONSES, chat_id_parameter
from assistant_api.validation import validated
from chats.selectors import chat_get
from chats.serializers import iso_timestamp


@extend_schema_serializer(component_name="CreateClientToken")
class ClientTokenInput(serializers.Serializer):
    ttlSeconds = StrictIntegerField(
        min_value=MIN_TTL_SECONDS,
        max_value=MAX_TTL_SECONDS,
        required=False,
        help_text="Lifetime in seconds; default CLIENT_TOKEN_SECONDS (3600).",
    )


@extend_schema_serializer(component_name="ClientToken")
class ClientTokenOutput(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Bearer <token>`.")
    chatId = serializers.UUIDField()
    expiresAt = serializers.DateTimeField()


class ClientTokenView(APIView):
    @extend_schema(
        operation_id="createClientToken",
        summary="Create Client Token",
        description=(
            "A token a browser may use for this chat only: Get Chat, the chat's messages "
            "(list and add), its event streams and the AI SDK endpoints. Mint it on the "
            "shop's backend with the API key; never send the key to a browser."
        ),
        parameters=[chat_id_parameter()],
        request=ClientTokenInput,
        responses={201: ClientTokenOutput, **ERROR_RESPONSES(401, 403, 404, 413, 415, 422, 429)},
    )
    def post(self, request: Request, chatId: str) -> Response:
        organization = request_organization(request)
        api_key = request.auth
        assert isinstance(api_key, ApiKey)  # ApiKeyAuthentication's
        # An empty body is the default lifetime.
        data = validated(ClientTokenInput, request.data if request.data else {})
        chat = chat_get(organization=organization, chat_id=chatId, fresh=True)
        minted = client_token_mint(
            api_key=api_key,
            chat_id=chat.id,
            ttl_seconds=data.get("ttlSeconds", settings.CLIENT_TOKEN_SECONDS),
        )
        body = {
            "token": minted.token,
            "chatId": str(minted.chat_id),
            "expiresAt": iso_timestamp(minted.expires_at),
        }
        return Response(body, status=status.HTTP_201_CREATED)
