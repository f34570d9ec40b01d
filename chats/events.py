"""Publishing the events of a reply (docs/api.md#event-stream), committed as they happen."""

from __future__ import annotations

import functools
import json
import logging
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction

from chats.event_writer import EventWriter
from chats.models import Chat, Event, EventStatus
from infrastructure.postgresql.base import closed_by_server
from infrastructure.postgresql.own_connection import own_connection

# The PostgreSQL channel the stream's listeners LISTEN on; payload "<chat id>:<seq>", followed
# by ":" and the JSON array of the event's NOTIFY_COLUMNS when that is at most
# NOTIFY_EVENT_BYTES long (PostgreSQL refuses a payload of 8000 bytes or more).
EVENTS_CHANNEL = "chat_events"
NOTIFY_COLUMNS = ("status", "tool_name", "content", "tool_args", "tool_response", "created_at")
NOTIFY_EVENT_BYTES = 7800
# The database is away: the events stay pending, for the caller to write when it is back.
CONNECTION_ERRORS = (OperationalError, InterfaceError)

logger = logging.getLogger(__name__)

# Handed the events of one reply each time some are written, with their seqs, in order.
EventObserver = Callable[[list[Event]], None]


class EventPublisher:
    """Writes the MessageEvents of one reply of one chat, in order: the `EventSink` an engine
    is handed (knowledge/engines/base.py), plus the `failed` end the caller writes.

    Each event is its own committed row, so clients following the stream see progress live.
    With `buffered`, for an engine that answers within milliseconds, the events are kept
    until the reply's last one (`completed` or `failed`) and then written together in one
    statement: the stream gets the same events in the same order, one round trip instead of
    a dozen. Callers must not hold a transaction open around an engine's reply.


    `reply_to_seq` marks each event with the user message it answers; `observe`, when given,
    is handed the events each time some are written (with their seqs), in order.
    """

    def __init__(
        self,
        *,
        chat_id,
        buffered: bool = False,
        reply_to_seq: int | None = None,
        observe: EventObserver | None = None,
    ) -> None:
        self.chat_id = chat_id
        self.buffered = buffered
        self.reply_to_seq = reply_to_seq
        self.observe = observe
        self.pending: list[Event] = []

    def typing(self) -> Event:
        return self.publish(EventStatus.IN_PROGRESS)

    def tool_started(self, name: str, args: dict[str, Any]) -> Event:
        return self.publish(EventStatus.IN_PROGRESS, tool_name=name, tool_args=args)

    def tool_finished(self, name: str, args: dict[str, Any], response: dict[str, Any]) -> Event:
        return self.publish(
            EventStatus.COMPLETED, tool_name=name, tool_args=args, tool_response=response
        )

    def tool_failed(self, name: str, args: dict[str, Any], description: str) -> Event:
        return self.publish(EventStatus.FAILED, tool_name=name, tool_args=args, content=description)

    def chunk(self, text: str) -> Event:
        return self.publish(EventStatus.IN_PROGRESS, content=text)

    def completed(self, content: str) -> Event:
        return self.publish(EventStatus.COMPLETED, content=content, last=True)

    def failed(self, description: str) -> Event:
        """Ends the reply with a `failed` event, whatever the events before it hold."""
        # A buffered reply whose end could not be written ends in `failed` instead, as an
        # unbuffered one does: the reply's unwritten `completed` is dropped, never sent.
        self.pending = [event for event in self.pending if not _is_reply_end(event)]
        if self.pending and _is_failure_end(self.pending[-1]):
            event = self.pending[-1]  # ended already; only its writing failed
        else:
            event = Event(
                chat_id=self.chat_id,
                status=EventStatus.FAILED,
                content=description.replace("\x00", "\ufffd"),
                reply_to_seq=self.reply_to_seq,
            )
            self.pending.append(event)
        self.flush_end()
        return event

    def flush_end(self) -> None:
        """Writes the pending events of a failed reply, its `failed` event last, leaving out
        any the database refuses (a number JSON cannot hold, a NUL character, a tool name too
        long): such an event may be why the reply failed, and must not keep it from ending.
        Raises only when the database is away (CONNECTION_ERRORS); the events stay pending."""
        if not self.pending:
            return
        *before, end = self.pending
        self.pending = [event for event in before if _storable(event)] + [end]
        if len(self.pending) <= len(before):
            logger.warning("events of chat %s left out: the database refuses them", self.chat_id)
        try:
            self.flush()
        except CONNECTION_ERRORS:
            raise
        except (DatabaseError, TypeError, ValueError) as exc:
            # Refused for another reason: the reply still ends, with its `failed` event alone.
            logger.warning("events of chat %s refused: %s", self.chat_id, type(exc).__name__)
            self.pending = [end]
            self.flush()

    def publish(self, status: str, *, last: bool = False, **fields: Any) -> Event:
        event = Event(chat_id=self.chat_id, status=status, reply_to_seq=self.reply_to_seq, **fields)
        self.pending.append(event)
        if last or not self.buffered:
            self.flush()
        return event

    def flush(self) -> None:
        """Writes the pending events; they stay pending if the database refuses them."""
        if not self.pending:
            return
        if connection.vendor == "postgresql":
            seqs = _write(self.pending)
            for event, seq in zip(self.pending, seqs, strict=True):
                event.seq = seq
        else:
            # SQLite would store what PostgreSQL refuses: refused alike, so both behave the same.
            if not all(_storable(event) for event in self.pending):
                raise ValueError("an event holds what the database cannot store")
            with transaction.atomic():
                for event in self.pending:
                    event.save(force_insert=True)
        written, self.pending = self.pending, []
        if self.observe is not None:
            self.observe(written)


