"""Publishing the events of a reply (contract §5), committed as they happen."""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from chats.models import Event, EventStatus

# The PostgreSQL channel the stream's listeners LISTEN on; payload "<chat id>:<seq>".
EVENTS_CHANNEL = "chat_events"


class EventPublisher:
    """Writes the MessageEvents of one reply of one chat, in order.

    Each event is its own committed row, so clients following the stream see progress live.
    With `buffered`, for an engine that answers within milliseconds, the events are kept
    until the reply's last one (`completed` or `failed`) and then written together in one
    statement: the stream gets the same events in the same order, one round trip instead of
    a dozen (issue 9). Callers must not hold a transaction open around an engine's reply.
    """

    def __init__(self, *, chat_id, buffered: bool = False) -> None:
        self.chat_id = chat_id
        self.buffered = buffered
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
        # A buffered reply whose end could not be written ends in `failed` instead, as an
        # unbuffered one does: the reply's unwritten `completed` is dropped, never sent.
        self.pending = [event for event in self.pending if not _is_reply_end(event)]
        return self.publish(EventStatus.FAILED, content=description, last=True)

    def publish(self, status: str, *, last: bool = False, **fields: Any) -> Event:
        event = Event(chat_id=self.chat_id, status=status, **fields)
        self.pending.append(event)
        if last or not self.buffered:
            self.flush()
        return event

    def flush(self) -> None:
        """Writes the pending events; they stay pending if the database refuses them."""
        if not self.pending:
            return
        if connection.vendor == "postgresql":
            seqs = _insert(self.pending, notify=notify_enabled())
            for event, seq in zip(self.pending, seqs, strict=True):
                event.seq = seq
        else:
            with transaction.atomic():
                for event in self.pending:
                    event.save(force_insert=True)
        self.pending = []


def _is_reply_end(event: Event) -> bool:
    return event.status == EventStatus.COMPLETED and not event.tool_name


def _insert(events: list[Event], *, notify: bool) -> list[int]:
    """Inserts the events, and NOTIFYs the stream listeners, in ONE statement (one round trip);
    returns their seqs in order.

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
    fields = _fields()
    values = [
        field.get_db_prep_save(field.pre_save(event, True), connection)
        for event in events
        for field in fields
    ]
    own_transaction = not connection.in_atomic_block
    params = [*values, EVENTS_CHANNEL] if notify else values
    sql = _insert_sql(rows=len(events), notify=notify, own_transaction=own_transaction)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        # A multi-row VALUES takes its sequence numbers in row order.
        return sorted(row[0] for row in cursor.fetchall())


def _fields() -> list[Any]:
    return [field for field in Event._meta.concrete_fields if not field.primary_key]


@functools.cache
def _insert_sql(*, rows: int, notify: bool, own_transaction: bool) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(str(field.column)) for field in _fields())
    row = "(" + ", ".join(["%s"] * len(_fields())) + ")"
    placeholders = ", ".join([row] * rows)
    outputs = ["e.seq"]
    if notify:
        outputs.append("pg_notify(%s, e.chat_id::text || ':' || e.seq::text)")
    if own_transaction:
        outputs.append("set_config('synchronous_commit', 'off', true)")
    return (
        f"WITH e AS (INSERT INTO {quote(Event._meta.db_table)} ({columns}) "
        f"VALUES {placeholders} RETURNING seq, chat_id) "
        f"SELECT {', '.join(outputs)} FROM e"
    )


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
