"""Publishing the events of a reply (contract §5): each is committed as it happens."""

from __future__ import annotations

from typing import Any

from chats.models import Event, EventStatus


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
        return Event.objects.create(chat_id=self.chat_id, status=status, **fields)


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
