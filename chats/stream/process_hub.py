"""This process's hub: made on first use, with the listener that feeds it (`listener.py`), and
made again in a forked worker, which must not share its parent's threads."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.utils import timezone

from chats.stream.hub import LATE_COMMIT_SECONDS, Hub, Subscription
from chats.stream.listener import run_listener

_hub: Hub | None = None
_hub_pid: int | None = None
_hub_lock = threading.Lock()


def get_hub() -> Hub:
    """This process's hub (a forked worker builds its own)."""
    global _hub, _hub_pid
    with _hub_lock:
        if _hub is None or _hub_pid != os.getpid():
            # Keep-alives and stream ends are on time to within a quarter of the keep-alive.
            tick = min(1.0, max(0.05, settings.SSE_KEEPALIVE_SECONDS / 4))
            _hub, _hub_pid = Hub(run_listener, tick=tick), os.getpid()
        return _hub


def hub_subscribe(chat_id: UUID, *, settled: Callable[[datetime], int]) -> Subscription:
    """A subscription to the chat's new events on this process's hub.

    The first stream of the process fixes where live delivery starts, before its own replay
    reads: `settled(before)`, the highest seq of an event created before `before`, taken
    `LATE_COMMIT_SECONDS` back. Not the highest committed seq: a reply that took lower seqs
    may still be committing (a worker started by a deploy opens its first streams while other
    workers write replies), and its events would be neither in the replay nor delivered live.
    The listener's first reads then cover those seconds; streams drop what they replayed."""
    hub = get_hub()
    if hub.floor is None:
        hub.start(settled(timezone.now() - timedelta(seconds=LATE_COMMIT_SECONDS)))
    return hub.subscribe(chat_id)


def shutdown_hub(*, wait_seconds: float = 0.0) -> None:
    """Ends this process's streams cleanly (gunicorn's graceful shutdown calls this); waits
    up to `wait_seconds` for its listener to have closed its connection."""
    with _hub_lock:
        hub = _hub if _hub_pid == os.getpid() else None
    if hub is not None:
        hub.stop(wait_seconds=wait_seconds)
