"""Server-sent event framing (docs/api.md#framing): `retry`, `id` + `data`, keep-alive comments."""

from __future__ import annotations

import orjson

from chats.events import event_payload
from chats.models import Event

# Browsers wait this long before reconnecting after the stream ends.
RETRY = b"retry: 3000\n\n"
KEEP_ALIVE = b": keep-alive\n\n"


def event_frame(event: Event) -> bytes:
    """One event: `id:` and `data:` lines and a blank line; no `event:` line, so
    `EventSource.onmessage` receives every event. orjson escapes newlines in strings, so the
    JSON always fits on one `data:` line."""
    return b"id: %d\ndata: %s\n\n" % (event.seq, orjson.dumps(event_payload(event)))
