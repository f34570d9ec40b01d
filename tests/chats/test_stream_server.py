"""The event stream as served: keep-alives, maximum duration, shutdown, database connections.

Each test starts its own gunicorn + gevent server with the settings it needs.
"""

from __future__ import annotations

import time

import httpx
import orjson
import pytest
from django.db import connection

from chats.events import EVENTS_CHANNEL, EventPublisher, event_payload
from chats.stream.hub import LATE_COMMIT_SECONDS
from tests.chats.stream_client import StreamReader
from tests.factories import ChatFactory
from tests.server import start_server

pytestmark = pytest.mark.e2e


@pytest.fixture
def chat(transactional_db, tenant):
    return ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)


def url(server, chat) -> str:
    return f"{server.url}/v1/chats/{chat.id}/messages/events"


def test_keep_alive_comments_then_the_stream_ends_after_its_maximum_duration(tenant, chat):
    settings = {"SSE_KEEPALIVE_SECONDS": "0.2", "SSE_MAX_DURATION_SECONDS": "1.5"}
    with (
        start_server(**settings) as server,
        StreamReader(url(server, chat), {"x-api-key": tenant.key}, raw=True) as reader,
    ):
        body = b"".join(reader.rest(timeout=20))
    assert reader.error is None  # ended by the server, cleanly (complete chunked body)
    assert body.startswith(b"retry: 3000\n\n")
    assert body.count(b": keep-alive\n\n") >= 3
    assert body.replace(b": keep-alive\n\n", b"") == b"retry: 3000\n\n"


def test_keep_alive_counts_from_the_last_event(tenant, chat):
    # A keep-alive is due 3 s after the last write; the stream ends at 3.9 s. An event at
    # about 1 s moves the next keep-alive past the end, so none is sent.
    settings = {"SSE_KEEPALIVE_SECONDS": "3", "SSE_MAX_DURATION_SECONDS": "3.9"}
    with (
        start_server(SSE_POLL_SECONDS="0.1", **settings) as server,
        StreamReader(url(server, chat), {"x-api-key": tenant.key}, raw=True) as reader,
    ):
        time.sleep(1)
        EventPublisher(chat_id=chat.id).typing()
        body = b"".join(reader.rest(timeout=20))
    blocks = body.split(b"\n\n")
    assert blocks[0] == b"retry: 3000"
    assert blocks[1].startswith(b"id: ")
    assert blocks[2:] == [b""]


def test_stopping_the_server_ends_open_streams_cleanly(tenant, chat):
    # A deploy's SIGTERM: open streams end at once (clients reconnect elsewhere), rather
    # than being cut when the graceful timeout runs out, and ask to be resumed within about
    # a second rather than after the usual 3 s.
    with start_server(GUNICORN_GRACEFUL_TIMEOUT="60") as server:
        readers = [
            StreamReader(url(server, chat), {"x-api-key": tenant.key}).start() for _ in range(3)
        ]
        server.process.terminate()
        for reader in readers:
            assert reader.rest(timeout=15) == []
            assert reader.error is None
            assert reader.retry is not None and 250 <= reader.retry < 1250
        server.process.wait(timeout=15)


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the database connection pool is PostgreSQL's (SQLite has no pool to exhaust)",
)
def test_open_streams_do_not_hold_database_connections(tenant, chat):
    # Given a pool of 2 connections and more open streams than that
    with start_server(DB_POOL_MAX_SIZE="2", DB_POOL_TIMEOUT="3") as server:
        readers = [
            StreamReader(url(server, chat), {"x-api-key": tenant.key}).start() for _ in range(6)
        ]
        try:
            # Then ordinary requests still get a connection
            with httpx.Client(base_url=server.url, timeout=10) as client:
                for _ in range(3):
                    response = client.get(f"/v1/chats/{chat.id}", headers={"x-api-key": tenant.key})
                    assert response.status_code == 200
            # And the streams are alive
            event = EventPublisher(chat_id=chat.id).typing()
            for reader in readers:
                assert [e.id for e in reader.events(1)] == [str(event.seq)]
        finally:
            for reader in readers:
                reader.close()


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="several servers on one database is a PostgreSQL deployment (LISTEN/NOTIFY)",
)
def test_two_servers_on_one_database_stream_each_others_events(tenant, chat):
    with start_server() as first, start_server() as second:
        on_first = StreamReader(url(first, chat), {"x-api-key": tenant.key}).start()
        on_second = StreamReader(url(second, chat), {"x-api-key": tenant.key}).start()
        try:
            publisher = EventPublisher(chat_id=chat.id)
            seqs = [str(publisher.chunk(word).seq) for word in ("one ", "two ", "three")]
            assert [e.id for e in on_first.events(3)] == seqs
            assert [e.id for e in on_second.events(3)] == seqs
        finally:
            on_first.close()
            on_second.close()
    connection.close()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="notifications are PostgreSQL's LISTEN/NOTIFY"
)
def test_events_small_and_large_arrive_live_past_stray_notifications(tenant, chat):
    # Polling once a minute: within the test's timeouts, events come by their notifications
    # only. A small event travels inside its notification; one too large for a NOTIFY payload
    # (8000 bytes) is read by its seq.
    large = {"products": [{"id": str(n), "title": "ünïcode " * 20} for n in range(100)]}
    with (
        start_server(SSE_POLL_SECONDS="60") as server,
        StreamReader(url(server, chat), {"x-api-key": tenant.key}) as reader,
    ):
        publisher = EventPublisher(chat_id=chat.id)
        sent = [publisher.chunk("naïve 🙂\nline "), publisher.tool_finished("search", {}, large)]
        with connection.cursor() as cursor:
            for stray in ("garbage", f"{chat.id}:x", f"{chat.id}:{10**12}:[not json", ":1:[]"):
                cursor.execute("SELECT pg_notify(%s, %s)", [EVENTS_CHANNEL, stray])
        sent.append(publisher.completed("done"))
        received = reader.events(3, timeout=10)
    assert [event.id for event in received] == [event.event_id for event in sent]
    assert [event.data for event in received] == [
        orjson.dumps(event_payload(event)).decode() for event in sent
    ]
    assert len(received[1].data) > 8000
    connection.close()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="notifications are PostgreSQL's LISTEN/NOTIFY"
)
def test_a_notification_no_insert_sent_does_not_keep_later_events_away(tenant, chat):
    # Any role that can connect may NOTIFY on the channel. A well-formed payload naming a seq
    # far ahead must not become the listener's floor once LATE_COMMIT_SECONDS have passed,
    # which would keep every later event from the streams.
    columns = '["in_progress", "", "stray", null, null, "2026-01-01T00:00:00+00:00"]'
    with (
        start_server(SSE_POLL_SECONDS="0.2") as server,
        StreamReader(url(server, chat), {"x-api-key": tenant.key}) as reader,
    ):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_notify(%s, %s)", [EVENTS_CHANNEL, f"{chat.id}:{2**62}:{columns}"]
            )
        time.sleep(LATE_COMMIT_SECONDS + 1)
        sent = EventPublisher(chat_id=chat.id).chunk("after")
        received = reader.events_until(
            lambda payload: payload.get("content") == "after", timeout=10
        )
    assert received[-1].id == sent.event_id
    connection.close()
