"""The AI SDK endpoints in the OpenAPI description: DRF views standing in for the plain
streaming views of chats/ui/views.py (drf-spectacular reads DRF views only); they answer
nothing."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer
from rest_framework.views import APIView

from accounts.authentication import ApiKeyAuthentication
from assistant_api.openapi import ERROR_RESPONSES, chat_id_parameter
from assistant_api.renderers import JSON
from chats.stream.openapi import EVENT_STREAM
from chats.token_auth import ChatTokenAuthentication
from chats.ui.request import TRIGGERS, UI_ROLES

_UiMessage = inline_serializer(
    name="UIMessage",
    fields={
        "id": serializers.CharField(),
        "role": serializers.ChoiceField(choices=list(UI_ROLES)),
        "parts": serializers.ListField(child=serializers.DictField()),
    },
)
UiChatInput = inline_serializer(
    name="UIChatRequest",
    fields={
        "id": serializers.UUIDField(help_text="The chat's id."),
        "messages": serializers.ListField(
            child=_UiMessage,
            help_text=(
                "The conversation as the page holds it; only the last message, the shopper's, "
                "is read (its text parts)."
            ),
        ),
        "trigger": serializers.ChoiceField(choices=list(TRIGGERS), required=False),
        "messageId": serializers.CharField(required=False, allow_null=True),
        "currentUrl": serializers.URLField(
            required=False, help_text="The page the shopper is on; default: the Referer."
        ),
        "store": serializers.CharField(required=False, help_text="As `?store=` of Add Message."),
    },
)
_STREAM = (
    "An AI SDK UI message stream (`x-vercel-ai-ui-message-stream: v1`): server-sent events "
    "whose `data:` lines are UI message chunks (`start`, `start-step`, "
    "`tool-input-available`, `tool-output-available`, `text-start`, `text-delta`, `text-end`, "
    "`data-products`, `data-suggestions`, `finish-step`, `finish`, or `error`), ending with "
    "`data: [DONE]`."
)


class _EventStreamRenderer(BaseRenderer):
    media_type = EVENT_STREAM
    format = "event-stream"


class _Described(APIView):
    renderer_classes = [_EventStreamRenderer]
    authentication_classes = [ChatTokenAuthentication, ApiKeyAuthentication]


class UiChatDescription(_Described):
    @extend_schema(
        operation_id="uiChat",
        summary="Send a message (AI SDK UI message stream)",
        description=(
            "The endpoint for the AI SDK's `useChat` with `DefaultChatTransport`: the last "
            "message is handled exactly as Add Message to Chat (validation, quota, "
            "idempotency keyed on the UI message id, events, stored reply) and the reply is "
            "streamed as it is written. Errors before the stream starts are JSON errors."
        ),
        request=UiChatInput,
        responses={
            (200, EVENT_STREAM): OpenApiResponse(OpenApiTypes.STR, description=_STREAM),
            **{
                (code, JSON): response
                for code, response in ERROR_RESPONSES(401, 403, 404, 413, 415, 422, 429).items()
            },
        },
    )
    def post(self, request):  # pragma: no cover - ui_chat answers
        raise NotImplementedError


class UiChatStreamDescription(_Described):
    @extend_schema(
        operation_id="uiChatResume",
        summary="Resume the running reply (AI SDK UI message stream)",
        description=(
            "The transport's resume path: 204 when no reply of the chat is running, else that "
            "reply's stream from its `start`."
        ),
        parameters=[chat_id_parameter()],
        responses={
            (200, EVENT_STREAM): OpenApiResponse(OpenApiTypes.STR, description=_STREAM),
            (204, EVENT_STREAM): OpenApiResponse(description="No reply of the chat is running."),
            **{
                (code, JSON): response
                for code, response in ERROR_RESPONSES(401, 403, 404, 429).items()
            },
        },
    )
    def get(self, request, chatId: str):  # pragma: no cover - ui_chat_stream answers
        raise NotImplementedError
