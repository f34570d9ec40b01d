from django.apps import AppConfig


class ChatsConfig(AppConfig):
    name = "chats"
    verbose_name = "Chats"
