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
    return import_string(ENGINES[name])()
