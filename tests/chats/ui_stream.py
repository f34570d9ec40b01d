"""Reading the AI SDK UI message stream in tests: its `data:` chunks, in order."""

from __future__ import annotations

import json
from typing import Any

import httpx


def ui_chat_body(chat_id: str, text: str, *, ui_id: str = "u1", **extra: Any) -> dict[str, Any]:
    """What useChat's DefaultChatTransport sends for a new message."""
    return {
        "id": chat_id,
        "messages": [{"id": ui_id, "role": "user", "parts": [{"type": "text", "text": text}]}],
        "trigger": "submit-message",
        "messageId": None,
        **extra,
    }


def read_chunks(response: httpx.Response) -> list[Any]:
    """Every `data:` payload of the stream until it ends (`[DONE]` as the string)."""
    chunks: list[Any] = []
    for line in response.iter_lines():
        if line.startswith("data: "):
            data = line.removeprefix("data: ")
            chunks.append(data if data == "[DONE]" else json.loads(data))
    return chunks


def types(chunks: list[Any]) -> list[str]:
    return [chunk if isinstance(chunk, str) else chunk["type"] for chunk in chunks]
