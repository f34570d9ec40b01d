"""Publishing the events of a reply (contract §5): each is committed as it happens."""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.db import connection

from chats.models import Event, EventStatus

# The PostgreSQL channel the stream's listeners LISTEN on; payload "<chat id>:<seq>".
EVENTS_CHANNEL = "chat_events"


class EventPublisher:
    """Writes the MessageEvents of one reply of one chat, in order.

    Each event is its own committed row, so clients following the stream see progress
    live. Callers must not hold a transaction open around an engine's reply.
    """

    def __init__(self, *, chat_id) -> None:
        self.chat_id = chat_id

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
        return self.publish(EventStatus.COMPLETED, content=content)

    def failed(self, description: str) -> Event:
        return self.publish(EventStatus.FAILED, content=description)

    def publish(self, status: str, **fields: Any) -> Event:
        event = Event(chat_id=self.chat_id, status=status, **fields)
        if connection.vendor == "postgresql":
            event.seq = _insert(event, notify=notify_enabled())
        else:
            event.save(force_insert=True)
        return event


def _insert(event: Event, *, notify: bool) -> int:
    """Inserts the event, and NOTIFYs the stream listeners, in ONE statement (one round trip).

    In autocommit the statement is its own transaction, committed with `synchronous_commit`
    off: NOTIFY holds a database-wide lock from just before the commit to its end, and a
    durable commit would hold it across the WAL flush, queueing every publishing process behind
    the disk (BENCHMARKS.md: about 300 events/s with durable commits). Events are progress of
    a reply (the reply message itself is stored durably), so a PostgreSQL crash (not a clean
    restart) may lose the last fraction of a second of them. Inside a caller's atomic block the
    statement joins that transaction, which keeps its own commit mode.

    The NOTIFY belongs to the row's transaction: PostgreSQL delivers it at commit, when the row
    is visible to the listener it wakes, and never for a rolled back row.
    """
    fields = _fields()
    values = [field.get_db_prep_save(field.pre_save(event, True), connection) for field in fields]
    own_transaction = not connection.in_atomic_block
    params = [*values, EVENTS_CHANNEL] if notify else values
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(notify=notify, own_transaction=own_transaction), params)
        return cursor.fetchone()[0]


def _fields() -> list[Any]:
    return [field for field in Event._meta.concrete_fields if not field.primary_key]


@functools.cache
def _insert_sql(*, notify: bool, own_transaction: bool) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(str(field.column)) for field in _fields())
    placeholders = ", ".join(["%s"] * len(_fields()))
    outputs = ["e.seq"]
    if notify:
        outputs.append("pg_notify(%s, e.chat_id::text || ':' || e.seq::text)")
    if own_transaction:
        outputs.append("set_config('synchronous_commit', 'off', true)")
    return (
        f"WITH e AS (INSERT INTO {quote(Event._meta.db_table)} ({columns}) "
        f"VALUES ({placeholders}) RETURNING seq, chat_id) "
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
