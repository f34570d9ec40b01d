from django.apps import AppConfig


class AssistantApiConfig(AppConfig):
    name = "assistant_api"
    verbose_name = "Assistant API"

    def ready(self) -> None:
        from assistant_api import checks  # noqa: F401  (registers system checks)
