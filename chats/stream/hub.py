"""The per-process fan-out of new events to every open stream of that process.

One `Hub` per worker process (`process_hub.py`) knows which chats have open streams. Its listener (see
`listener.py`) gets new events for all of those chats, from their notifications or in one query
per wake-up, and hands each event, framed once, to every subscription of its chat. So the
database work grows with the number of events, not with the number of open streams.

Sequence order is not commit order: a transaction that took a lower `seq` may commit after one
that took a higher `seq`. The hub therefore never trusts "everything up to the highest seq seen"
at once. It keeps `floor`, a seq that was already committed `LATE_COMMIT_SECONDS` ago, reads
everything above `floor` that it has not seen yet (`known`), and only moves `floor` forward once
that time has passed; a new process starts from the highest seq of the events created that
long ago (`hub_subscribe`). An event committed longer than that after it was created or took its
sequence number could be missed by live streams (EventPublisher commits each event, or a buffered
reply's events, in one short statement); a reconnect with `Last-Event-ID` would still not send
it, since it is older than what the client saw.

The primitives are `threading`'s: under gunicorn's gevent worker they are monkey-patched into
greenlet ones, under `runserver` or the test client they are real threads.
"""

from __future__ import annotations

import logging
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
WAKE_SLICE = 100


@dataclass(frozen=True, slots=True)
class Delivery:
    seq: int
    created_at: datetime
    frame: bytes


class Subscription:
    """The events of one chat for one open stream, queued until the stream writes them.

    Kept small (thousands per process): a list guarded by the hub's lock, one flag to wait on.
    """

    __slots__ = ("_hub", "_items", "_ready", "chat_id", "closed", "wake_at")

    def __init__(self, hub: Hub, chat_id: UUID) -> None:
        self._hub = hub
        self._items: list[Delivery] = []
        self._ready = threading.Event()
        self.chat_id = chat_id
        self.closed = False
        self.wake_at = float("inf")

    def push(self, delivery: Delivery) -> None:
        """Called with the hub's lock held."""
        self._items.append(delivery)
        self._ready.set()

    def wait(self, until: float) -> list[Delivery]:
        """The events queued so far; when there are none, waits for one or for the hub's
        clock to pass `until` (a `time.monotonic()` value).

        The wait has no timeout of its own: one clock for the whole process wakes the streams
        whose time has come, which keeps an idle stream smaller than a timer each would.
        """
        self.wake_at = until
        if not self._items and not self.closed and time.monotonic() < until:
            self._ready.wait()
        with self._hub._lock:
            # Cleared under the lock that push() holds, so no wake-up is lost.
            self._ready.clear()
            items, self._items = self._items, []
        return items

    def wake(self) -> None:
        """Ends a wait() now, with whatever is queued (for a stream that also waits on
        something other than events: chats/ui/views.py, a reply finishing)."""
        self._ready.set()

    def end(self) -> None:
        """Called by the hub when the process shuts down: the stream ends, clients reconnect."""
        self.closed = True
        self._ready.set()

    def close(self) -> None:
        self._hub.unsubscribe(self)

    @property
    def server_stopping(self) -> bool:
        """Whether the stream ended because its process is stopping (not its client)."""
        return self._hub.stopped.is_set()

    @property
    def floor(self) -> int:
        return self._hub.floor or 0


class Hub:
    """Registry of subscriptions by chat, and the bookkeeping of which events were delivered."""

    def __init__(self, run_listener: Callable[[Hub], None], *, tick: float = 1.0) -> None:
        self._run_listener = run_listener
        self._tick = tick
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
                threading.Thread(target=self._run_clock, name="sse-clock", daemon=True).start()
        return subscription

    def _run_clock(self) -> None:
        """Wakes the streams that are due a keep-alive or their end, every `tick` seconds."""
        while not self.stopped.wait(self._tick):
            now = time.monotonic()
            with self._lock:
                due = [
                    subscription
                    for subscriptions in self._subscriptions.values()
                    for subscription in subscriptions
                    if subscription.wake_at <= now
                ]
            # Streams opened together come due together (thousands after a deploy): wake them
            # in slices, yielding in between, so live deliveries are not queued behind them all.
            for start in range(0, len(due), WAKE_SLICE):
                for subscription in due[start : start + WAKE_SLICE]:
                    subscription._ready.set()
                time.sleep(0.001)  # a timer, so the loop also polls I/O in between

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
        """Whether a notified event still has to be delivered."""
        return seq not in self.known and (self.floor is None or seq > self.floor)

    def start(self, floor: int) -> None:
        """Live delivery starts after `floor`, a seq committed before the first stream
        subscribed; each stream reads anything older itself (its replay) after subscribing."""
        if self.floor is None:
            self.floor = floor

    def deliver(
        self, *, top: int, events: Iterable[Event], full: bool = True, now: float | None = None
    ) -> None:
        """Hands new events to their chats' streams and, after a `full` read (of every
        followed chat), moves `floor` forward.

        `top` is a seq committed when the events were read or notified (the highest one, for
        a read): every transaction that took a lower seq had started by then.
        """
        now = time.monotonic() if now is None else now
        for event in events:
            if event.seq in self.known:
                continue
            self.known.add(event.seq)
            delivery = Delivery(event.seq, event.created_at, event_frame(event))
            with self._lock:
                for subscription in self._subscriptions.get(event.chat_id, ()):
                    subscription.push(delivery)
        self._marks.append((now, top))
        if not full:
            return
        floor = marked = self.floor or 0
        while self._marks and self._marks[0][0] <= now - LATE_COMMIT_SECONDS:
            marked = max(marked, self._marks.popleft()[1])
        # Never past what this read found committed: a mark above it came from a notification
        # no insert sent (any role that can connect may NOTIFY), and a floor there would keep
        # every later event from the streams.
        floor = max(floor, min(marked, top))
        if floor != self.floor:
            self.floor = floor
            self.known = {seq for seq in self.known if seq > floor}

    def stop(self, *, wait_seconds: float = 0.0) -> None:
        """Ends every open stream of this process and stops the listener; waits up to
        `wait_seconds` for the listener to have closed its connection."""
        with self._lock:
            self.stopped.set()
            subscriptions = [s for group in self._subscriptions.values() for s in group]
            self._subscriptions.clear()
            thread = self._thread
        for subscription in subscriptions:
            subscription.end()
        if thread is not None and wait_seconds > 0:
            thread.join(wait_seconds)
