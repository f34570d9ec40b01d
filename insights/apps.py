from django.apps import AppConfig


class InsightsConfig(AppConfig):
    name = "insights"
    verbose_name = "Insights"
    default_auto_field = "django.db.models.BigAutoField"
