from django.urls import path

from chats.views import ChatMessageViewSet, ChatViewSet

urlpatterns = [
    path("chats", ChatViewSet.as_view({"post": "create"}), name="chat-list"),
    path("chats/<str:chat_id>", ChatViewSet.as_view({"get": "retrieve"}), name="chat-detail"),
    path(
        "chats/<str:chat_id>/messages",
        ChatMessageViewSet.as_view({"get": "list"}),
        name="chat-messages",
    ),
]
