"""The chat endpoints (operations 1, 2 and 4): validate, call one function, serialize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import request_organization
from assistant_api.errors import ValidationFailedError
from assistant_api.openapi import ERROR_RESPONSES
from chats.selectors import chat_get, message_list
from chats.serializers import ChatCreateInput, ChatOutput, MessageOutput
from chats.services import chat_create


def validated(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise ValidationFailedError.from_detail(serializer.errors)
    return serializer.validated_data


class ChatViewSet(viewsets.GenericViewSet):
    lookup_url_kwarg = "chat_id"

    @extend_schema(
        operation_id="createChat",
        request=ChatCreateInput,
        responses={201: ChatOutput, **ERROR_RESPONSES(401, 404, 422, 429)},
        summary="Create Chat",
    )
    def create(self, request: Request) -> Response:
        data = validated(ChatCreateInput, request.data)
        chat = chat_create(
            organization=request_organization(request),
            chatbot_id=data["chatbotId"],
            user_id=data.get("userId"),
        )
        return Response(
            ChatOutput(chat).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/v1/chats/{chat.id}"},
        )

    @extend_schema(
        operation_id="getChat",
        responses={200: ChatOutput, **ERROR_RESPONSES(401, 404, 429)},
        summary="Get Chat",
    )
    def retrieve(self, request: Request, chat_id: str) -> Response:
        chat = chat_get(organization=request_organization(request), chat_id=chat_id)
        return Response(ChatOutput(chat).data)


class ChatMessageViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = MessageOutput

    def get_queryset(self):
        chat = chat_get(
            organization=request_organization(self.request), chat_id=self.kwargs["chat_id"]
        )
        return message_list(chat=chat)

    @extend_schema(
        operation_id="listChatMessages",
        responses={200: MessageOutput(many=True), **ERROR_RESPONSES(401, 404, 422, 429)},
        summary="List all Chat Messages",
    )
    def list(self, request: Request, *args, **kwargs) -> Response:
        return super().list(request, *args, **kwargs)