def _is_reply_end(event: Event) -> bool:
    return event.status == EventStatus.COMPLETED and not event.tool_name


def _is_failure_end(event: Event) -> bool:
    return event.status == EventStatus.FAILED and not event.tool_name


def _storable(event: Event) -> bool:
    """Whether PostgreSQL takes the event: JSON without NaN or infinities (not JSON at all),
    no NUL character (text and jsonb cannot hold one), a tool name that fits its column."""
    values = [event.content, event.tool_name, event.tool_args, event.tool_response]
    try:
        encoded = json.dumps(values, allow_nan=False)
    except (TypeError, ValueError):
        return False
    max_length = Event._meta.get_field("tool_name").max_length or 0
    return "\\u0000" not in encoded and len(event.tool_name or "") <= max_length


def _write(events: list[Event]) -> list[int]:
    """Inserts the events (PostgreSQL); their seqs in order. Outside a transaction, by the
    process's event writer with every other reply's waiting (chats/event_writer.py,
    `EVENT_GROUP_COMMIT`); when its statement failed, or inside a transaction, alone."""
    if not connection.in_atomic_block and settings.EVENT_GROUP_COMMIT:
        seqs = _WRITER.write(events)
        if seqs is not None:
            return seqs
    return _insert(events, notify=notify_enabled())


def _insert(events: list[Event], *, notify: bool) -> list[int]:
    """Inserts the events, and NOTIFYs the stream listeners, in ONE statement (one round trip);
    returns their seqs in order.

    The rows travel as one JSON array: one parameter whatever the number of events, so the
    statement's text is the same for every reply (psycopg keeps its parsing and PostgreSQL its
    plan; a parameter per column of each row cost a reply 0.7-0.8 ms of CPU, 0.4-0.55 this way).

    In autocommit the statement is its own transaction, committed with `synchronous_commit`
    off: NOTIFY holds a database-wide lock from just before the commit to its end, and a
    durable commit would hold it across the WAL flush, queueing every publishing process behind
    the disk (BENCHMARKS.md: about 300 events/s with durable commits). Events are progress of
    a reply (the reply message itself is stored durably), so a PostgreSQL crash (not a clean
    restart) may lose the last fraction of a second of them. Inside a caller's atomic block the
    statement joins that transaction, which keeps its own commit mode.

    The NOTIFY belongs to the rows' transaction: PostgreSQL delivers it at commit, when the rows
    are visible to the listener it wakes, and never for rolled back rows.
    """
    own_transaction = not connection.in_atomic_block
    sql = _insert_sql(notify=notify, own_transaction=own_transaction, grouped=False)
    with connection.cursor() as cursor:
        cursor.execute(sql, _insert_params(events, notify=notify))
        return sorted(row[0] for row in cursor.fetchall())


