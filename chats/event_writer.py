"""Group commit of a process's event writes (chats/events.py): one writer per process, with a
connection of its own, writes in one statement the events of every reply that is waiting.

With many replies streaming at once, each token is a small write; one statement for all the
tokens that arrived meanwhile costs PostgreSQL one transaction and one commit instead of one
each (BENCHMARKS.md, "From a model's token to the browser"). A reply that is alone waits only
for its own statement.

The writer is a thread of its own (a greenlet under gunicorn's gevent worker) that no request
stops, so a statement it started always ends and reports to every reply in it. Its connection
is not one of the pool's: replies waiting for it hold theirs, and a full pool must not keep it
from writing. A statement never waits for long: it takes the chats' turns (advisory locks) only
if they are free, and waits at most `LOCK_TIMEOUT` for any other lock, so that one chat's
wait never holds up the replies of other chats.

When a statement fails for any reason (a chat's turn taken, a lock timeout, a row the database
refuses, a lost connection), nothing of it was committed, and each of its replies writes its
events itself, on its own connection, in a statement of its own: exactly what it would have
done without the writer, with its own outcome. One case is not told apart from a failure: the
connection lost after PostgreSQL committed but before it answered; the replies then write the
same events again, as a reply writing alone does when it loses its connection at that moment.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

logger = logging.getLogger(__name__)

# The longest a statement waits for a lock (other than the chats' turns, never waited for).
LOCK_TIMEOUT = "100ms"
# A writer that had nothing to write for this long closes its connection.
IDLE_SECONDS = 5.0

# Writes the events (several replies' in one list) in one statement on the connection given;
# their seqs in order, or None when a chat's turn was taken (nothing written).
Insert = Callable[[Any, list[Any]], "list[int] | None"]
Connect = Callable[[], Any]


class _Slot:
    """One reply's events waiting for the writer, and their seqs once written."""

    __slots__ = ("done", "events", "seqs")

    def __init__(self, events: Sequence[Any]) -> None:
        self.events = list(events)
        self.seqs: list[int] | None = None
        self.done = threading.Event()


class EventWriter:
    """The process's event writer; `write` is called by the replies."""

    def __init__(self, *, insert: Insert, connect: Connect) -> None:
        self._insert = insert
        self._connect = connect
        self._lock = threading.Lock()  # guards `_waiting` and `_thread`
        self._wake = threading.Event()
        self._waiting: list[_Slot] = []
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._conn: Any = None

    def write(self, events: Sequence[Any]) -> list[int] | None:
        """Writes one reply's events with the others waiting; their seqs in order, or None
        when the statement failed and the caller is to write them itself."""
        slot = _Slot(events)
        with self._lock:
            self._waiting.append(slot)
            self._ensure_running()
            self._wake.set()
        slot.done.wait()
        return slot.seqs

    def close(self) -> None:
        """Closes the writer's connection (reopened by the next write)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            _close_quietly(conn)

    def _ensure_running(self) -> None:
        if os.getpid() != self._pid:  # a forked worker: its parent's thread is not here
            self._pid, self._thread, self._conn = os.getpid(), None, None
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="event-writer", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            if not self._wake.wait(IDLE_SECONDS):
                self.close()
                continue
            with self._lock:
                slots, self._waiting = self._waiting, []
                self._wake.clear()
            try:
                self._write(slots)
            except BaseException:
                logger.exception("event writer failed; its replies write their events themselves")
                raise
            finally:
                for slot in slots:
                    slot.done.set()

    def _write(self, slots: list[_Slot]) -> None:
        if not slots:
            return
        events = [event for slot in slots for event in slot.events]
        try:
            if self._conn is None:
                self._conn = self._connect()
            seqs = self._insert(self._conn, events)
        except Exception as exc:
            logger.info("event statement failed (%s): its replies write alone", type(exc).__name__)
            if self._conn is not None and self._conn.closed:
                self.close()
            return
        if seqs is None:
            return  # a chat's turn was taken: its replies write alone, waiting for it
        start = 0
        for slot in slots:
            slot.seqs = seqs[start : start + len(slot.events)]
            start += len(slot.events)


def _close_quietly(conn: Any) -> None:
    try:
        conn.close()
    except Exception:
        logger.debug("closing the event writer's connection failed", exc_info=True)
