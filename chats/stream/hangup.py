"""Noticing at once that a stream's client went away, not at the next keep-alive.

A stream only writes now and then, and only a write finds a closed connection; until then its
place (chats/stream/places.py) stayed taken for up to `SSE_KEEPALIVE_SECONDS`. A client sends
nothing on a stream's connection, so the socket turning readable with nothing to read means
the client closed it. A watcher on the gevent loop (no greenlet) peeks at the socket then; a
client that does send something is left to the next keep-alive.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from infrastructure.worker_tuning import in_gevent_worker

READ = 1  # libev's EV_READ


def watch_hangup(client: Any, hung_up: Callable[[], None]) -> Callable[[], None] | None:
    """Calls `hung_up` once, from the event loop, when `client` (the request's socket, a
    gevent socket) is closed by the other side; returns what stops watching, or None when this
    is not a gevent worker."""
    raw = getattr(client, "_sock", None)  # the non-blocking socket under the gevent one
    if raw is None or not in_gevent_worker():
        return None
    import gevent

    watcher = gevent.get_hub().loop.io(raw.fileno(), READ)

    def readable() -> None:
        try:
            data = raw.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        watcher.stop()
        if not data:
            hung_up()

    watcher.start(readable)
    return watcher.close
