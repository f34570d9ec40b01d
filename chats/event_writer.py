"""Group commit of a process's event writes (chats/events.py): one writer per process, with a
connection of its own, writes in one statement the events of every reply that is waiting.

With many replies streaming at once, each token is a small write; one statement for all the
tokens that arrived meanwhile costs PostgreSQL one transaction and one commit instead of one
each (BENCHMARKS.md, "From a model's token to the browser"). A reply that is alone waits only
for its own statement.

Replies streaming at a model's pace rarely write at the same instant, so after a statement that
carried more than one reply's events the writer starts the next no sooner than `delay` after it
ended, and the events that arrive meanwhile share it (BENCHMARKS.md, "The event writer's
delay"). PostgreSQL's `commit_delay` waits only when other transactions are running; the writer
cannot see the replies about to write, so it takes the last statement's sharing for a sign of
them. A reply writing alone waits at most once: for the statement after one it shared.

The writer is a thread of its own (a greenlet under gunicorn's gevent worker) that no request
stops, so a statement it started always ends and reports to every reply in it. Its connection
is not one of the pool's: replies waiting for it hold theirs, and a full pool must not keep it
from writing. A statement waits for no lock a request holds: it takes the chats' turns
(advisory locks) and their rows only if they are free, so that one chat's wait never holds up
the replies of other chats. (It waits only for NOTIFY's lock, which a commit holds for an
instant, and for a schema change.)

When a statement fails or writes nothing and its connection is still sound (a chat's turn or
row taken, a row the database refuses), nothing of it was committed, and each of its replies
writes its events itself, on its own connection, in a statement of its own: exactly what it
would have done without the writer, with its own outcome. When the connection is lost during the
statement, whether PostgreSQL committed it is unknown: each of its replies gets the error, as a
reply whose own connection is lost during its statement does (it then ends with `failed`, and
its unsure events are written again before that end).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from django.db import OperationalError

logger = logging.getLogger(__name__)

# A writer that had nothing to write for this long closes its connection.
IDLE_SECONDS = 5.0

# Writes the events (several replies' in one list) in one statement on the connection given;
# their seqs in order, or None when a chat's turn or row was taken (nothing written).
Insert = Callable[[Any, list[Any]], "list[int] | None"]
Connect = Callable[[], Any]
# Whether a connection is closed, or was closed by the server while idle.
Dead = Callable[[Any], bool]
# The seconds a statement shared by several replies holds the next back (0: not at all).
Delay = Callable[[], float]


class _Slot:
    """One reply's events waiting for the writer, and their seqs once written."""

    __slots__ = ("done", "error", "events", "seqs")

    def __init__(self, events: Sequence[Any]) -> None:
        self.events = list(events)
        self.seqs: list[int] | None = None
        self.error: Exception | None = None
        self.done = threading.Event()


class EventWriter:
    """The process's event writer; `write` is called by the replies."""

    def __init__(self, *, insert: Insert, connect: Connect, dead: Dead, delay: Delay) -> None:
        self._insert = insert
        self._connect = connect
        self._dead = dead
        self._delay = delay
        self._lock = threading.Lock()  # guards `_waiting` and `_thread`
        self._wake = threading.Event()
        self._waiting: list[_Slot] = []
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._conn: Any = None
        # When the last statement ended, if several replies shared it (the writer thread's own).
        self._shared_end = 0.0

    def write(self, events: Sequence[Any]) -> list[int] | None:
        """Writes one reply's events with the others waiting; their seqs in order, or None
        when the statement failed and the caller is to write them itself. Raises Django's
        OperationalError when the connection was lost during the statement."""
        slot = _Slot(events)
        with self._lock:
            self._waiting.append(slot)
            self._ensure_running()
            self._wake.set()
        slot.done.wait()
        if slot.error is not None:
            raise slot.error
        return slot.seqs

    def close(self) -> None:
        """Closes the writer's connection (reopened by the next write)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            _close_quietly(conn)

    def _ensure_running(self) -> None:
        if os.getpid() != self._pid:  # a forked worker: its parent's thread is not here
            self._pid, self._thread, self._conn = os.getpid(), None, None
            self._shared_end = 0.0
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="event-writer", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            if not self._wake.wait(IDLE_SECONDS):
                self.close()
                continue
            slots: list[_Slot] = []
            try:
                self._hold_back()
                with self._lock:
                    slots, self._waiting = self._waiting, []
                    self._wake.clear()
                shared = self._write(slots) and len(slots) > 1
                self._shared_end = time.monotonic() if shared else 0.0
            except BaseException:
                # The thread ends (the next write starts another): every reply waiting now
                # writes its events itself, none waits for a thread that is gone.
                logger.exception("event writer stopped; its replies write their events themselves")
                with self._lock:
                    slots += self._waiting
                    self._waiting = []
                raise
            finally:
                for slot in slots:
                    slot.done.set()

    def _hold_back(self) -> None:
        """Waits until `delay` has passed since the last statement, if several replies shared
        it: the replies still streaming then share the next one too."""
        if self._shared_end:
            wait = self._shared_end + self._delay() - time.monotonic()
            if wait > 0:
                time.sleep(wait)

    def _write(self, slots: list[_Slot]) -> bool:
        """Writes the slots' events in one statement; whether it did (else each reply writes
        its own, or has the error)."""
        if not slots:
            return False
        events = [event for slot in slots for event in slot.events]
        try:
            if self._conn is not None and self._dead(self._conn):
                self.close()
            if self._conn is None:
                self._conn = self._connect()
        except Exception as exc:
            logger.warning("event writer cannot connect (%s): replies write alone", exc)
            return False
        try:
            seqs = self._insert(self._conn, events)
        except Exception as exc:
            if self._dead(self._conn):
                self.close()
                for slot in slots:
                    slot.error = OperationalError(f"event statement lost its connection: {exc}")
                    slot.error.__cause__ = exc
                return False
            # A row the database refuses fails only its own reply, when the replies write alone;
            # anything else (a permission missing) would quietly turn group commit off.
            level = logging.INFO if isinstance(exc, psycopg.DataError) else logging.WARNING
            logger.log(level, "event statement failed (%r): its replies write alone", exc)
            return False
        if seqs is None:
            return False  # a chat's turn or row was taken: its replies write alone, waiting
        start = 0
        for slot in slots:
            slot.seqs = seqs[start : start + len(slot.events)]
            start += len(slot.events)
        return True


def _close_quietly(conn: Any) -> None:
    try:
        conn.close()
    except Exception:
        logger.debug("closing the event writer's connection failed", exc_info=True)
