"""This process's hub: made on first use, with the listener that feeds it (`listener.py`), and
made again in a forked worker, which must not share its parent's threads."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from uuid import UUID

from django.conf import settings

from chats.stream.hub import Hub, Subscription
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


def hub_subscribe(chat_id: UUID, *, top: Callable[[], int]) -> Subscription:
    """A subscription to the chat's new events on this process's hub. The first stream of
    the process fixes where live delivery starts (`top()`, the highest committed seq), before
    its own replay reads, so nothing committed in between is missed."""
    hub = get_hub()
    if hub.floor is None:
        hub.start(top())
    return hub.subscribe(chat_id)


def shutdown_hub() -> None:
    """Ends this process's streams cleanly (gunicorn's graceful shutdown calls this)."""
    with _hub_lock:
        hub = _hub if _hub_pid == os.getpid() else None
    if hub is not None:
        hub.stop()