def _insert_grouped(conn: Any, events: list[Event]) -> list[int] | None:
    """The event writer's statement (chats/event_writer.py) on its own autocommit connection:
    the events of several replies, if every chat's turn and row are free (else None: nothing
    written). One statement, so one round trip and one turn of a gevent worker's loop."""
    notify = notify_enabled()
    sql = _insert_sql(notify=notify, own_transaction=True, grouped=True)
    rows = conn.execute(sql, _insert_params(events, notify=notify)).fetchall()
    if len(rows) != len(events):
        return None
    return sorted(row[0] for row in rows)


def _insert_params(events: list[Event], *, notify: bool) -> list[Any]:
    fields = _fields()
    # No NaN or Infinity: json.dumps would write them, and PostgreSQL refuse the whole row set.
    rows = json.dumps(
        [[_json_value(field, event) for field in fields] for event in events], allow_nan=False
    )
    # Several replies' events in one statement take their chats' turns in one order.
    chats = sorted({str(event.chat_id) for event in events})
    return [chats, rows, EVENTS_CHANNEL] if notify else [chats, rows]


def _fields() -> list[Any]:
    return [field for field in Event._meta.concrete_fields if not field.primary_key]


@functools.cache
def _insert_sql(*, notify: bool, own_transaction: bool, grouped: bool) -> str:
    quote = connection.ops.quote_name
    fields = _fields()
    columns = ", ".join(quote(str(field.column)) for field in fields)
    values = ", ".join(_column_value(field, index) for index, field in enumerate(fields))
    outputs = ["e.seq"]
    returning = ["seq", "chat_id"]
    sources = "e"
    if notify:
        returning += NOTIFY_COLUMNS
        # The payload carries the event itself when it fits (NOTIFY_EVENT_BYTES), so that the
        # listeners need not read it back (chats/stream/listener.py).
        outputs.append(
            "pg_notify(%s, e.chat_id::text || ':' || e.seq::text "
            f"|| CASE WHEN octet_length(p.event) <= {NOTIFY_EVENT_BYTES} THEN ':' || p.event "
            "ELSE '' END)"
        )
        sources += (
            ", LATERAL (SELECT json_build_array("
            + ", ".join(f"e.{quote(column)}" for column in NOTIFY_COLUMNS)
            + ")::text AS event) AS p"
        )
    if own_transaction:
        outputs.append("set_config('synchronous_commit', 'off', true)")
    # One chat's writes take their turns (a lock on each chat until the commit, taken before
    # the rows' sequence numbers): a chat's events commit in seq order, so a stream never sends
    # an event while one of the chat with a lower seq may still commit, and a client resuming
    # after the last event it received (Last-Event-ID) misses nothing. Other chats never wait.
    # Sequence numbers are taken in the order the rows are inserted: the array's.
    # The event writer's statement waits for no chat's turn: it writes nothing when one is
    # taken, and its replies then write alone.
    key = "hashtextextended('chat-events:' || c, 0)"
    chats = "unnest(%s::text[]) AS c"
    if grouped:
        # Nor for a chat's row: the events' foreign key check locks it (FOR KEY SHARE, at the
        # commit), and a transaction erasing the chat holds it (FOR UPDATE) until it ends.
        # Taken here, where a locked row is skipped, the check finds the lock already held.
        # (A row locked after an update of its own transaction could still be waited for;
        # nothing updates a chat's row.) Locking rows needs UPDATE on the table (README).
        turn = f"bool_and(pg_try_advisory_xact_lock({key}) AND coalesce(k.free, false)) AS free"
        chats += (
            f" LEFT JOIN LATERAL (SELECT true AS free FROM {quote(Chat._meta.db_table)} "
            "WHERE id = c::uuid FOR KEY SHARE SKIP LOCKED) AS k ON true"
        )
    else:
        turn = f"count(pg_advisory_xact_lock({key})) >= 0 AS free"
    return (
        f"WITH turn AS MATERIALIZED (SELECT {turn} FROM {chats}), "
        f"e AS (INSERT INTO {quote(Event._meta.db_table)} ({columns}) "
        f"SELECT {values} FROM turn, jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS r(item, n) "
        f"WHERE turn.free ORDER BY n RETURNING {', '.join(map(quote, returning))}) "
        f"SELECT {', '.join(outputs)} FROM {sources}"
    )


