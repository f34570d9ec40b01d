"""One streamed model round: text deltas out as they arrive, tool calls assembled from pieces."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import openai

from infrastructure.turns import held_turn_end
from knowledge.engines.openai.config import OpenAIConfig, request_timeout
from knowledge.engines.openai.failures import (
    BAD_RESPONSE,
    PROVIDER_EXCEPTIONS,
    TIMEOUT,
    ModelFailure,
    failure_from_exception,
)

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam


_STREAM_END = object()


@dataclass
class ToolCall:
    id: str = ""
    name: str = ""
    arguments: str = ""  # JSON text, as the model wrote it


def round_stream(
    *,
    client: openai.OpenAI,
    config: OpenAIConfig,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    deadline: float,
    on_text: Callable[[str], None],
) -> list[ToolCall]:
    """Streams one completion; gives its text to `on_text` as it arrives, returns the tool
    calls. The text deltas that arrived together (ReadAhead) come as one piece.

    `deadline` (time.monotonic) bounds the whole reply: each request gets what is left of it,
    and it is checked on every chunk so a provider that trickles tokens cannot hold a worker.
    """
    held_turn_end()  # the next message goes in while this reply waits on the model
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _timeout(config)
    calls: dict[int, ToolCall] = {}
    finished = False
    try:
        # No tools at all rather than an empty list, which some servers refuse.
        options: dict[str, Any] = {"tools": tools} if tools else {}
        response = client.chat.completions.with_raw_response.create(
            model=config.model,
            # Plain JSON dicts shaped as the SDK's message TypedDicts (prompt.py builds them).
            messages=cast("list[ChatCompletionMessageParam]", messages),
            stream=True,
            timeout=request_timeout(remaining),
            **options,
        )
        # The chunks as the JSON the provider wrote: the SDK's own chunk objects cost a worker
        # about half its CPU time with 100 replies streaming (BENCHMARKS.md, "From a model's
        # token to the browser"); a few keys of each chunk are all a reply reads.
        with response.parse(to=openai.Stream[object]) as stream:
            for batch in ReadAhead(stream).batches(deadline, config):
                text: list[str] = []
                for chunk in batch:
                    choice = _first_choice(chunk)
                    if choice is None:
                        continue  # usage-only chunks of some providers
                    finished = finished or bool(choice.get("finish_reason"))
                    delta = _object(choice.get("delta"))
                    if content := _string(delta.get("content")):
                        text.append(content)
                    for piece in _list(delta.get("tool_calls")):
                        _merge(calls, _object(piece))
                if text:
                    on_text("".join(text))
    except PROVIDER_EXCEPTIONS as exc:
        raise failure_from_exception(exc, timeout=config.timeout) from None
    if not finished:
        # A stream that ends without a finish reason was cut (a dropped connection looks
        # like a normal end when the server closes it without chunked encoding).
        raise ModelFailure(BAD_RESPONSE, "The language model's answer was cut off")
    return [calls[index] for index in sorted(calls)]


class ReadAhead:
    """Reads a model's stream in a thread of its own (a greenlet in the gevent workers), so
    the chunks that arrive while the reply is busy (writing the event of the last piece, or
    waiting for the CPU) are handed over together: their text becomes one event instead of
    one each. A chunk that arrives while the reply waits is handed over at once, alone."""

    def __init__(self, stream: Iterable[Any]) -> None:
        self._stream = stream
        self._queue: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, name="model-read-ahead", daemon=True).start()

    def _read(self) -> None:
        try:
            for chunk in self._stream:
                self._queue.put(chunk)
            self._queue.put(_STREAM_END)
        except BaseException as exc:  # handed to the reply, which raises it
            self._queue.put(exc)

    def batches(self, deadline: float, config: OpenAIConfig) -> Iterator[list[Any]]:
        """The chunks in order, in batches of those already arrived; each wait is bounded
        by `deadline` (time.monotonic), so a provider that trickles cannot hold a worker."""
        while True:
            left = deadline - time.monotonic()
            if left < 0:
                raise _timeout(config)
            try:
                first = self._queue.get(timeout=left)
            except queue.Empty:
                raise _timeout(config) from None
            batch = [first]
            with contextlib.suppress(queue.Empty):
                while True:
                    batch.append(self._queue.get_nowait())
            for index, item in enumerate(batch):
                if item is _STREAM_END or isinstance(item, BaseException):
                    if index:
                        yield batch[:index]
                    if isinstance(item, BaseException):
                        raise item
                    return
            yield batch


def _merge(calls: dict[int, ToolCall], piece: dict[str, Any]) -> None:
    """Adds one `tool_calls` delta: the first piece has id and name, later ones more arguments."""
    index = piece.get("index")
    if index is None:  # servers that send each call whole, without an index
        index = len(calls) if piece.get("id") or not calls else max(calls)
    elif type(index) is not int:
        raise ValueError("a tool call's index is not a number")
    call = calls.setdefault(index, ToolCall())
    if piece_id := _string(piece.get("id")):
        call.id = piece_id
    function = _object(piece.get("function"))
    name = _string(function.get("name"))
    if name and name != call.name:
        call.name += name
    call.arguments += _string(function.get("arguments"))


# A chunk is JSON as the provider wrote it; a value of the wrong kind is an unreadable answer
# (ValueError, which the reply reports as BAD_RESPONSE), never a crash of ours.


def _first_choice(chunk: object) -> dict[str, Any] | None:
    choices = _list(_object(chunk).get("choices"))
    return _object(choices[0]) if choices else None


def _object(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("a chunk holds a value that is not an object")
    return value


def _list(value: object) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("a chunk holds a value that is not a list")
    return value


def _string(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError("a chunk holds a value that is not a text")
    return value


def _timeout(config: OpenAIConfig) -> ModelFailure:
    return ModelFailure(TIMEOUT, f"The language model did not answer within {config.timeout:g} s")
