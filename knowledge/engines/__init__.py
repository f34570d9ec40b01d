"""Assistant engines, chosen per chatbot or by the `ASSISTANT_ENGINE` setting."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils.module_loading import import_string

from accounts.models import Chatbot
from knowledge.engines.base import Engine

logger = logging.getLogger(__name__)

ENGINES = {
    "catalog": "knowledge.engines.catalog.CatalogEngine",
    "openai": "knowledge.engines.openai.OpenAIEngine",
}


def engine_for(chatbot: Chatbot) -> Engine:
    name = chatbot.engine or settings.ASSISTANT_ENGINE
    return import_string(_registry()[name])()


def engines_warm_up() -> None:
    """Loads the engines in use, and what each would load on its first reply, before a server
    worker takes requests.

    Loaded by a first reply instead, the `openai` engine's libraries took 1.4 s of CPU on the
    benchmark machine, during which a gevent worker ran nothing else: every other reply and
    open stream of the worker stood still (BENCHMARKS.md, "From a model's token to the
    browser"). An engine with such work has a `warm_up` callable. Engines no chatbot uses are
    left out, so a worker does not pay for them at every start; one chosen later loads on its
    first reply in each worker.
    """
    registry = _registry()
    for name in sorted(_engines_in_use(registry)):
        try:
            warm_up = getattr(import_string(registry[name]), "warm_up", None)
            if warm_up is not None:
                warm_up()
        except Exception:
            # A worker that fails to boot stops the whole server: the engine's own replies
            # fail instead (and log why), as they would without the warm-up.
            logger.exception("engine %r could not be loaded at the worker's start", name)


def _engines_in_use(registry: dict[str, str]) -> set[str]:
    names = {settings.ASSISTANT_ENGINE}
    try:
        names.update(
            Chatbot.objects.exclude(engine="")
            .order_by()
            .values_list("engine", flat=True)
            .distinct()
        )
    except DatabaseError:
        names.update(registry)  # not known: all of them, rather than a stall later
    finally:
        connection.close()  # the worker's main greenlet keeps no connection
    return names & registry.keys()


def _registry() -> dict[str, str]:
    # A deployment (or a test) may plug in further engines by dotted path.
    return {**ENGINES, **getattr(settings, "ASSISTANT_ENGINES", {})}
