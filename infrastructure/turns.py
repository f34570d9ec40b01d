"""Turns: at most `size` holders at once; the others wait in lines, one per owner, served one
owner after the other; a turn that lasts longer than `lease` seconds stops keeping the next in
line out.

The owners' lines make one owner's burst wait behind itself, not in front of the others: a
newcomer's first waiter goes in before the second waiter of an owner already served. The
lease bounds what a holder that is held up (by a lock, the database) costs the others, and a
turn that is never given back (its thread killed) ends by it too.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_held = threading.local()  # the turn this thread (greenlet) holds, if any


def held_turn_end() -> None:
    """Ends the turn this thread holds, if any: what it does next waits on something outside
    (a model's answer), and the next in line can go in meanwhile."""
    turn = getattr(_held, "turn", None)
    if turn is not None:
        turn.end()


@dataclass(eq=False)
class Turn:
    """One holder's turn; `end()` gives it back (again: nothing)."""

    turns: Turns
    began: float = 0.0
    granted: threading.Event = field(default_factory=threading.Event)

    def end(self) -> None:
        self.turns._give_back(self)


class Turns:
    def __init__(self, *, size: int, lease: float) -> None:
        self.size = size
        self.lease = lease
        self._lock = threading.Lock()
        self._holders: dict[Turn, None] = {}  # oldest first
        self._lines: dict[Hashable, deque[Turn]] = {}  # in the order they are served

    @contextmanager
    def turn(self, owner: Hashable) -> Iterator[Turn]:
        """Waits for a turn in `owner`'s line and holds it until the block ends, or until
        `held_turn_end()` in this thread."""
        turn = self.take(owner)
        _held.turn = turn
        try:
            yield turn
        finally:
            _held.turn = None
            turn.end()

    def take(self, owner: Hashable) -> Turn:
        turn = Turn(self)
        with self._lock:
            self._expire(time.monotonic())
            if len(self._holders) < self.size and not self._lines:
                self._grant(turn, time.monotonic())
                return turn
            self._lines.setdefault(owner, deque()).append(turn)
        try:
            while not turn.granted.wait(timeout=self._next_expiry()):
                with self._lock:
                    self._expire(time.monotonic())
        except BaseException:
            self._leave(owner, turn)
            raise
        return turn

    def _give_back(self, turn: Turn) -> None:
        with self._lock:
            if turn in self._holders:
                del self._holders[turn]
                self._serve(time.monotonic())

    def _leave(self, owner: Hashable, turn: Turn) -> None:
        """A waiter that stopped waiting (an exception in its thread) leaves its line, or
        gives back the turn it was granted meanwhile."""
        with self._lock:
            line = self._lines.get(owner)
            if line is not None and turn in line:
                line.remove(turn)
                if not line:
                    del self._lines[owner]
                return
        turn.end()

    def _grant(self, turn: Turn, now: float) -> None:
        turn.began = now
        self._holders[turn] = None
        turn.granted.set()

    def _serve(self, now: float) -> None:
        """Free places go to the first waiter of each line in order; a line served goes last."""
        while len(self._holders) < self.size and self._lines:
            owner, line = next(iter(self._lines.items()))
            del self._lines[owner]
            self._grant(line.popleft(), now)
            if line:
                self._lines[owner] = line

    def _expire(self, now: float) -> None:
        """Holders past their lease no longer count (their `end()` does nothing)."""
        for turn in list(self._holders):
            if now - turn.began < self.lease:
                break  # the others began later
            del self._holders[turn]
        self._serve(now)

    def _next_expiry(self) -> float:
        """How long a waiter may sleep before a holder's lease is over."""
        with self._lock:
            oldest = next(iter(self._holders), None)
            if oldest is None:
                return self.lease
            return max(0.001, oldest.began + self.lease - time.monotonic())
