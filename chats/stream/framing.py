"""Server-sent event framing (docs/api.md#framing): `retry`, `id` + `data`, keep-alive comments."""

from __future__ import annotations

import random

import orjson

from chats.events import event_payload
from chats.models import Event

# Browsers wait this long before reconnecting after the stream ends.
RETRY = b"retry: 3000\n\n"
KEEP_ALIVE = b": keep-alive\n\n"
# A stream ended by its server process stopping (a deploy) asks for a reconnection within this
# many milliseconds instead, spread so that the process's clients do not all come at once.
STOPPING_RETRY_MS = (250, 1250)


def stopping_retry() -> bytes:
    """The `retry` a stream sends last when its server process stops."""
    return b"retry: %d\n\n" % random.randrange(*STOPPING_RETRY_MS)


def event_frame(event: Event) -> bytes:
    """One event: `id:` and `data:` lines and a blank line; no `event:` line, so
    `EventSource.onmessage` receives every event. orjson escapes newlines in strings, so the
    JSON always fits on one `data:` line."""
    return b"id: %d\ndata: %s\n\n" % (event.seq, orjson.dumps(event_payload(event)))
