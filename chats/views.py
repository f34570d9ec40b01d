"""The chat endpoints (operations 1 to 4): validate, call one function, serialize."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, QueryDict
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import (
    ApiKeyAuthentication,
    request_organization,
)
from accounts.models import Organization
from accounts.usage import quota_headers
from assistant_api.openapi import (
    API_KEY_ONLY,
    ERROR_RESPONSES,
    chat_id_parameter,
    message_id_parameter,
)
from assistant_api.renderers import JSON, json_bytes, json_response
from assistant_api.validation import validated
from assistant_api.viewsets import ApiViewSet
from chats.feedback import feedback_delete, feedback_set
from chats.history_cache import cached_page, page_store
from chats.idempotency import idempotency_key_clean
from chats.message_turns import message_turn
from chats.models import Chat
from chats.pagination import envelope, page_params
from chats.selectors import chat_get, message_page
from chats.serializers import (
    ChatCreateInput,
    ChatOutput,
    FeedbackInput,
    FeedbackOutput,
    MessageCreateInput,
    MessageOutput,
    chat_body,
    feedback_body,
    message_row_output,
)
from chats.services import chat_create
from chats.services_messages import message_create
from chats.token_auth import ChatTokenAuthentication

# A chat's client token works on that chat's reads and messages (docs/api.md, "Shop
# front-ends"); a token on any other operation is refused (403) by token_client.
CHAT_AUTHENTICATION = [ChatTokenAuthentication, ApiKeyAuthentication]


class ChatViewSet(ApiViewSet):
    lookup_url_kwarg = "chatId"
    authentication_classes = CHAT_AUTHENTICATION

    @extend_schema(
        operation_id="createChat",
        description="Reference: docs/api.md#create-a-chat",
        auth=API_KEY_ONLY,
        request=ChatCreateInput,
        responses={201: ChatOutput, **ERROR_RESPONSES(401, 403, 404, 413, 415, 422, 429)},
        summary="Create Chat",
    )
    def create(self, request: Request) -> HttpResponse:
        return chat_created_response(request_organization(request), request.data)

    @extend_schema(
        operation_id="getChat",
        description="Reference: docs/api.md#get-a-chat",
        parameters=[chat_id_parameter()],
        responses={200: ChatOutput, **ERROR_RESPONSES(401, 403, 404, 429)},
        summary="Get Chat",
    )
    def retrieve(self, request: Request, chatId: str) -> HttpResponse:
        return chat_response(request_organization(request), chatId)


class ChatMessageViewSet(ApiViewSet):
    serializer_class = MessageOutput  # with pagination_class: the page envelope in OpenAPI
    authentication_classes = CHAT_AUTHENTICATION

    @extend_schema(
        operation_id="listChatMessages",
        description="Reference: docs/api.md#list-a-chats-messages and docs/api.md#paging",
        parameters=[chat_id_parameter()],
        responses={200: MessageOutput(many=True), **ERROR_RESPONSES(401, 403, 404, 422, 429)},
        summary="List all Chat Messages",
    )
    def list(self, request: Request, chatId: str) -> HttpResponse:
        return history_response(request_organization(request), chatId, request.query_params)

    @extend_schema(
        operation_id="addMessageToChat",
        description=(
            "Reference: docs/api.md#add-a-message, docs/api.md#idempotency and "
            "docs/api.md#monthly-message-quota"
        ),
        request=MessageCreateInput,
        parameters=[
            OpenApiParameter("store", str, OpenApiParameter.QUERY, required=False),
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, required=False),
        ],
        responses={
            201: MessageOutput,
            **ERROR_RESPONSES(401, 403, 404, 413, 415, 422, 429, 503),
        },
        summary="Add Message to Chat",
    )
    def create(self, request: Request, chatId: str) -> Response:
        organization = request_organization(request)
        with message_turn(organization.pk):
            chat = chat_get(organization=organization, chat_id=chatId, fresh=True)
            data = validated(MessageCreateInput, request.data)
            outcome = message_create(
                organization=organization,
                chat=chat,
                content=data["message"],
                current_url=data["currentUrl"],
                store_code=request.query_params.get("store"),
                idempotency_key=idempotency_key_clean(request.headers.get("Idempotency-Key")),
            )
        headers = quota_headers(organization=organization) if outcome.status_code == 201 else {}
        return Response(outcome.body, status=outcome.status_code, headers=headers)


class MessageFeedbackViewSet(ApiViewSet):
    """A reply's feedback (docs/api.md "Answer feedback"), with the chat's API key or its client
    token; `feedback_chat` is the one place that turns the caller into a chat."""

    authentication_classes = CHAT_AUTHENTICATION

    @extend_schema(
        operation_id="setMessageFeedback",
        request=FeedbackInput,
        parameters=[chat_id_parameter(), message_id_parameter()],
        responses={200: FeedbackOutput, **ERROR_RESPONSES(401, 403, 404, 413, 415, 422, 429)},
        summary="Rate a reply",
        description=(
            "Stores the shopper's rating of a reply of type `answer`, replacing any earlier "
            "one. `reason` goes with `down` only; `comment` is at most 1,000 characters."
        ),
    )
    def update(self, request: Request, chatId: str, messageId: str) -> HttpResponse:
        chat = feedback_chat(request, chatId)
        data = validated(FeedbackInput, request.data)
        feedback = feedback_set(
            chat=chat,
            message_id=messageId,
            rating=data["rating"],
            reason=data.get("reason", ""),
            comment=data.get("comment", ""),
        )
        return json_response(feedback_body(feedback, message_id=messageId))

    @extend_schema(
        operation_id="deleteMessageFeedback",
        parameters=[chat_id_parameter(), message_id_parameter()],
        responses={204: None, **ERROR_RESPONSES(401, 403, 404, 422, 429)},
        summary="Remove a reply's rating",
        description="Removes the reply's feedback; 204 also when it had none.",
    )
    def destroy(self, request: Request, chatId: str, messageId: str) -> HttpResponse:
        feedback_delete(chat=feedback_chat(request, chatId), message_id=messageId)
        return HttpResponse(status=status.HTTP_204_NO_CONTENT)


def feedback_chat(request: Request, chat_id: str) -> Chat:
    """The chat the caller may rate replies of: one of its organization's."""
    return chat_get(organization=request_organization(request), chat_id=chat_id, fresh=True)


