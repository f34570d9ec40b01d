"""Reads of a chat's replies for the AI SDK stream: the one running now, its events, its answer."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef, Q
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
REPLY_ENDS = [EventStatus.COMPLETED, EventStatus.FAILED]


def chat_events_after(
    chat: Chat, after: int, *, reply_to_seq: int | None = None
) -> list[dict[str, Any]]:
    """The chat's events after seq `after`, as MessageEvent payloads, in order; with
    `reply_to_seq`, only those of the reply to that user message."""
    events = Event.objects.filter(chat=chat, seq__gt=after)
    if reply_to_seq is not None:
        events = events.filter(reply_to_seq=reply_to_seq)
    return [event_payload(event) for event in events.order_by("seq")]


def running_reply_start(chat: Chat, *, now: datetime | None = None) -> Event | None:
    """The first event of the chat's earliest reply that has started and not ended, if any.

    Replies of one chat may run at once (two tabs): a reply has ended when an end event of
    the same user message exists. Events written before they named their user message
    (`reply_to_seq` empty) count as ended by any later end.
    """
    now = now or timezone.now()
    reply_ends = Event.objects.filter(chat=chat, tool_name="", status__in=REPLY_ENDS)
    last_end = reply_ends.order_by("-seq").values_list("seq", flat=True).first()
    own_end = reply_ends.filter(reply_to_seq=OuterRef("reply_to_seq"))
    return (
        Event.objects.filter(
            chat=chat,
            tool_name="",
            status=EventStatus.IN_PROGRESS,
            content__isnull=True,
            created_at__gte=now - REPLY_AT_MOST,
        )
        .alias(has_end=Exists(own_end))
        .filter(
            Q(reply_to_seq__isnull=False, has_end=False)
            | Q(reply_to_seq__isnull=True, seq__gt=last_end or 0)
        )
        .order_by("seq")
        .first()
    )


def answer_stored_since(chat: Chat, since: datetime, *, content: str) -> dict[str, Any] | None:
    """The chat's answer with `content` stored at or after `since`, as the API writes it,
    waiting a moment for it (it is written just after the events that announce it)."""
    deadline = time.monotonic() + ANSWER_WAIT_SECONDS
    while True:
        answer = (
            Message.objects.filter(
                chat=chat, type=MessageType.ANSWER, created_at__gte=since, content=content
            )
            .order_by("seq")
            .first()
        )
        if answer is not None:
            return dict(MessageOutput(answer).data)
        if time.monotonic() >= deadline:
            return None
        connection.close()  # not held while waiting
        time.sleep(0.05)
