"""The token path's floor: the least work any service of this stack does to bring a model's
tokens to an event stream, for `bench/token_latency.py --floor` to measure beside the service.

A bare WSGI application served like the service (gunicorn, gevent workers), on the same paths
and the same tables, with no middleware, authentication, validation, quota, history, engine or
event writer. A message stores the shopper's text as an event, streams a model's reply from
the loopback model server (raw socket, SSE lines, JSON), stores the tokens as events, each with
its NOTIFY (the tokens that arrived while the last was written in one event, as the service
coalesces them), and stores the answer. The tokens' events of all the worker's replies waiting
are written in one autocommit statement, as the service's event writer does
(`FLOOR_GROUP_COMMIT=0`: each reply writes its own). Each worker has one listener that
LISTENs, reads each notification's payload (the event itself) and hands its frame to the open
streams of its chat. What the floor leaves out, the service must do; a target the floor misses
on a machine is one that doing less work alone would not reach there.

    gunicorn -k gevent -w 2 bench.token_floor:app   # DATABASE_URL, FLOOR_MODEL_URL set

Never part of the service: nothing imports it but the benchmark's server command.
"""

from __future__ import annotations

import json
import os
import re
import socket
from datetime import UTC, datetime
from urllib.parse import urlsplit

import gevent
import psycopg
from gevent.event import AsyncResult
from gevent.event import Event as GeventEvent
from gevent.queue import Empty, Queue
from psycopg_pool import ConnectionPool

CHANNEL = "chat_events_floor"
PATH = re.compile(r"^/v1/chats/([0-9a-f-]{36})/messages(/events)?$")
INSERT = (
    "WITH e AS (INSERT INTO chats_event (chat_id, status, tool_name, content, created_at) "
    "VALUES (%s, 'inProgress', '', %s, %s) RETURNING seq, chat_id, status, content, created_at) "
    "SELECT e.seq, pg_notify(%s, e.chat_id::text || ':' || e.seq::text || ':' "
    "|| json_build_array(e.status, e.content, e.created_at)::text), "
    "set_config('synchronous_commit', 'off', true) FROM e"
)
KEEP = (
    "INSERT INTO chats_event (chat_id, status, tool_name, content, created_at) "
    "VALUES (%s, 'completed', '', %s, %s)"
)
INSERT_MANY = (
    "WITH e AS (INSERT INTO chats_event (chat_id, status, tool_name, content, created_at) "
    "SELECT c::uuid, 'inProgress', '', t, a "
    "FROM unnest(%s::text[], %s::text[], %s::timestamptz[]) AS u(c, t, a) "
    "RETURNING seq, chat_id, status, content, created_at) "
    "SELECT e.seq, pg_notify(%s, e.chat_id::text || ':' || e.seq::text || ':' "
    "|| json_build_array(e.status, e.content, e.created_at)::text), "
    "set_config('synchronous_commit', 'off', true) FROM e"
)

_pool: ConnectionPool | None = None
_streams: dict[str, set[Queue]] = {}


def app(environ, start_response):
    if environ["PATH_INFO"] == "/healthz":
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]
    match = PATH.match(environ["PATH_INFO"])
    if match is None:
        start_response("404 Not Found", [("Content-Length", "0")])
        return [b""]
    chat_id, events = match.groups()
    if events:
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        return _stream(chat_id)
    body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
    _reply(chat_id, body["message"])
    start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", "2")])
    return [b"{}"]


def _reply(chat_id: str, message: str) -> None:
    """Stores the message, then each piece of the answer as it comes (what arrived while the
    last piece was written, in one event: a reply that fell behind catches up), then the
    answer."""
    arrived: Queue = Queue()
    words: list[str] = []
    with _database().connection() as conn:
        conn.autocommit = True
        _keep(conn, chat_id, message)
        reader = gevent.spawn(_read_into, arrived, message)
        ended = False
        while not ended:
            texts = [arrived.get()]
            while not arrived.empty():
                texts.append(arrived.get_nowait())
            ended = texts[-1] is None
            texts = [text for text in texts if text is not None]
            if texts:
                words += texts
                if _GROUPED:
                    _WRITER.write(chat_id, "".join(texts))
                else:
                    _store(conn, chat_id, "".join(texts))
        _keep(conn, chat_id, "".join(words))
    reader.get()


