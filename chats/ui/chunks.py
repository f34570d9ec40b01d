"""One reply as the AI SDK's UI message stream: MessageEvents in, UI message chunks out.

The AI SDK's client (`readUIMessageStream`, `useChat`) checks every chunk against a strict
schema, so only its chunk types are written: the reply's tool calls as `tool-input-available`
and `tool-output-available` (or `tool-output-error`) with one `toolCallId`, marked `dynamic`
since the page declares no tools of ours; its text as `text-start`, `text-delta`s and
`text-end`; the stored reply's products and suggestions as `data-products` and
`data-suggestions`. The wire is server-sent events, one `data:` line per chunk, ending with
`data: [DONE]`.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import orjson

from chats.models import EventStatus

DONE = b"data: [DONE]\n\n"
HEADERS = {
    "x-vercel-ai-ui-message-stream": "v1",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}
Chunk = dict[str, Any]


def chunk_frame(chunks: list[Chunk]) -> bytes:
    return b"".join(b"data: %s\n\n" % orjson.dumps(chunk) for chunk in chunks)


def reply_message_id(first_event_id: str) -> str:
    """The UI message id of a reply: from its first event, so the POST's stream and a resumed
    one name the same message."""
    return f"reply-{first_event_id}"


class ReplyChunks:
    """The chunks of one reply, fed its events in order (`event`), then its stored answer
    (`finish`) or its failure (`failure`)."""

    def __init__(self) -> None:
        self.started = False
        self.ended = False
        self.failed: str | None = None
        self._text_open = False
        self._text_closed = False
        self._text = ""
        self._calls: dict[str, deque[str]] = {}
        self._call_count = 0

    @property
    def text(self) -> str:
        """The text sent so far (all of it, once the reply's `completed` event is handled)."""
        return self._text

    def start(self, message_id: str) -> list[Chunk]:
        self.started = True
        return [{"type": "start", "messageId": message_id}, {"type": "start-step"}]

    def event(self, payload: dict[str, Any]) -> list[Chunk]:
        """The chunks of one MessageEvent (docs/api.md#events-of-a-reply: typing, tools, text, end)."""
        if self.ended:
            return []
        status = payload["status"]
        tool = payload.get("toolName")
        if tool:
            return self._tool(payload, status, tool)
        content = payload.get("content")
        if status == EventStatus.IN_PROGRESS:
            return self._delta(content) if content else []  # no content: "typing"
        self.ended = True
        if status == EventStatus.COMPLETED:
            return self._text_rest(content or "")
        self.failed = content or "The assistant could not complete the response"
        return []

    def finish(self, answer: dict[str, Any] | None) -> list[Chunk]:
        """The end of a reply that was stored: its text completed from the stored answer
        (the events may have been cut short), its data parts, `finish-step`, `finish`."""
        chunks: list[Chunk] = []
        if answer is not None:
            chunks += self._text_rest(answer.get("content", ""))
            if answer.get("products"):
                chunks.append(
                    {"type": "data-products", "id": "products", "data": answer["products"]}
                )
            if answer.get("suggestions"):
                chunks.append(
                    {"type": "data-suggestions", "id": "suggestions", "data": answer["suggestions"]}
                )
        chunks += self._text_end()
        chunks += [{"type": "finish-step"}, {"type": "finish", "finishReason": "stop"}]
        self.ended = True
        return chunks

    def failure(self, description: str) -> list[Chunk]:
        self.ended = True
        return [{"type": "error", "errorText": description}]

    def _tool(self, payload: dict[str, Any], status: str, tool: str) -> list[Chunk]:
        pending = self._calls.setdefault(tool, deque())
        if status == EventStatus.IN_PROGRESS:
            call_id = self._next_call_id(payload)
            pending.append(call_id)
            return [self._tool_input(call_id, tool, payload)]
        chunks: list[Chunk] = []
        if pending:
            call_id = pending.popleft()
        else:  # its start was not seen (a stream joined late): the call in one piece
            call_id = self._next_call_id(payload)
            chunks.append(self._tool_input(call_id, tool, payload))
        if status == EventStatus.COMPLETED:
            chunks.append(
                {
                    "type": "tool-output-available",
                    "toolCallId": call_id,
                    "output": payload.get("toolResponse"),
                    "dynamic": True,
                }
            )
        else:
            chunks.append(
                {
                    "type": "tool-output-error",
                    "toolCallId": call_id,
                    "errorText": payload.get("content") or f"{tool} failed",
                    "dynamic": True,
                }
            )
        return chunks

    def _next_call_id(self, payload: dict[str, Any]) -> str:
        self._call_count += 1
        return f"call-{payload.get('eventId', self._call_count)}"

    @staticmethod
    def _tool_input(call_id: str, tool: str, payload: dict[str, Any]) -> Chunk:
        return {
            "type": "tool-input-available",
            "toolCallId": call_id,
            "toolName": tool,
            "input": payload.get("toolArgs") or {},
            "dynamic": True,
        }

    def _delta(self, text: str) -> list[Chunk]:
        if self._text_closed:
            return []
        chunks: list[Chunk] = []
        if not self._text_open:
            self._text_open = True
            chunks.append({"type": "text-start", "id": "text"})
        self._text += text
        chunks.append({"type": "text-delta", "id": "text", "delta": text})
        return chunks

    def _text_rest(self, whole: str) -> list[Chunk]:
        """What `whole` adds to the text sent so far, then `text-end`."""
        if self._text_closed:
            return []
        rest = whole[len(self._text) :] if whole.startswith(self._text) else ""
        chunks = self._delta(rest) if rest or not self._text_open else []
        return chunks + self._text_end()

    def _text_end(self) -> list[Chunk]:
        if not self._text_open or self._text_closed:
            return []
        self._text_closed = True
        return [{"type": "text-end", "id": "text"}]