def chat_created_response(organization: Organization, body: Any) -> HttpResponse:
    data = validated(ChatCreateInput, body)
    chat = chat_create(
        organization=organization, chatbot_id=data["chatbotId"], user_id=data.get("userId")
    )
    response = json_response(chat_body(chat), status=status.HTTP_201_CREATED)
    response["Location"] = f"/v1/chats/{chat.id}"
    return response


def chat_response(organization: Organization, chat_id: str) -> HttpResponse:
    chat = chat_get(organization=organization, chat_id=chat_id)
    return json_response(chat_body(chat))


def history_response(organization: Organization, chat_id: str, query: QueryDict) -> HttpResponse:
    chat = chat_get(organization=organization, chat_id=chat_id)
    page, size = page_params(query)
    return HttpResponse(history_page_json(chat, page=page, size=size), content_type=JSON)


def history_page_json(chat: Chat, *, page: int, size: int) -> bytes:
    """The history page's body: from the history cache (chats/history_cache.py) when it has
    the page, else from the database, then kept there."""
    cached = cached_page(chat.pk, page=page, size=size)
    if cached is not None and cached.body is not None:
        return cached.body
    found = message_page(chat=chat, page=page, size=size)
    chat_pk = str(chat.pk)
    items = [message_row_output(row, chat_id=chat_pk) for row in found.items]
    body = json_bytes(envelope(items, page=page, size=size, total_items=found.total_items))
    if cached is not None:
        page_store(cached, body)
    return body
