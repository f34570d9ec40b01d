"""Publishing the events of a reply (contract §5): each is committed as it happens."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection, transaction

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
        if not notify_enabled():
            return Event.objects.create(chat_id=self.chat_id, status=status, **fields)
        # The NOTIFY belongs to the event's transaction: PostgreSQL delivers it at commit,
        # when the row is visible to the listener it wakes, and never for a rolled back row.
        with transaction.atomic(savepoint=False):
            event = Event.objects.create(chat_id=self.chat_id, status=status, **fields)
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_notify(%s, %s)", [EVENTS_CHANNEL, f"{event.chat_id}:{event.seq}"]
                )
        return event


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
