"""Reads of a chat's replies for the AI SDK stream: the one running now, its events, its answer."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Max
from django.utils import timezone

from chats.events import event_payload
from chats.idempotency import IN_PROGRESS_LEASE
from chats.models import Chat, Event, EventStatus, Message, MessageType
from chats.serializers import MessageOutput

# No reply runs longer (the assistant's budget is far below it): an older reply without an
# end died with its worker, and is not "running".
REPLY_AT_MOST = IN_PROGRESS_LEASE
# The answer is stored right after the reply's `completed` event is published.
ANSWER_WAIT_SECONDS = 5.0


def chat_event_top(chat: Chat) -> int:
    """The chat's highest event seq (0 when it has none)."""
    return Event.objects.filter(chat=chat).aggregate(top=Max("seq"))["top"] or 0


def chat_events_after(chat: Chat, after: int) -> list[dict[str, Any]]:
    """The chat's events after seq `after`, as MessageEvent payloads, in order."""
    events = list(Event.objects.filter(chat=chat, seq__gt=after).order_by("seq"))
    return [event_payload(event) for event in events]


def running_reply_start(chat: Chat, *, now: datetime | None = None) -> Event | None:
    """The first event of the chat's reply that has started and not ended, if any."""
    now = now or timezone.now()
    last_end = (
        Event.objects.filter(
            chat=chat, tool_name="", status__in=[EventStatus.COMPLETED, EventStatus.FAILED]
        )
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    return (
        Event.objects.filter(
            chat=chat,
            tool_name="",
            status=EventStatus.IN_PROGRESS,
            content__isnull=True,
            seq__gt=last_end or 0,
            created_at__gte=now - REPLY_AT_MOST,
        )
        .order_by("seq")
        .first()
    )


def answer_stored_since(chat: Chat, since: datetime) -> dict[str, Any] | None:
    """The chat's answer stored at or after `since`, as the API writes it, waiting a moment
    for it (it is written just after the events that announce it)."""
    deadline = time.monotonic() + ANSWER_WAIT_SECONDS
    while True:
        answer = (
            Message.objects.filter(chat=chat, type=MessageType.ANSWER, created_at__gte=since)
            .order_by("-seq")
            .first()
        )
        if answer is not None:
            return dict(MessageOutput(answer).data)
        if time.monotonic() >= deadline:
            return None
        connection.close()  # not held while waiting
        time.sleep(0.05)
