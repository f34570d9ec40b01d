"""Accepting a message takes turns (docs/scaling.md#messages-take-turns).

Everything a worker does runs on one event loop, so 50 messages arriving together each take
their share of it, and the replies already streaming wait for all of them between two tokens.
In turns, MESSAGE_TURNS messages are accepted at once (counted, stored, their history read,
their engine started) and a token waits for those at most; the others wait in their
organization's line, served one organization after the other, so a burst of one
organization's messages does not hold up another's. A turn ends when the reply's engine starts
(or, for an engine that ends it itself, `ends_its_turn`, just before it waits on its model),
before any other wait (`held_turn_end`), or when the request ends; on `POST /v1/ui/chat`,
whose reply runs in a thread of its own, when the message is accepted.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from contextlib import contextmanager

from django.conf import settings

from infrastructure.turns import Turns

_turns: Turns | None = None


def _process_turns() -> Turns | None:
    global _turns
    if _turns is None and settings.MESSAGE_TURNS:
        _turns = Turns(size=settings.MESSAGE_TURNS, lease=settings.MESSAGE_TURN_LEASE_MS / 1000)
    return _turns


@contextmanager
def message_turn(organization_id: Hashable) -> Iterator[None]:
    """Waits for the organization's turn and holds it until the block ends, or until the
    reply ends it (`held_turn_end`)."""
    turns = _process_turns()
    if turns is None:
        yield
        return
    with turns.turn(organization_id):
        yield
