"""Operation 5, the event stream, in the OpenAPI description (docs/api.md#follow-a-chats-events).

drf-spectacular documents DRF views only, and the stream is a plain Django view
(chats/stream/views.py): this DRF view stands in for it in the schema and answers nothing.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer
from rest_framework.views import APIView

from accounts.authentication import ApiKeyAuthentication
from assistant_api.openapi import ERROR_RESPONSES, chat_id_parameter
from assistant_api.renderers import JSON
from chats.token_auth import ChatTokenAuthentication

EVENT_STREAM = "text/event-stream"

_DESCRIPTION = (
    "Server-sent events of the chat's replies, as they happen (docs/api.md#event-stream). "
    "Each event is an `id:` line (the event's sequence number) and a `data:` line holding one "
    "MessageEvent as JSON; a comment line `: keep-alive` comes after 15 s without events. The "
    "stream starts with the events of the last 30 s, or with those after `Last-Event-ID` "
    "(header) or `lastEventId` (query) when resuming. Open it before or right after Add Message "
    "to Chat to follow the whole reply. Reference: docs/api.md#follow-a-chats-events"
)
_RESUME = "Resume after the event with this id (the header wins over the query)."


class _EventStreamRenderer(BaseRenderer):
    media_type = EVENT_STREAM
    format = "event-stream"


class ChatEventsDescription(APIView):
    renderer_classes = [_EventStreamRenderer]
    authentication_classes = [ChatTokenAuthentication, ApiKeyAuthentication]

    @extend_schema(
        operation_id="getMessageEvents",
        summary="Get Message Events",
        description=_DESCRIPTION,
        parameters=[
            chat_id_parameter(),
            OpenApiParameter(
                "lastEventId", OpenApiTypes.INT, OpenApiParameter.QUERY, description=_RESUME
            ),
            OpenApiParameter(
                "Last-Event-ID", OpenApiTypes.INT, OpenApiParameter.HEADER, description=_RESUME
            ),
            OpenApiParameter(
                "token",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                description=(
                    "The chat's client token, for EventSource, which cannot send an "
                    "Authorization header."
                ),
            ),
        ],
        responses={
            (200, EVENT_STREAM): OpenApiResponse(
                OpenApiTypes.STR, description="The stream; it stays open."
            ),
            **{
                (code, JSON): response
                for code, response in ERROR_RESPONSES(401, 403, 404, 422, 429).items()
            },
        },
    )
    def get(self, request, chatId: str):  # pragma: no cover - chat_events answers
        raise NotImplementedError
