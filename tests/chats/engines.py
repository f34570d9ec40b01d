"""Engines that fail, plugged in through `settings.ASSISTANT_ENGINES` (our own plug-in point)."""

from __future__ import annotations

from knowledge.engines.base import EngineError, Reply
from knowledge.engines.catalog import CatalogEngine


class BrokenEngine:
    """Fails the way a bug would: an unexpected exception after it started typing."""

    def reply(self, request, publisher):
        publisher.typing()
        raise RuntimeError("secret internals: password=hunter2")


class UnavailableEngine:
    """Fails the way an engine reports it: an EngineError with a message for integrators."""

    def reply(self, request, publisher):
        publisher.typing()
        raise EngineError("The product catalog is being rebuilt")


class FaultyEngine:
    """The catalog engine, except for a message that names one of FAULTS: then the reply goes
    wrong that way, as a bug in an engine could make it (plugged in on the live server by
    tests/chats/fault_settings.py)."""

    answers_at_once = True  # buffered like the catalog engine: the events are written last

    def reply(self, request, publisher):
        fault = FAULTS.get(request.message)
        if fault is None:
            return CatalogEngine().reply(request, publisher)
        publisher.typing()
        return fault(publisher)


def _infinite_tool_argument(publisher):
    publisher.tool_started("search_products", {"maxPrice": float("inf")})
    publisher.completed("Here you are")
    return Reply(content="Here you are")


def _nul_in_tool_response(publisher):
    args = {"query": "dress"}
    publisher.tool_started("search_products", args)
    publisher.tool_finished("search_products", args, {"note": "a\x00b"})
    publisher.completed("Here you are")
    return Reply(content="Here you are")


def _nan_in_products(publisher):
    publisher.completed("Here you are")
    return Reply(content="Here you are", products=[{"price": float("nan")}])


def _nul_in_error(publisher):
    raise EngineError("The catalog\x00 is away")


def _no_reply(publisher):
    return None


FAULTS = {
    "fault: an infinite tool argument": _infinite_tool_argument,
    "fault: a NUL in a tool response": _nul_in_tool_response,
    "fault: NaN in the reply's products": _nan_in_products,
    "fault: a NUL in the engine's error": _nul_in_error,
    "fault: no reply at all": _no_reply,
}
