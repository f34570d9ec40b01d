"""Turns: at most `size` holders at once; the others wait in lines, one per owner, served one
owner after the other.

The owners' lines make one owner's burst wait behind itself, not in front of the others: an
owner's next waiter goes in only after one waiter of each other line that was waiting. A turn
that lasts longer than `lease` seconds (its holder held up by a lock, say) stops counting
against `size`, so the next in line goes in beside it; its owner's line waits until it ends,
so that an owner whose turns are held up takes one place, not one per lease. After
`OVERDUE_LEASES` leases a turn is forgotten altogether (a holder whose thread died never gives
it back).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

OVERDUE_LEASES = 10

_held = threading.local()  # the turn this thread (greenlet) holds, if any


def held_turn_end() -> None:
    """Ends the turn this thread holds, if any: what it does next waits on something outside
    (a model's answer, another request, the database coming back), and the next in line can go
    in meanwhile."""
    turn = getattr(_held, "turn", None)
    if turn is not None:
        turn.end()


@dataclass(eq=False)
class Turn:
    """One holder's turn; `end()` gives it back (again: nothing)."""

    turns: Turns
    owner: Hashable
    began: float = 0.0
    # Made when the turn is, not when this module is imported: under gevent, once threading
    # is patched.
    granted: threading.Event = field(default_factory=lambda: threading.Event())

    def end(self) -> None:
        self.turns._give_back(self)


class Turns:
    def __init__(self, *, size: int, lease: float) -> None:
        self.size = size
        self.lease = lease
        self._lock = threading.Lock()
        self._holders: dict[Turn, None] = {}  # counted against `size`, oldest first
        self._overdue: dict[Turn, None] = {}  # past their lease, not ended, oldest first
        self._lines: dict[Hashable, deque[Turn]] = {}  # in the order they are served

    @contextmanager
    def turn(self, owner: Hashable) -> Iterator[Turn]:
        """Waits for a turn in `owner`'s line and holds it until the block ends, or until
        `held_turn_end()` in this thread."""
        turn = self.take(owner)
        outer = getattr(_held, "turn", None)
        try:
            _held.turn = turn
            yield turn
        finally:
            _held.turn = outer
            turn.end()

    def take(self, owner: Hashable) -> Turn:
        turn = Turn(self, owner)
        with self._lock:
            self._lines.setdefault(owner, deque()).append(turn)
            self._expire(time.monotonic())  # and serves the lines: this turn if its place is free
        try:
            while not turn.granted.wait(timeout=self._next_change()):
                with self._lock:
                    self._expire(time.monotonic())
        except BaseException:
            self._leave(turn)
            raise
        return turn

    def _give_back(self, turn: Turn) -> None:
        with self._lock:
            if turn in self._holders:
                del self._holders[turn]
            elif turn in self._overdue:
                del self._overdue[turn]
            else:
                return  # given back already, or forgotten
            self._serve(time.monotonic())

    def _leave(self, turn: Turn) -> None:
        """A waiter that stopped waiting (an exception in its thread) leaves its line, or
        gives back the turn it was granted meanwhile."""
        with self._lock:
            line = self._lines.get(turn.owner)
            if line is not None and turn in line:
                line.remove(turn)
                if not line:
                    del self._lines[turn.owner]
                return
        turn.end()

    def _grant(self, turn: Turn, now: float) -> None:
        turn.began = now
        self._holders[turn] = None
        turn.granted.set()

    def _serve(self, now: float) -> None:
        """Free places go to the first waiter of each line in order, skipping the lines of
        owners with a turn overdue; a line served goes last."""
        held_up = {turn.owner for turn in self._overdue}
        while len(self._holders) < self.size:
            owner = next((owner for owner in self._lines if owner not in held_up), None)
            if owner is None:
                return
            line = self._lines.pop(owner)
            self._grant(line.popleft(), now)
            if line:
                self._lines[owner] = line

    def _expire(self, now: float) -> None:
        """Holders past their lease no longer count against `size`; overdue turns past
        OVERDUE_LEASES leases are forgotten (their `end()` does nothing)."""
        for turn in list(self._holders):
            if now - turn.began < self.lease:
                break  # the others began later
            del self._holders[turn]
            self._overdue[turn] = None
        for turn in list(self._overdue):
            if now - turn.began < self.lease * OVERDUE_LEASES:
                break
            del self._overdue[turn]
        self._serve(now)

    def _next_change(self) -> float:
        """How long a waiter may sleep before a lease is over (a holder's, or an overdue
        turn's last)."""
        with self._lock:
            ends = []
            if holder := next(iter(self._holders), None):
                ends.append(holder.began + self.lease)
            if overdue := next(iter(self._overdue), None):
                ends.append(overdue.began + self.lease * OVERDUE_LEASES)
            if not ends:
                return self.lease
            return max(0.001, min(ends) - time.monotonic())
