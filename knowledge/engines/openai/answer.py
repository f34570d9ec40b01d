"""The model's answer: shopper-facing text streamed live, and a structured block held back.

The system prompt asks the model to end its answer with a fenced ```json block naming the
products it recommends (by GTIN) and follow-up suggestions. That block is for us, not the
shopper, so text is streamed as it arrives except for anything that could be the start of the
block (and trailing white space), which waits until the next delta tells. The chunks streamed
therefore always concatenate to exactly the reply's final `content` (docs/api.md#events-of-a-reply).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MARKER = "```json"
ROUND_SEPARATOR = "\n\n"
MAX_SUGGESTIONS = 4
MAX_SUGGESTION_CHARS = 200


@dataclass
class Structured:
    """What the model's trailing block says; empty when it wrote none or an unreadable one."""

    gtins: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)


class AnswerSplitter:
    """Feeds text deltas in, gives back the part that is safe to stream now."""

    def __init__(self) -> None:
        self.content = ""  # everything given back so far: the reply text
        self.pending = ""  # held back: may be white space or the start of the marker
        self.block: str | None = None  # raw text after the marker, once seen
        self.blocks: list[str] = []  # blocks of finished rounds
        self.round_has_text = False
        self.separate = False

    def new_round(self) -> str:
        """Called between tool rounds: text of the next round is a new paragraph."""
        flushed = self._flush_pending()
        if self.block is not None:
            self.blocks.append(self.block)
            self.block = None
        self.separate = bool(self.content)
        return flushed

    def feed(self, delta: str) -> str:
        if self.block is not None:
            self.block += delta
            return ""
        self.pending += delta
        index = self.pending.lower().find(MARKER)
        if index >= 0:
            self.block = self.pending[index + len(MARKER) :]
            safe, self.pending = self.pending[:index].rstrip(), ""
            return self._give(safe)
        hold = len(self.pending)
        for size in range(min(len(MARKER) - 1, len(self.pending)), 0, -1):
            if MARKER.startswith(self.pending[-size:].lower()):
                hold -= size
                break
        safe = self.pending[:hold].rstrip()
        self.pending = self.pending[len(safe) :]
        return self._give(safe)

    def finish(self) -> str:
        """The last text to stream; afterwards `content` is the whole reply."""
        flushed = self._flush_pending()
        if self.block is not None:
            self.blocks.append(self.block)
            self.block = None
        return flushed

    def structured(self) -> Structured:
        """The last readable block of the answer."""
        for raw in reversed(self.blocks):
            parsed = structured_parse(raw)
            if parsed is not None:
                return parsed
        return Structured()

    def _flush_pending(self) -> str:
        safe, self.pending = self.pending.rstrip(), ""
        return self._give(safe)

    def _give(self, safe: str) -> str:
        if not safe:
            return ""
        if not self.content:
            safe = safe.lstrip()
            if not safe:
                return ""
        elif self.separate:
            safe = ROUND_SEPARATOR + safe.lstrip()
        self.separate = False
        self.content += safe
        return safe


def structured_parse(raw: str) -> Structured | None:
    """Reads `{"products": [gtin, ...], "suggestions": [text, ...]}` from a block's text."""
    body = raw.split("```", 1)[0]
    # From the first "{" to the last "}": what a search for `\{.*\}` finds, without its
    # quadratic retries on a text of many "{" and no "}".
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        data = json.loads(body[start : end + 1])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return Structured(
        gtins=_strings(data.get("products"), limit=50, max_chars=50),
        suggestions=_strings(
            data.get("suggestions"), limit=MAX_SUGGESTIONS, max_chars=MAX_SUGGESTION_CHARS
        ),
    )


def _strings(value: Any, *, limit: int, max_chars: int) -> list[str]:
    """Distinct non-empty strings (numbers accepted: models write GTINs as numbers too)."""
    if not isinstance(value, list):
        return []
    seen: list[str] = []
    for item in value:
        if isinstance(item, dict):  # {"gtin": ...} is a common variation
            item = item.get("gtin")
        if isinstance(item, bool) or not isinstance(item, str | int):
            continue
        text = " ".join(str(item).split())
        if text and len(text) <= max_chars and text.lower() not in {s.lower() for s in seen}:
            seen.append(text)
        if len(seen) == limit:
            break
    return seen
