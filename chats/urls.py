"""Routes of the chat operations (1-5), with their full paths: spliced into the root URLconf,
not include()d, since each level of nesting cost every request a resolver match (issue 9)."""

from django.urls import path

from chats.stream.views import chat_events
from chats.views import ChatMessageViewSet, ChatViewSet

urlpatterns = [
    path("v1/chats", ChatViewSet.as_view({"post": "create"}), name="chat-list"),
    path("v1/chats/<str:chatId>", ChatViewSet.as_view({"get": "retrieve"}), name="chat-detail"),
    path(
        "v1/chats/<str:chatId>/messages",
        ChatMessageViewSet.as_view({"get": "list", "post": "create"}),
        name="chat-messages",
    ),
    # The event stream (contract §5), also at the path of an older quick-start.
    path("v1/chats/<str:chat_id>/messages/events", chat_events, name="chat-events"),
    path("v1/chats/<str:chat_id>/events", chat_events, name="chat-events-legacy"),
]
