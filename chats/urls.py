from django.urls import path

from chats.stream.views import chat_events
from chats.views import ChatMessageViewSet, ChatViewSet

urlpatterns = [
    path("chats", ChatViewSet.as_view({"post": "create"}), name="chat-list"),
    path("chats/<str:chatId>", ChatViewSet.as_view({"get": "retrieve"}), name="chat-detail"),
    path(
        "chats/<str:chatId>/messages",
        ChatMessageViewSet.as_view({"get": "list", "post": "create"}),
        name="chat-messages",
    ),
    # The event stream (contract §5), also at the path of an older quick-start.
    path("chats/<str:chat_id>/messages/events", chat_events, name="chat-events"),
    path("chats/<str:chat_id>/events", chat_events, name="chat-events-legacy"),
]
