"""Engines that fail, plugged in through `settings.ASSISTANT_ENGINES` (our own plug-in point)."""

from __future__ import annotations

from knowledge.engines.base import EngineError


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
