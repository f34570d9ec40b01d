"""Where the UI message stream takes a reply's events from: the reply this process runs,
handed over as they are written, or a running reply a resume joins, read from the database."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

import orjson
from django.db import DEFAULT_DB_ALIAS, connection, connections

from chats.events import event_payload
from chats.models import Chat, Event
from chats.stream.hub import Subscription
from chats.ui.replies import chat_events_after


def connection_release() -> None:
    """A stream must not pin a database connection, nor keep Django's per-greenlet connection
    object, for its lifetime (as the event stream does)."""
    if not connection.in_atomic_block:
        connection.close()
        with contextlib.suppress(AttributeError):  # none made in this greenlet
            del connections[DEFAULT_DB_ALIAS]


class ReplyEvents:
    """The events of one reply running in this process, handed from its thread to its
    stream as they are written (EventPublisher's `observe`): that reply's, and no other's."""

    def __init__(self) -> None:
        self._ready = threading.Condition()
        self._payloads: list[dict[str, Any]] = []
        self.ended = False  # the reply has returned: nothing more comes

    def written(self, events: list[Event]) -> None:
        payloads = [event_payload(event) for event in events]
        with self._ready:
            self._payloads += payloads
            self._ready.notify_all()

    def end(self) -> None:
        with self._ready:
            self.ended = True
            self._ready.notify_all()

    def wait(self, until: float) -> list[dict[str, Any]]:
        """The payloads written since the last call; when there are none, waits for some, for
        the reply's end, or until `until` (a `time.monotonic()` value)."""
        with self._ready:
            self._ready.wait_for(
                lambda: self._payloads or self.ended, timeout=max(0, until - time.monotonic())
            )
            taken, self._payloads = self._payloads, []
            return taken

    @property
    def exhausted(self) -> bool:
        with self._ready:
            return self.ended and not self._payloads

    def close(self) -> None:
        pass  # the reply goes on without its stream


class ResumedEvents:
    """The events of a running reply, possibly of another process, for a resume: each event
    of the chat the hub announces wakes it, and the reply's own events are read from the
    database (another reply of the chat may be running at the same time)."""

    def __init__(
        self, chat: Chat, subscription: Subscription, *, after: int, reply_to_seq: int | None
    ) -> None:
        self.chat = chat
        self.subscription = subscription
        self.after = after
        self.reply_to_seq = reply_to_seq
        self.exhausted = False  # a resume ends with its reply's end event, or gives up

    def so_far(self) -> list[dict[str, Any]]:
        payloads = chat_events_after(self.chat, self.after, reply_to_seq=self.reply_to_seq)
        connection_release()
        if payloads:
            self.after = int(payloads[-1]["eventId"])
        return payloads

    def wait(self, until: float) -> list[dict[str, Any]]:
        batch = self.subscription.wait(until=until)
        if not batch:
            return []
        if self.reply_to_seq is None:  # events that do not name their reply: the chat's
            return [_payload(delivery.frame) for delivery in batch]
        return self.so_far()

    def close(self) -> None:
        self.subscription.close()


def _payload(frame: bytes) -> dict[str, Any]:
    """The MessageEvent of a framed event (chats/stream/framing.py)."""
    return orjson.loads(frame.split(b"\ndata: ", 1)[1])
