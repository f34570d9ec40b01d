"""Replies under abuse and faults on the real server.

One `Idempotency-Key` sent 20 times at once, a worker killed (SIGKILL) in the middle of a reply,
and clients that vanish from open event streams. Each test starts gunicorn + gevent with the
settings it needs, on the test database (transactional tests: the server sees their rows).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from datetime import timedelta

import httpx
import psutil
import pytest
from django.db.models import F

from chats.idempotency import IN_PROGRESS_LEASE
from chats.models import Event, IdempotencyRecord, Message
from chats.services_messages import REPLY_INTERRUPTED
from tests.chats.stream_client import StreamReader
from tests.knowledge.assistant_shops import DEMO_FILES, shop_import
from tests.server import LiveServer, start_server

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
]
BODY = {"message": "Show me laptops", "currentUrl": "https://shop.example/"}


def stored(chat_id) -> list[str]:
    return [m.type for m in Message.objects.filter(chat_id=chat_id).order_by("seq")]


def reply_events(chat_id) -> list[tuple[str, str, str | None]]:
    """(status, toolName, content) of the chat's events, in commit order."""
    return list(
        Event.objects.filter(chat_id=chat_id)
        .order_by("seq")
        .values_list("status", "tool_name", "content")
    )


def workers(server: LiveServer) -> list[psutil.Process]:
    return psutil.Process(server.process.pid).children()


def test_one_key_sent_20_times_at_once_stores_one_reply():
    # Given a shop and two worker processes whose replies take a moment
    shop = shop_import("Twenty Retries Shop", DEMO_FILES)
    chat_id = shop.chat()
    responses: list[httpx.Response | None] = [None] * 20
    with start_server(ASSISTANT_STREAM_CHUNK_DELAY_MS="40", WEB_CONCURRENCY="2") as server:
        barrier = threading.Barrier(len(responses))

        def send(index: int) -> None:
            with server.client(headers={"x-api-key": shop.key, "Idempotency-Key": "x20"}) as c:
                barrier.wait()
                responses[index] = c.post(f"/v1/chats/{chat_id}/messages", json=BODY)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(responses))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=90)

    # Then all 20 get the same reply, byte for byte, and one message pair is stored and counted
    assert [r.status_code for r in responses if r is not None] == [201] * 20
    assert len({r.content for r in responses if r is not None}) == 1
    assert stored(chat_id) == ["user", "answer"]
    assert Event.objects.filter(chat_id=chat_id, status="completed", tool_name="").count() == 1
    assert shop.client.get("/v1/usage").json()["messages"] == 1


