"""Routes of the chat operations (1-5), with their full paths: spliced into the root URLconf,
not include()d, since each level of nesting cost every request a resolver match."""

from django.urls import path

from assistant_api.openapi import documented_as
from chats.stream.openapi import ChatEventsDescription
from chats.stream.views import chat_events
from chats.token_views import ClientTokenView
from chats.ui.openapi import UiChatDescription, UiChatStreamDescription
from chats.ui.views import ui_chat, ui_chat_stream
from chats.views import (
    ChatMessageViewSet,
    ChatViewSet,
    MessageFeedbackViewSet,
)

urlpatterns = [
    path(
        "v1/chats",
        ChatViewSet.as_view({"post": "create"}),
        name="chat-list",
    ),
    path(
        "v1/chats/<str:chatId>",
        ChatViewSet.as_view({"get": "retrieve"}),
        name="chat-detail",
    ),
    path(
        "v1/chats/<str:chatId>/messages",
        ChatMessageViewSet.as_view({"get": "list", "post": "create"}),
        name="chat-messages",
    ),
    # The event stream (docs/api.md#follow-a-chats-events), also at the path of an older
    # quick-start, which the OpenAPI description leaves out (the reference path is
    # .../messages/events).
    path(
        "v1/chats/<str:chatId>/messages/events",
        documented_as(ChatEventsDescription, chat_events),
        name="chat-events",
    ),
    path("v1/chats/<str:chatId>/events", chat_events, name="chat-events-legacy"),
    path(
        "v1/chats/<str:chatId>/messages/<str:messageId>/feedback",
        MessageFeedbackViewSet.as_view({"put": "update", "delete": "destroy"}),
        name="message-feedback",
    ),
    path(
        "v1/chats/<str:chatId>/client-tokens",
        ClientTokenView.as_view(),
        name="chat-client-tokens",
    ),
    # The AI SDK's UI message stream (chats/ui/): useChat's DefaultChatTransport and its resume.
    path("v1/ui/chat", documented_as(UiChatDescription, ui_chat), name="ui-chat"),
    path(
        "v1/ui/chat/<str:chatId>/stream",
        documented_as(UiChatStreamDescription, ui_chat_stream),
        name="ui-chat-stream",
    ),
]
