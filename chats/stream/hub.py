"""The per-process fan-out of new events to every open stream of that process.

One `Hub` per worker process knows which chats have open streams. Its listener (see
`listener.py`) reads new events for all of those chats in one query per wake-up and hands each
event, framed once, to every subscription of its chat. So the database work grows with the
number of events, not with the number of open streams.

Sequence order is not commit order: a transaction that took a lower `seq` may commit after one
that took a higher `seq`. The hub therefore never trusts "everything up to the highest seq seen"
at once. It keeps `floor`, a seq that was already committed `LATE_COMMIT_SECONDS` ago, reads
everything above `floor` that it has not seen yet (`known`), and only moves `floor` forward once
that time has passed. An event whose transaction takes longer than that between taking its
sequence number and committing could be missed by live streams (EventPublisher commits each event
in its own short transaction); a reconnect with `Last-Event-ID` would still not send it, since it
is older than what the client saw.

The primitives are `threading`'s: under gunicorn's gevent worker they are monkey-patched into
greenlet ones, under `runserver` or the test client they are real threads.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from chats.models import Event
from chats.stream.framing import event_frame

logger = logging.getLogger("chats.stream")

LATE_COMMIT_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Delivery:
    seq: int
    created_at: datetime
    frame: bytes


class Subscription:
    """The events of one chat for one open stream, queued until the stream writes them."""

    __slots__ = ("_hub", "_items", "_ready", "chat_id", "closed")

    def __init__(self, hub: Hub, chat_id: UUID) -> None:
        self._hub = hub
        self._items: deque[Delivery] = deque()
        self._ready = threading.Event()
        self.chat_id = chat_id
        self.closed = False

    def push(self, delivery: Delivery) -> None:
        self._items.append(delivery)
        self._ready.set()

    def wait(self, timeout: float) -> list[Delivery]:
        """The events queued so far; waits up to `timeout` seconds when there are none."""
        if not self._items and not self.closed:
            self._ready.wait(timeout)
        # Clear before draining: a push after this line sets the flag again, so no wake-up is lost.
        self._ready.clear()
        items = []
        while self._items:
            items.append(self._items.popleft())
        return items

    def end(self) -> None:
        """Called by the hub when the process shuts down: the stream ends, clients reconnect."""
        self.closed = True
        self._ready.set()

    def close(self) -> None:
        self._hub.unsubscribe(self)

    @property
    def floor(self) -> int:
        return self._hub.floor or 0


class Hub:
    """Registry of subscriptions by chat, and the bookkeeping of which events were delivered."""

    def __init__(self, run_listener: Callable[[Hub], None]) -> None:
        self._run_listener = run_listener
        self._lock = threading.Lock()
        self._subscriptions: dict[UUID, set[Subscription]] = {}
        self._thread: threading.Thread | None = None
        self.stopped = threading.Event()
        # None until the listener has read the highest committed seq once.
        self.floor: int | None = None
        self.known: set[int] = set()
        self._marks: deque[tuple[float, int]] = deque()

    # --- streams' side ------------------------------------------------------------------

    def subscribe(self, chat_id: UUID) -> Subscription:
        subscription = Subscription(self, chat_id)
        with self._lock:
            if self.stopped.is_set():
                subscription.end()
                return subscription
            self._subscriptions.setdefault(chat_id, set()).add(subscription)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run_listener, args=(self,), name="sse-listener", daemon=True
                )
                self._thread.start()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            subscriptions = self._subscriptions.get(subscription.chat_id)
            if subscriptions is not None:
                subscriptions.discard(subscription)
                if not subscriptions:
                    del self._subscriptions[subscription.chat_id]

    def stream_count(self) -> int:
        with self._lock:
            return sum(len(subscriptions) for subscriptions in self._subscriptions.values())

    # --- listener's side ----------------------------------------------------------------

    def chats(self) -> list[UUID]:
        with self._lock:
            return list(self._subscriptions)

    def follows(self, chat_id: UUID) -> bool:
        return chat_id in self._subscriptions

    def is_new(self, seq: int) -> bool:
        """Whether a notified event still has to be read."""
        return seq not in self.known and (self.floor is None or seq > self.floor)

    def start(self, top: int) -> None:
        """Live delivery starts after `top`, a seq read before the first stream subscribed;
        each stream reads anything older itself (its replay) after subscribing."""
        if self.floor is None:
            self.floor = top

    def deliver(self, *, top: int, events: Iterable[Event], now: float | None = None) -> None:
        """Hands newly read events to their chats' streams and moves `floor` forward.

        `top` is the highest seq committed when the events were read: every transaction that
        took a lower seq had started by then.
        """
        now = time.monotonic() if now is None else now
        for event in events:
            if event.seq in self.known:
                continue
            self.known.add(event.seq)
            delivery = Delivery(event.seq, event.created_at, event_frame(event))
            with self._lock:
                subscriptions = list(self._subscriptions.get(event.chat_id, ()))
            for subscription in subscriptions:
                subscription.push(delivery)
        self._marks.append((now, top))
        floor = self.floor or 0
        while self._marks and self._marks[0][0] <= now - LATE_COMMIT_SECONDS:
            floor = max(floor, self._marks.popleft()[1])
        if floor != self.floor:
            self.floor = floor
            self.known = {seq for seq in self.known if seq > floor}

    def stop(self) -> None:
        """Ends every open stream of this process and stops the listener."""
        with self._lock:
            self.stopped.set()
            subscriptions = [s for group in self._subscriptions.values() for s in group]
            self._subscriptions.clear()
        for subscription in subscriptions:
            subscription.end()


_hub: Hub | None = None
_hub_pid: int | None = None
_hub_lock = threading.Lock()


def get_hub() -> Hub:
    """This process's hub (a forked worker builds its own)."""
    global _hub, _hub_pid
    with _hub_lock:
        if _hub is None or _hub_pid != os.getpid():
            from chats.stream.listener import run_listener

            _hub, _hub_pid = Hub(run_listener), os.getpid()
        return _hub


def shutdown_hub() -> None:
    """Ends this process's streams cleanly (gunicorn's graceful shutdown calls this)."""
    with _hub_lock:
        hub = _hub if _hub_pid == os.getpid() else None
    if hub is not None:
        hub.stop()
