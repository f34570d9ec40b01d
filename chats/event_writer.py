"""Group commit of a process's event writes (chats/events.py): the replies that publish while
one of the process's event statements is running wait for it, then share the next statement.

With many replies streaming at once, each token is a small write; one statement for all the
tokens that arrived meanwhile costs PostgreSQL one transaction, one lock round and one commit
instead of one each (BENCHMARKS.md, "From a model's token to the browser"). A reply that is
alone waits for nothing: its statement runs at once.

The first reply to find no statement collecting becomes the next statement's leader: it waits
for the running statement, closes its group and runs it on its own connection, while the others
of its group wait for the outcome. Outcomes are per reply:

- the database is away (the connection is lost): every reply of the group gets the error, and
  its events stay pending for it to write again (as a statement of its own would);
- any other error (a row the database refuses, a deadlock, a cancelled statement): nothing of
  the statement was committed, so each reply of the group is written again by a statement of
  its own, and only a reply whose own statement fails gets that error.

The primitives are `threading`'s, monkey-patched into greenlet ones under gunicorn's gevent
worker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from django.db import InterfaceError, OperationalError

# SQLSTATE classes of a lost connection (08: connection exception; 57P: the server shutting
# down); no SQLSTATE at all: the client lost it. Other errors, such as a deadlock (40P01), a
# cancelled statement (57014) or a lock timeout (55P03), are the statement's alone.
CONNECTION_LOST_SQLSTATES = ("08", "57P")

# Writes the events (several replies' in one list) in one statement; their seqs, in order.
Insert = Callable[[list[Any]], list[int]]


class _Slot:
    """One reply's events in a group, and what became of them."""

    __slots__ = ("error", "events", "seqs")

    def __init__(self, events: Sequence[Any]) -> None:
        self.events = list(events)
        self.seqs: list[int] | None = None
        self.error: BaseException | None = None


class _Group:
    __slots__ = ("done", "slots")

    def __init__(self) -> None:
        self.slots: list[_Slot] = []
        self.done = threading.Event()


class GroupWriter:
    """The process's event statements, one at a time, each for every reply waiting."""

    def __init__(self, insert: Insert) -> None:
        self._insert = insert
        self._lock = threading.Lock()  # guards `_collecting`
        self._turn = threading.Lock()  # held while a statement runs
        self._collecting: _Group | None = None

    def write(self, events: Sequence[Any]) -> list[int]:
        """Writes one reply's events; their seqs in order. Raises the reply's own error."""
        slot = _Slot(events)
        with self._lock:
            group = self._collecting
            leads = group is None
            if group is None:
                group = self._collecting = _Group()
            group.slots.append(slot)
        if leads:
            self._lead(group)
        else:
            group.done.wait()
        if slot.error is not None:
            raise slot.error
        assert slot.seqs is not None
        return slot.seqs

    def _lead(self, group: _Group) -> None:
        try:
            with self._turn:
                with self._lock:
                    self._collecting = None  # later replies start the next group
                self._run(group.slots)
        finally:
            # Whatever stopped the leader (even a greenlet killed while it waited), no reply of
            # its group waits for good, and none joins a group that will never run.
            with self._lock:
                if self._collecting is group:
                    self._collecting = None
                for slot in group.slots:
                    if slot.seqs is None and slot.error is None:
                        slot.error = InterfaceError("the event statement was interrupted")
            group.done.set()

    def _run(self, slots: list[_Slot]) -> None:
        if len(slots) == 1:
            self._run_alone(slots[0])
            return
        try:
            seqs = self._insert([event for slot in slots for event in slot.events])
        except Exception as exc:
            if connection_lost(exc):
                for slot in slots:
                    slot.error = exc
                return
            # Rolled back as a whole: one reply's refused row must not fail the others.
            for slot in slots:
                self._run_alone(slot)
            return
        start = 0
        for slot in slots:
            slot.seqs = seqs[start : start + len(slot.events)]
            start += len(slot.events)

    def _run_alone(self, slot: _Slot) -> None:
        try:
            slot.seqs = self._insert(slot.events)
        except Exception as exc:
            slot.error = exc


def connection_lost(exc: BaseException) -> bool:
    """Whether a statement failed because the database connection is lost."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return False
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(CONNECTION_LOST_SQLSTATES)