def _read_into(arrived: Queue, message: str) -> None:
    try:
        for text in _model_tokens(message):
            arrived.put(text)
    finally:
        arrived.put(None)


def _store(conn, chat_id: str, content: str) -> None:
    conn.execute(INSERT, (chat_id, content, datetime.now(UTC), CHANNEL)).fetchall()


def _keep(conn, chat_id: str, content: str) -> None:
    """A durable record (the message, the answer), notifying no one: a durable commit that
    notified would hold NOTIFY's lock, and every reply's next token, across its WAL flush."""
    conn.execute(KEEP, (chat_id, content, datetime.now(UTC)))


class _Writer:
    """One per worker: writes the pieces of every reply waiting in one statement."""

    def __init__(self) -> None:
        self._waiting: list[tuple[str, str, datetime, AsyncResult]] = []
        self._wake = GeventEvent()
        self._greenlet: gevent.Greenlet | None = None

    def write(self, chat_id: str, content: str) -> None:
        done = AsyncResult()
        self._waiting.append((chat_id, content, datetime.now(UTC), done))
        if self._greenlet is None:
            self._greenlet = gevent.spawn(self._run)
        self._wake.set()
        done.get()

    def _run(self) -> None:
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
            while True:
                self._wake.wait()
                self._wake.clear()
                rows, self._waiting = self._waiting, []
                try:
                    columns = [list(column) for column in zip(*rows, strict=True)][:3]
                    conn.execute(INSERT_MANY, (*columns, CHANNEL)).fetchall()
                except Exception as exc:
                    for *_, done in rows:
                        done.set_exception(exc)
                else:
                    for *_, done in rows:
                        done.set(None)


_GROUPED = os.environ.get("FLOOR_GROUP_COMMIT", "1") != "0"
_WRITER = _Writer()


def _model_tokens(message: str):
    """The content of each chunk of the model's streamed answer, as it arrives."""
    url = urlsplit(os.environ["FLOOR_MODEL_URL"])
    body = json.dumps(
        {"model": "bench", "stream": True, "messages": [{"role": "user", "content": message}]}
    ).encode()
    with socket.create_connection((url.hostname, url.port)) as sock:
        sock.sendall(
            f"POST {url.path}/chat/completions HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        buffer = b""
        head_done = False
        while chunk := sock.recv(65536):
            buffer += chunk
            if not head_done:
                if b"\r\n\r\n" not in buffer:
                    continue
                buffer = buffer.split(b"\r\n\r\n", 1)[1]
                head_done = True
            *blocks, buffer = buffer.split(b"\n\n")
            for block in blocks:
                data = block.removeprefix(b"data: ")
                if data == b"[DONE]":
                    return
                delta = json.loads(data)["choices"][0]["delta"]
                if delta.get("content"):
                    yield delta["content"]


def _stream(chat_id: str):
    queue: Queue = Queue()
    _listening()
    _streams.setdefault(chat_id, set()).add(queue)
    try:
        yield b": open\n\n"
        while True:
            try:
                yield queue.get(timeout=5)
            except Empty:
                yield b": keep-alive\n\n"
    finally:
        _streams[chat_id].discard(queue)


_listener: gevent.Greenlet | None = None


def _listening() -> None:
    global _listener
    if _listener is None:
        _listener = gevent.spawn(_listen)


def _listen() -> None:
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        for notify in conn.notifies():
            chat_id, seq, columns = notify.payload.split(":", 2)
            queues = _streams.get(chat_id)
            if not queues:
                continue
            status, content, _ = json.loads(columns)
            event = {"chatId": chat_id, "eventId": seq, "status": status, "content": content}
            frame = f"id: {seq}\ndata: {json.dumps(event)}\n\n".encode()
            for queue in queues:
                queue.put(frame)


def _database() -> ConnectionPool:
    global _pool
    if _pool is None:
        size = int(os.environ.get("DB_POOL_MAX_SIZE", "60"))
        _pool = ConnectionPool(os.environ["DATABASE_URL"], min_size=1, max_size=size, open=True)
    return _pool
