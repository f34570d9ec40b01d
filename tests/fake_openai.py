"""A loopback server speaking the OpenAI Chat Completions protocol, scripted per test.

It stands in for the language-model provider we cannot reach from tests (no network). Each
request to `POST /v1/chat/completions` takes the next scripted step: a streamed answer
(`stream: true` gives SSE chunks ending with `data: [DONE]`, otherwise one JSON completion),
tool calls whose `arguments` are split across several chunks, an HTTP error, a stall (for
timeouts) or a connection dropped mid-stream. Every request is recorded for assertions.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "fake-model"


@dataclass
class Step:
    """One scripted response."""

    text: list[str] = field(default_factory=list)  # content deltas, in order
    # (name, arguments) where arguments is a dict (sent as JSON) or a raw string.
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    status: int = 200  # a non-200 status answers with `error_body` instead of a completion
    error_body: dict[str, Any] | None = None
    stall_before: float = 0.0  # seconds to wait before answering at all
    stall_after_chunks: int | None = None  # stall after sending this many SSE chunks
    stall_seconds: float = 0.0
    drop_after_chunks: int | None = None  # close the connection after this many chunks
    arg_pieces: int = 3  # how many chunks each tool call's arguments are split into
    pace: float = 0.0  # seconds between chunks (0: all at once, as fast as the socket takes)
    # Hold the stream after this many chunks until the test sets `gate` (ordering tests).
    gate_after_chunks: int | None = None
    gate: threading.Event | None = None
    # Chunks sent as they are instead of those of `text` and `tool_calls` (malformed answers).
    raw_chunks: list[Any] | None = None


def text(*parts: str) -> Step:
    return Step(text=list(parts))


def tools(*calls: tuple[str, Any], pieces: int = 3, said: tuple[str, ...] = ()) -> Step:
    """Tool calls (arguments split into `pieces` chunks), after the text deltas `said`."""
    return Step(text=list(said), tool_calls=list(calls), arg_pieces=pieces)


def error(status: int, message: str = "provider error") -> Step:
    return Step(
        status=status, error_body={"error": {"message": message, "type": "error", "code": None}}
    )


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeOpenAI:
    """The server; use `fake_openai_server()` to run one for a test."""

    def __init__(self) -> None:
        self.script: deque[Step] = deque()
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def add(self, *steps: Step) -> None:
        self.script.extend(steps)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                fake.requests.append(
                    Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                if not self.path.endswith("/chat/completions"):
                    return self._json(404, {"error": {"message": f"unknown path {self.path}"}})
                if not fake.script:
                    return self._json(500, {"error": {"message": "fake: nothing scripted"}})
                step = fake.script.popleft()
                # The client may give up first (a timeout test): nothing to do then.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._answer(step, stream=bool(body.get("stream")))

            def _answer(self, step: Step, *, stream: bool) -> None:
                if step.stall_before and fake.stopping.wait(step.stall_before):
                    return
                if step.status != 200:
                    return self._json(step.status, step.error_body or {})
                if not stream:
                    return self._json(200, completion(step))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                for sent, chunk in enumerate(stream_chunks(step)):
                    if sent == step.drop_after_chunks:
                        self.wfile.flush()
                        self.connection.shutdown(2)
                        return
                    if sent == step.stall_after_chunks and fake.stopping.wait(step.stall_seconds):
                        return
                    if sent == step.gate_after_chunks and step.gate is not None:
                        deadline = time.monotonic() + 30
                        while not step.gate.wait(0.05):
                            if fake.stopping.is_set() or time.monotonic() > deadline:
                                return
                    if sent and step.pace and fake.stopping.wait(step.pace):
                        return
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _arguments(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _split(text: str, pieces: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def stream_chunks(step: Step) -> Iterator[Any]:
    """The SSE chunks of a step, as a real provider sends them: role first, then deltas."""
    if step.raw_chunks is not None:
        yield from step.raw_chunks
        return
    yield _chunk({"role": "assistant", "content": ""})
    for piece in step.text:
        yield _chunk({"content": piece})
    for index, (name, arguments) in enumerate(step.tool_calls):
        # The first delta of a call carries its id and name; the arguments follow in pieces.
        yield _chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": f"call_{index}",
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ]
            }
        )
        for piece in _split(_arguments(arguments), step.arg_pieces):
            yield _chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield _chunk({}, "tool_calls" if step.tool_calls else "stop")


def completion(step: Step) -> dict[str, Any]:
    """The non-streamed completion of a step."""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(step.text) or None}
    if step.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": name, "arguments": _arguments(arguments)},
            }
            for index, (name, arguments) in enumerate(step.tool_calls)
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if step.tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@contextmanager
def fake_openai_server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    fake.thread.start()
    try:
        yield fake
    finally:
        fake.stopping.set()
        fake.httpd.shutdown()
        fake.httpd.server_close()
