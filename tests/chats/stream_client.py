"""A test-side reader of the event stream: a real SSE client (httpx-sse) in a background thread.

The test publishes or posts in its own thread while the reader collects what the server sends.
"""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import ServerSentEvent, connect_sse

END = object()


@dataclass
class StreamReader:
    """Reads `url` with httpx-sse; `raw=True` keeps the bytes as sent (comments included)."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    raw: bool = False
    read_timeout: float = 30.0

    def __post_init__(self) -> None:
        self.items: queue.Queue[Any] = queue.Queue()
        self.opened = threading.Event()
        self.ended = threading.Event()
        self.error: BaseException | None = None
        self.status_code: int | None = None
        self.retry: int | None = None
        self.response_headers: httpx.Headers | None = None
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=self.read_timeout))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._closing = False
        self._socket: socket.socket | None = None

    def start(self) -> StreamReader:
        self._thread.start()
        if not self.opened.wait(15):
            raise AssertionError("the stream did not open")
        return self

    def _run(self) -> None:
        try:
            if self.raw:
                with self._client.stream("GET", self.url, headers=self.headers) as response:
                    self._opened(response)
                    for chunk in response.iter_raw():
                        self.items.put(chunk)
            else:
                # A copy: connect_sse adds its Accept header to the dict it is given.
                with connect_sse(
                    self._client, "GET", self.url, headers=dict(self.headers)
                ) as source:
                    self._opened(source.response)
                    for sse in source.iter_sse():
                        if sse.retry is not None:
                            self.retry = sse.retry
                        # As in EventSource: a block without data dispatches no event.
                        if sse.data:
                            self.items.put(sse)
        except BaseException as exc:
            if not self._closing:
                self.error = exc
        finally:
            self.opened.set()
            self.ended.set()
            self.items.put(END)

    def _opened(self, response: httpx.Response) -> None:
        self.status_code = response.status_code
        self.response_headers = response.headers
        self._socket = response.extensions["network_stream"].get_extra_info("socket")
        self.opened.set()

    def events(self, count: int, timeout: float = 20) -> list[ServerSentEvent]:
        """The next `count` events; fails if they do not all come within `timeout`."""
        got: list[ServerSentEvent] = []
        deadline = time.monotonic() + timeout
        while len(got) < count:
            item = self._next(deadline)
            if item is END:
                raise AssertionError(f"stream ended after {len(got)} of {count} events")
            got.append(item)
        return got

    def events_until(self, predicate, timeout: float = 20) -> list[ServerSentEvent]:
        """Events up to and including the first one whose payload matches `predicate`."""
        got: list[ServerSentEvent] = []
        deadline = time.monotonic() + timeout
        while True:
            item = self._next(deadline)
            if item is END:
                raise AssertionError(f"stream ended after {len(got)} events")
            got.append(item)
            if predicate(json.loads(item.data)):
                return got

    def rest(self, timeout: float = 20) -> list[Any]:
        """Everything until the server ends the stream."""
        got: list[Any] = []
        deadline = time.monotonic() + timeout
        while (item := self._next(deadline)) is not END:
            got.append(item)
        return got

    def quiet_for(self, seconds: float) -> list[Any]:
        """What arrives within `seconds` (for checking that nothing more comes)."""
        got: list[Any] = []
        deadline = time.monotonic() + seconds
        while True:
            try:
                item = self.items.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return got
            if item is END:
                self.items.put(END)
                return got
            got.append(item)

    def _next(self, deadline: float) -> Any:
        try:
            return self.items.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError("timed out waiting for the stream") from None

    def close(self) -> None:
        """Disconnects, as a browser tab that goes away (the server notices on its next write)."""
        self._closing = True
        if self._socket is not None:
            # Closing the client alone would not wake the thread blocked reading this socket.
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
        self._client.close()
        self._thread.join(5)

    def __enter__(self) -> StreamReader:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class ResumingClient:
    """An EventSource: reconnects when the stream ends or breaks, sending Last-Event-ID."""

    def __init__(self, url: str, key: str, *, reconnect_delay: float = 0.2) -> None:
        self.url = url
        self.key = key
        self.reconnect_delay = reconnect_delay
        self.ids: list[int] = []
        self.opens: list[int] = []  # the status of each (re)connection
        self.stopping = threading.Event()
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        with httpx.Client(timeout=httpx.Timeout(10, read=30)) as client:
            while not self.stopping.is_set():
                headers = {"x-api-key": self.key}
                if self.ids:
                    headers["Last-Event-ID"] = str(self.ids[-1])
                try:
                    with connect_sse(client, "GET", self.url, headers=headers) as source:
                        self.opens.append(source.response.status_code)
                        self.opened.set()
                        for sse in source.iter_sse():
                            if sse.data:
                                self.ids.append(int(sse.id))
                            if self.stopping.is_set():
                                return
                except httpx.HTTPError:
                    self.opens.append(0)
                # The server asks for 3 s (`retry:`); tests need not wait so long.
                self.stopping.wait(self.reconnect_delay)


def payloads(events: list[ServerSentEvent]) -> list[dict[str, Any]]:
    return [json.loads(event.data) for event in events]
