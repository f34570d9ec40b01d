"""What a newly opened stream sends before live events
(docs/api.md#delivery-ordering-and-resume)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Max

from chats.models import Chat, Event

# A stream opened without a resume position first gets the chat's events this recent, so a
# client that opens the stream right after sending a message misses nothing.
RECENT_WINDOW = timedelta(seconds=30)


def event_replay(*, chat: Chat, after: int | None, now: datetime) -> list[Event]:
    """The chat's events after event `after`, or of the last 30 seconds when `after` is None."""
    events = Event.objects.filter(chat=chat)
    if after is None:
        events = events.filter(created_at__gte=now - RECENT_WINDOW)
    else:
        events = events.filter(seq__gt=after)
    return list(events.order_by("seq"))


def event_top() -> int:
    """The highest committed event seq (0 when there is none)."""
    return Event.objects.aggregate(top=Max("seq"))["top"] or 0