def _json_value(field: Any, event: Event) -> Any:
    """The column's value as the ORM would store it, in JSON: a JSON field's value as it is,
    encoded by json.dumps as Django's JSONField does (so what it refuses, this refuses), other
    columns prepared by their field, with UUIDs and datetimes as text."""
    value = field.pre_save(event, True)
    if value is None or type(value) is str or field.get_internal_type() == "JSONField":
        return value  # a text or a missing value is stored as it is (a field prepares neither)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.isoformat()
    value = field.get_db_prep_save(value, connection)  # e.g. a naive datetime made aware
    return value.isoformat() if isinstance(value, datetime) else value


def _column_value(field: Any, index: int) -> str:
    """The SQL reading `field` from its place in a row of the JSON array (null: NULL)."""
    kind = field.get_internal_type()
    if kind == "JSONField":
        return f"NULLIF(r.item->{index}, 'null'::jsonb)"
    if kind in ("CharField", "TextField"):
        # No cast: storing a text longer than its column fails, as an explicit cast to
        # varchar(n) would silently cut it.
        return f"r.item->>{index}"
    return f"(r.item->>{index})::{field.cast_db_type(connection)}"


def _writer_connect() -> Any:
    prepare = 5 if settings.DB_PREPARED_STATEMENTS else None
    # Every reply of the process waits for this connection: a peer gone without a word (a
    # host down) is given up within seconds, not the system's TCP timeout (minutes).
    return own_connection(
        application_name="event-writer",
        prepare_threshold=prepare,
        keepalives=1,
        keepalives_idle=10,
        keepalives_interval=5,
        keepalives_count=3,
        tcp_user_timeout=30_000,
    )


_WRITER = EventWriter(
    insert=_insert_grouped,
    connect=_writer_connect,
    dead=closed_by_server,
    delay=lambda: settings.EVENT_COMMIT_DELAY_MS / 1000,
)


def event_writer_close() -> None:
    """Closes the process's event writer's connection (a test database about to be dropped)."""
    _WRITER.close()


def notify_enabled() -> bool:
    """Whether publishing wakes the stream listeners (PostgreSQL only; SQLite is polled).

    `SSE_NOTIFY=off` leaves live delivery to the listeners' polling (`SSE_POLL_SECONDS`)."""
    return settings.SSE_NOTIFY and connection.vendor == "postgresql"


def event_payload(event: Event) -> dict[str, Any]:
    """The MessageEvent JSON of an event: optional fields only when set."""
    payload: dict[str, Any] = {
        "chatId": str(event.chat_id),
        "eventId": event.event_id,
        "status": event.status,
    }
    if event.tool_name:
        payload["toolName"] = event.tool_name
    if event.content is not None:
        payload["content"] = event.content
    if event.tool_args is not None:
        payload["toolArgs"] = event.tool_args
    if event.tool_response is not None:
        payload["toolResponse"] = event.tool_response
    return payload