def test_worker_killed_mid_reply_leaves_consistent_state_and_a_retry_gets_the_reply():
    # Given a reply that is being typed slowly by the only worker
    shop = shop_import("Killed Worker Shop", DEMO_FILES)
    chat_id = shop.chat()
    headers = {"x-api-key": shop.key, "Idempotency-Key": "killed-1"}
    with start_server(ASSISTANT_STREAM_CHUNK_DELAY_MS="500", WEB_CONCURRENCY="1") as server:
        failure: list[BaseException] = []

        def ask() -> None:
            with server.client(headers=headers) as client:
                try:
                    client.post(f"/v1/chats/{chat_id}/messages", json=BODY)
                except httpx.HTTPError as exc:
                    failure.append(exc)

        asking = threading.Thread(target=ask)
        asking.start()
        deadline = time.monotonic() + 20
        while not Event.objects.filter(chat_id=chat_id, tool_name="", content__isnull=False):
            assert time.monotonic() < deadline, "the reply did not start"
            time.sleep(0.05)

        # When the worker is killed (SIGKILL: no cleanup of any kind) after its first chunk
        (victim,) = workers(server)
        os.kill(victim.pid, signal.SIGKILL)
        asking.join(30)
        deadline = time.monotonic() + 30
        while not [w for w in workers(server) if w.pid != victim.pid]:
            assert time.monotonic() < deadline, "gunicorn did not replace the worker"
            time.sleep(0.1)

        # Then the client saw the connection drop, and the database holds the user message and
        # the events written so far: a reply's beginning, never a half row or an answer
        assert failure and isinstance(failure[0], httpx.HTTPError)
        assert stored(chat_id) == ["user"]
        events = reply_events(chat_id)
        assert events[0] == ("inProgress", "", None)
        assert not [e for e in events if e[1] == "" and e[0] in ("completed", "failed")]
        assert IdempotencyRecord.objects.get(chat_id=chat_id).status_code is None

        # When the client retries with its key once the claim's lease has passed (2 minutes;
        # the test moves the claim back instead of waiting, as the 24-hour test does)
        IdempotencyRecord.objects.filter(chat_id=chat_id).update(
            created_at=F("created_at") - IN_PROGRESS_LEASE - timedelta(seconds=1)
        )
        with server.client(headers=headers) as client:
            retry = client.post(f"/v1/chats/{chat_id}/messages", json=BODY)
            again = client.post(f"/v1/chats/{chat_id}/messages", json=BODY)

    # Then it gets the reply, the one stored user message is answered (no copy, one count),
    # and the dead attempt's events are closed by a failed event before the new reply's
    assert retry.status_code == 201 and retry.json()["type"] == "answer"
    assert (again.status_code, again.content) == (201, retry.content)
    assert stored(chat_id) == ["user", "answer"]
    after = reply_events(chat_id)
    assert after[: len(events)] == events
    assert after[len(events)] == ("failed", "", REPLY_INTERRUPTED)
    assert after[len(events) + 1] == ("inProgress", "", None)
    assert after[-1][:2] == ("completed", "") and after[-1][2] == retry.json()["content"]
    assert shop.client.get("/v1/usage").json()["messages"] == 1


def stream_sockets(server: LiveServer) -> int:
    """Established connections the server's workers hold on its port."""
    port = int(server.url.rsplit(":", 1)[1])
    return sum(
        1
        for worker in workers(server)
        for conn in worker.net_connections(kind="tcp")
        if conn.laddr.port == port and conn.status == psutil.CONN_ESTABLISHED
    )


def closed_stream_counts(log_path) -> list[int]:
    """`openStreams` of each "event stream closed" line the server logged, in order."""
    counts = []
    for line in log_path.read_text().splitlines():
        if line.startswith("{") and '"event stream closed"' in line:
            counts.append(json.loads(line)["openStreams"])
    return counts


def test_clients_that_vanish_mid_stream_free_their_connections(tmp_path):
    # Given five open streams on one chat
    shop = shop_import("Vanishing Clients Shop", DEMO_FILES)
    chat_id = shop.chat()
    log_path = tmp_path / "server.log"
    settings = {"SSE_KEEPALIVE_SECONDS": "0.2", "WEB_CONCURRENCY": "1", "LOG_LEVEL": "INFO"}
    with start_server(log_path=log_path, **settings) as server:
        url = f"{server.url}/v1/chats/{chat_id}/messages/events"
        readers = [StreamReader(url, {"x-api-key": shop.key}).start() for _ in range(5)]
        try:
            assert stream_sockets(server) == 5

            # When their clients go away without a word (the tab closes)
            for reader in readers[:4]:
                reader.close()

            # Then the server notices on its next keep-alive and lets go of them: their sockets
            # close and their subscriptions leave the hub (its count, logged, goes down to 1),
            # while the remaining stream still delivers a new reply
            deadline = time.monotonic() + 10
            while stream_sockets(server) != 1 or len(closed_stream_counts(log_path)) < 4:
                assert time.monotonic() < deadline, f"{stream_sockets(server)} still open"
                time.sleep(0.1)
            assert closed_stream_counts(log_path) == [4, 3, 2, 1]
            assert shop.say(chat_id, "Show me laptops").status_code == 201
            last = readers[4].events_until(
                lambda e: e["status"] == "completed" and "toolName" not in e
            )
            assert last and readers[4].error is None
        finally:
            for reader in readers:
                reader.close()
