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
        if notify_enabled():
            event.seq = _insert_and_notify(event)
        else:
            event.save(force_insert=True)
        return event


def _insert_and_notify(event: Event) -> int:
    """Inserts the event and NOTIFYs the stream listeners in ONE statement, its own
    transaction in autocommit (one round trip; inside a caller's atomic block it joins it).

    The NOTIFY belongs to the row's transaction: PostgreSQL delivers it at commit, when the row
    is visible to the listener it wakes, and never for a rolled back row.
    """
    fields = [field for field in Event._meta.concrete_fields if not field.primary_key]
    values = [field.get_db_prep_save(field.pre_save(event, True), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(_insert_and_notify_sql(), [*values, EVENTS_CHANNEL])
        return cursor.fetchone()[0]


@functools.cache
def _insert_and_notify_sql() -> str:
    quote = connection.ops.quote_name
    fields = [field for field in Event._meta.concrete_fields if not field.primary_key]
    columns = ", ".join(quote(str(field.column)) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    return (
        f"WITH e AS (INSERT INTO {quote(Event._meta.db_table)} ({columns}) "
        f"VALUES ({placeholders}) RETURNING seq, chat_id) "
        f"SELECT e.seq, pg_notify(%s, e.chat_id::text || ':' || e.seq::text) FROM e"
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
