"""The one listener per process that reads new events for all of the process's open streams.

On PostgreSQL it has its own psycopg connection (not one of Django's pooled ones) that
`LISTEN`s on the channel `EventPublisher` notifies: notifications of events of chats with open
streams wake it. A notification carries its event when the event is small (text chunks), so
nothing is read; the others are read by their seqs, in one query per wake-up. It also reads
the unseen events of every followed chat every `SSE_POLL_SECONDS`, so a lost notification
costs at most that long. If the connection drops it reconnects and catches up from the hub's
`floor`. On SQLite it polls.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson
from django.conf import settings
from django.db import connection as django_connection
from django.db.models import Max

from chats.events import EVENTS_CHANNEL, NOTIFY_COLUMNS
from chats.models import Event
from chats.stream.hub import Hub
from infrastructure.postgresql.own_connection import own_connection

logger = logging.getLogger("chats.stream")

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 5.0)
# A read's columns: a notification carries the same ones after its chat and seq.
_COLUMNS = ("seq", "chat_id", *NOTIFY_COLUMNS)


class PollingSource:
    """Reads through Django's connection of the listener's own thread (SQLite)."""

    def connect(self) -> None:
        pass

    def close(self) -> None:
        django_connection.close()

    def wait(self, hub: Hub, timeout: float) -> list[str] | None:
        hub.stopped.wait(timeout)
        return None

    def fetch(
        self, *, chats: list[UUID], floor: int, known: Iterable[int]
    ) -> tuple[int, list[Event]]:
        top = Event.objects.aggregate(top=Max("seq"))["top"] or 0
        if not chats:
            return top, []
        events = (
            Event.objects.filter(chat_id__in=chats, seq__gt=floor)
            .exclude(seq__in=list(known))
            .order_by("seq")
        )
        return top, list(events)

    def fetch_seqs(self, seqs: list[int]) -> tuple[int, list[Event]]:
        top = Event.objects.aggregate(top=Max("seq"))["top"] or 0
        return top, list(Event.objects.filter(seq__in=seqs).order_by("seq"))


class PostgresSource:
    """A dedicated autocommit psycopg connection that both LISTENs and reads."""

    def __init__(self) -> None:
        self.conn: Any = None
        table = Event._meta.db_table
        columns = ", ".join(f"e.{name}" for name in _COLUMNS)
        # One round trip each: the highest committed seq plus the unseen events of followed
        # chats (sql), or plus the notified events (sql_seqs, read by the primary key).
        self.sql = (
            f"SELECT t.top, {columns} FROM (SELECT max(seq) AS top FROM {table}) AS t "
            f"LEFT JOIN {table} AS e ON e.chat_id = ANY(%(chats)s::uuid[]) "
            f"AND e.seq > %(floor)s AND e.seq <> ALL(%(known)s::bigint[]) "
            f"ORDER BY e.seq"
        )
        self.sql_seqs = (
            f"SELECT t.top, {columns} FROM (SELECT max(seq) AS top FROM {table}) AS t "
            f"LEFT JOIN {table} AS e ON e.seq = ANY(%(seqs)s::bigint[]) ORDER BY e.seq"
        )

    def connect(self) -> None:
        # LISTEN holds a session: behind a transaction-pooling PgBouncer, DATABASE_LISTEN_URL
        # points past it (PgBouncer would hand the session to other clients between
        # statements and the notifications would go astray).
        self.conn = own_connection(
            application_name="sse-listener", url=settings.DATABASE_LISTEN_URL
        )
        self.conn.execute(f"LISTEN {EVENTS_CHANNEL}")

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            finally:
                self.conn = None

    def wait(self, hub: Hub, timeout: float) -> list[str] | None:
        """The payloads notified within `timeout`, or None when none came.

        `notifies()` holds the connection while it runs, so it is always given a timeout;
        notifications that arrive during a query are kept by psycopg and returned here. It
        returns every notification of the packets read at once, so a burst comes together
        without a second call (which would cost a wake-up a third more CPU).
        """
        received = [notify.payload for notify in self.conn.notifies(timeout=timeout, stop_after=1)]
        return received or None

    def fetch(
        self, *, chats: list[UUID], floor: int, known: Iterable[int]
    ) -> tuple[int, list[Event]]:
        # Never a prepared statement: PostgreSQL then plans with the values, and checks each
        # row against `known` (every event read in the last LATE_COMMIT_SECONDS, thousands
        # under load) in a hash table; a generic plan compares each row with each known seq
        # in turn (0.4-0.9 s with 100 chats and 4,000-12,000 known seqs, against 20-25 ms).
        rows = self.conn.execute(
            self.sql, {"chats": chats, "floor": floor, "known": list(known)}, prepare=False
        ).fetchall()
        return _top_and_events(rows)

    def fetch_seqs(self, seqs: list[int]) -> tuple[int, list[Event]]:
        return _top_and_events(self.conn.execute(self.sql_seqs, {"seqs": seqs}).fetchall())


def _top_and_events(rows: list[Any]) -> tuple[int, list[Event]]:
    top = rows[0][0] or 0
    events = [Event(**dict(zip(_COLUMNS, row[1:], strict=True))) for row in rows if row[1]]
    return top, events


def _notified_events(
    hub: Hub, source: PostgresSource | PollingSource, payloads: list[str]
) -> tuple[int, list[Event]] | None:
    """The notified events of chats that have streams here, not delivered yet, in seq order,
    and a seq committed by now (the hub's `top`); None when there are none.

    Those too large for their payload are read by their seqs, so the query's cost grows
    neither with the chats followed nor with the events read recently (`known`). Those that
    came in their payload are committed, so the highest of their seqs is such a `top`; they
    come in commit order, which for one chat is seq order (chats/events.py takes each chat's
    turn before its seqs)."""
    events, seqs = _carried(hub, payloads)
    if seqs:
        top, read = source.fetch_seqs(seqs)  # the highest seq committed: above the carried
        return top, sorted([*events, *read], key=lambda event: event.seq)
    if events:
        return max(event.seq for event in events), events
    return None


def _carried(hub: Hub, payloads: list[str]) -> tuple[list[Event], list[int]]:
    """The notified events of chats that have streams here, not delivered yet: those whose
    payload carries them, and the seqs of those to read (too large for a payload)."""
    events: list[Event] = []
    seqs: list[int] = []
    for payload in payloads:
        chat_text, _, rest = payload.partition(":")
        seq_text, _, columns = rest.partition(":")
        try:
            chat_id, seq = UUID(chat_text), int(seq_text)
        except ValueError:
            continue
        if not (hub.follows(chat_id) and hub.is_new(seq)):
            continue
        event = _event(chat_id, seq, columns) if columns else None
        if event is None:
            seqs.append(seq)
        else:
            events.append(event)
    return events, seqs


def _event(chat_id: UUID, seq: int, columns: str) -> Event | None:
    """The event a payload carries; None when it does not hold one (then it is read)."""
    try:
        values = dict(zip(NOTIFY_COLUMNS, orjson.loads(columns), strict=True))
        values["created_at"] = datetime.fromisoformat(values["created_at"])
    except (TypeError, ValueError):
        return None
    return Event(seq=seq, chat_id=chat_id, **values)


def make_source() -> PostgresSource | PollingSource:
    if django_connection.vendor == "postgresql":
        return PostgresSource()
    return PollingSource()


def run_listener(hub: Hub) -> None:
    """The listener's loop: runs until the hub stops, reconnecting as long as it takes."""
    source = make_source()
    poll_seconds = max(0.05, settings.SSE_POLL_SECONDS)
    failures = 0
    while not hub.stopped.is_set():
        try:
            source.connect()
            _refresh(hub, source)  # Catch up on what was committed while disconnected.
            if failures:
                logger.warning("event listener reconnected")
            failures = 0
            _listen(hub, source, poll_seconds)
        except Exception as exc:
            # Never let the listener die: open streams keep their keep-alives and get the
            # missed events once the database is back.
            delay = RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)]
            failures += 1
            logger.warning(
                "event listener lost the database (%s), retrying in %ss",
                type(exc).__name__,
                delay,
            )
            _close_quietly(source)
            hub.stopped.wait(delay)
    _close_quietly(source)


def _listen(hub: Hub, source: PostgresSource | PollingSource, poll_seconds: float) -> None:
    next_poll = time.monotonic() + poll_seconds
    while not hub.stopped.is_set():
        notified = source.wait(hub, max(0.0, next_poll - time.monotonic()))
        if notified is not None and (new := _notified_events(hub, source, notified)):
            top, events = new
            hub.deliver(top=top, events=events, full=False)
        if time.monotonic() >= next_poll:
            _refresh(hub, source)
            next_poll = time.monotonic() + poll_seconds


def _refresh(hub: Hub, source: PostgresSource | PollingSource) -> None:
    """Reads and delivers the unseen events of every followed chat (a full read, the only kind
    that lets the hub's floor move). The hub has its floor already: the listener starts with
    the process's first stream (hub_subscribe)."""
    top, events = source.fetch(chats=hub.chats(), floor=hub.floor or 0, known=hub.known)
    hub.deliver(top=top, events=events, full=True)


def _close_quietly(source: PostgresSource | PollingSource) -> None:
    try:
        source.close()
    except Exception:
        logger.debug("closing the listener's connection failed", exc_info=True)
