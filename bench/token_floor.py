"""The token path's floor: the least work around the service's own ways of scheduling it that
brings a model's tokens to an event stream, for `bench/token_latency.py --floor` to measure
beside the service.

A bare WSGI application served by gunicorn's gevent workers, on the service's paths and tables,
with no middleware, authentication, validation, quota, history, engine or Django models. A
message is stored (in a turn of the worker's messages, `infrastructure/turns.py`, as the
service's is); the model's reply is read over a raw socket (SSE lines, JSON); the tokens that
arrived while the last were written become one notifying event, handed to the worker's event
writer (`chats/event_writer.py`, the service's own, with a statement of the floor's); and the
answer is stored. Each worker has one listener that LISTENs and hands each notification's event
(carried in its payload) to its chat's streams. The service's settings for these apply:
`MESSAGE_TURNS`, `MESSAGE_TURN_LEASE_MS`, `EVENT_GROUP_COMMIT`, `EVENT_COMMIT_DELAY_MS`.

What the floor leaves out, the service must do; a target the floor misses on a machine is one
that the service would not reach there by doing less work in the same way.

    gunicorn -k gevent -w 2 bench.token_floor:app   # DATABASE_URL, FLOOR_MODEL_URL set

Never part of the service: nothing imports it but the benchmark's server command.
"""

from __future__ import annotations

import json
import os
import re
import socket
from contextlib import nullcontext
from datetime import UTC, datetime
from urllib.parse import urlsplit

import gevent
import psycopg
from gevent.queue import Empty, Queue
from psycopg_pool import ConnectionPool

from chats.event_writer import EventWriter
from infrastructure.turns import Turns

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
    """`POST .../messages` answers once the reply is stored; `GET .../messages/events` streams
    the chat's events from when it opened."""
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
    """Stores the message in a turn, then each piece of the answer as it comes (what arrived
    while the last piece was written, in one event: a reply that fell behind catches up), then
    the answer."""
    arrived: Queue = Queue()
    words: list[str] = []
    with _database().connection() as conn:
        conn.autocommit = True
        with _turn():
            _keep(conn, chat_id, message)
        reader = gevent.spawn(_read_into, arrived, message)
        try:
            ended = False
            while not ended:
                texts = [arrived.get()]
                while not arrived.empty():
                    texts.append(arrived.get_nowait())
                ended = texts[-1] is None
                texts = [text for text in texts if text is not None]
                if texts:
                    words += texts
                    _write(conn, chat_id, "".join(texts))
            _keep(conn, chat_id, "".join(words))
            reader.get()  # raises what ended the model's stream, if it failed
        finally:
            reader.kill()


def _turn():
    """A turn of the worker's messages, as the service's (chats/message_turns.py), which ends
    before the reply waits on its model."""
    return _TURNS.turn("floor") if _TURNS is not None else nullcontext()


def _read_into(arrived: Queue, message: str) -> None:
    try:
        for text in _model_tokens(message):
            arrived.put(text)
    finally:
        arrived.put(None)


def _write(conn, chat_id: str, content: str) -> None:
    """Through the worker's event writer, as the service's replies write; alone when it did
    not write (a statement that failed)."""
    if _WRITER is not None and _WRITER.write([(chat_id, content, datetime.now(UTC))]):
        return
    conn.execute(INSERT, (chat_id, content, datetime.now(UTC), CHANNEL)).fetchall()


def _keep(conn, chat_id: str, content: str) -> None:
    """A durable record (the message, the answer), notifying no one: a durable commit that
    notified would hold NOTIFY's lock, and every reply's next token, across its WAL flush."""
    conn.execute(KEEP, (chat_id, content, datetime.now(UTC)))


def _insert_many(conn, events: list[tuple[str, str, datetime]]) -> list[int]:
    chats, contents, times = [list(column) for column in zip(*events, strict=True)]
    rows = conn.execute(INSERT_MANY, (chats, contents, times, CHANNEL)).fetchall()
    return sorted(row[0] for row in rows)


def _writer() -> EventWriter | None:
    """The service's event writer (chats/event_writer.py) around the floor's statement, with
    the service's settings: `EVENT_GROUP_COMMIT` (off: each reply writes alone) and
    `EVENT_COMMIT_DELAY_MS`."""
    if os.environ.get("EVENT_GROUP_COMMIT", "on").lower() in ("0", "off", "false", "no"):
        return None
    delay = float(os.environ.get("EVENT_COMMIT_DELAY_MS", "2")) / 1000
    return EventWriter(
        insert=_insert_many,
        connect=lambda: psycopg.connect(os.environ["DATABASE_URL"], autocommit=True),
        dead=lambda conn: conn.closed,
        delay=lambda: delay,
    )


def _turns() -> Turns | None:
    """The service's turns (infrastructure/turns.py), with its settings `MESSAGE_TURNS` and
    `MESSAGE_TURN_LEASE_MS`."""
    size = int(os.environ.get("MESSAGE_TURNS", "1"))
    lease = int(os.environ.get("MESSAGE_TURN_LEASE_MS", "100")) / 1000
    return Turns(size=size, lease=lease) if size else None


_WRITER = _writer()
_TURNS = _turns()


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
    """Hands each notified event to its chat's streams here; reconnects when the connection
    drops (events notified meanwhile are lost: the benchmark counts the tokens that arrived)."""
    while True:
        try:
            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
                conn.execute(f"LISTEN {CHANNEL}")
                for notify in conn.notifies():
                    _deliver(notify.payload)
        except psycopg.Error:
            gevent.sleep(0.2)


def _deliver(payload: str) -> None:
    chat_id, seq, columns = payload.split(":", 2)
    queues = _streams.get(chat_id)
    if not queues:
        return
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
