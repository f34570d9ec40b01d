"""What a newly opened stream sends before live events
(docs/api.md#delivery-ordering-and-resume)."""

from __future__ import annotations

from datetime import datetime, timedelta

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


def event_settled(before: datetime) -> int:
    """The highest seq of an event created before `before` (0 when there is none): a backward
    scan of the primary key over the events created since."""
    seqs = Event.objects.filter(created_at__lt=before).order_by("-seq").values_list("seq")
    first = seqs.first()
    return first[0] if first else 0
