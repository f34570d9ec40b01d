"""Publishing a reply as events (docs/api.md#events-of-a-reply): tool calls, then the text in
chunks.

Chunks are cut on purpose: at word boundaries, about 40-80 characters, ending at a line or
sentence end when one is near, so a UI shows whole words and each chunk costs one event row.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings

from knowledge.engines.base import EventSink

MIN_CHUNK = 40
MAX_CHUNK = 80
T = TypeVar("T")


def text_chunks(text: str) -> list[str]:
    """Pieces of `text` whose concatenation is exactly `text`."""
    chunks: list[str] = []
    start = 0
    while start < len(text):
        if len(text) - start <= MAX_CHUNK:
            chunks.append(text[start:])
            break
        window = text[start : start + MAX_CHUNK]
        cut = -1
        for marker in ("\n", ". ", "! ", "? ", ": ", ", "):
            position = window.rfind(marker, MIN_CHUNK - len(marker))
            if position != -1:
                cut = position + len(marker)
                break
        if cut == -1:
            space = window.rfind(" ", MIN_CHUNK // 2)
            cut = space + 1 if space != -1 else MAX_CHUNK
        chunks.append(text[start : start + cut])
        start += cut
    return chunks


def publish_text(publisher: EventSink, text: str) -> None:
    """The reply as `inProgress` chunks, then `completed` with the whole text."""
    delay = settings.ASSISTANT_STREAM_CHUNK_DELAY_MS / 1000
    for index, chunk in enumerate(text_chunks(text)):
        if index and delay > 0:
            time.sleep(delay)  # a readable typing pace for UIs (setting; 0 by default)
        publisher.chunk(chunk)
    publisher.completed(text)


class ToolCalls:
    """Runs tools with their start and end published around them."""

    def __init__(self, publisher: EventSink) -> None:
        self.publisher = publisher
        self.names: list[str] = []

    def run(
        self,
        name: str,
        args: dict[str, Any],
        call: Callable[[], T],
        response_of: Callable[[T], dict[str, Any]],
    ) -> T:
        self.publisher.tool_started(name, args)
        try:
            result = call()
        except Exception as exc:
            self.publisher.tool_failed(name, args, f"{name} failed: {type(exc).__name__}")
            raise
        self.publisher.tool_finished(name, args, response_of(result))
        self.names.append(name)
        return result
