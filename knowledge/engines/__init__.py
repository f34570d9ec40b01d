"""Assistant engines, chosen per chatbot or by the `ASSISTANT_ENGINE` setting."""

from __future__ import annotations

from django.conf import settings
from django.utils.module_loading import import_string

from accounts.models import Chatbot
from knowledge.engines.base import Engine

ENGINES = {
    "catalog": "knowledge.engines.catalog.CatalogEngine",
    "openai": "knowledge.engines.openai.OpenAIEngine",
}


def engine_for(chatbot: Chatbot) -> Engine:
    name = chatbot.engine or settings.ASSISTANT_ENGINE
    # A deployment (or a test) may plug in further engines by dotted path.
    registry = {**ENGINES, **getattr(settings, "ASSISTANT_ENGINES", {})}
    return import_string(registry[name])()
