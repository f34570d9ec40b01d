"""PostgreSQL stopped under the real server: 503 JSON, nothing half-written,
recovery without a restart, open event streams carry on.

The database is a private throwaway PostgreSQL server (initdb in a temporary directory), so
stopping it disturbs nobody; the module migrates it and seeds the demo shop through the
operators' commands, then runs gunicorn + gevent on it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import psycopg
import pytest
from django.db import connection

from assistant_api.errors import DATABASE_UNAVAILABLE
from chats.services_messages import ASSISTANT_FAILED
from tests.chats.stream_client import StreamReader
from tests.security.private_postgres import (
    PrivatePostgres,
    manage,
    private_postgres,
    unavailable_reason,
)
from tests.server import ROOT, LiveServer, start_server

_UNAVAILABLE = unavailable_reason()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="PostgreSQL faults; the SQLite run has no database server to stop",
    ),
    pytest.mark.skipif(_UNAVAILABLE is not None, reason=f"no private PostgreSQL: {_UNAVAILABLE}"),
]

BODY = {"message": "Show me laptops", "currentUrl": "https://shop.example/"}
# What an error body must never show (docs/api.md#errors).
INTERNALS = ("Traceback", "psycopg", "SELECT", str(ROOT), ".py", "127.0.0.1", "sk_stag_")


@dataclass
class Deployment:
    postgres: PrivatePostgres
    server: LiveServer
    key: str
    chatbot_id: str
    organization_id: str

    def client(self) -> httpx.Client:
        return self.server.client(headers={"x-api-key": self.key})

    def rows(self, sql: str, *params: Any) -> list[tuple]:
        with psycopg.connect(self.postgres.url) as conn:
            return conn.execute(sql, params).fetchall()

    def new_chat(self) -> str:
        with self.client() as client:
            response = client.post("/v1/chats", json={"chatbotId": self.chatbot_id})
        assert response.status_code == 201, response.text
        return response.json()["id"]


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    with private_postgres() as postgres:
        manage(postgres.url, "migrate", "--noinput", "-v", "0")
        demo = json.loads(manage(postgres.url, "seed_demo", "--json").strip().splitlines()[-1])
        settings = {
            "DATABASE_URL": postgres.url,
            # The catalog engine types slowly, so the database can go away mid-reply.
            "ASSISTANT_STREAM_CHUNK_DELAY_MS": "600",
            # Requests give up on the pool after 1 s while the database is away.
            "DB_POOL_TIMEOUT": "1",
            "SSE_KEEPALIVE_SECONDS": "0.5",
            "SSE_POLL_SECONDS": "0.2",
            "RATE_LIMIT_PER_KEY": "off",
            "RATE_LIMIT_PUBLIC": "off",
        }
        with start_server(**settings) as server:
            yield Deployment(
                postgres, server, demo["apiKey"], demo["chatbotId"], demo["organizationId"]
            )


def worker_pids(server: LiveServer) -> list[int]:
    with open(f"/proc/{server.process.pid}/task/{server.process.pid}/children") as children:
        return sorted(int(pid) for pid in children.read().split())


def unanswered_without_failed_event(deployment: Deployment) -> list[str]:
    """Chats holding more unanswered user messages than `failed` reply events
    (docs/api.md#add-a-message)."""
    broken = []
    chats = deployment.rows("SELECT DISTINCT chat_id FROM chats_message WHERE type = 'user'")
    for (chat_id,) in chats:
        types = [
            t
            for (t,) in deployment.rows(
                "SELECT type FROM chats_message WHERE chat_id = %s ORDER BY seq", chat_id
            )
        ]
        unanswered = sum(
            1
            for index, kind in enumerate(types)
            if kind == "user" and (index + 1 == len(types) or types[index + 1] != "answer")
        )
        failed = deployment.rows(
            "SELECT count(*) FROM chats_event WHERE chat_id = %s AND status = 'failed' "
            "AND tool_name = ''",
            chat_id,
        )[0][0]
        if unanswered > failed:
            broken.append(str(chat_id))
    return broken


def wait_until_ready(server: LiveServer, timeout: float = 30) -> float:
    """Seconds until /readyz answers 200 again."""
    started = time.monotonic()
    with server.client() as client:
        while time.monotonic() - started < timeout:
            if client.get("/readyz").status_code == 200:
                return time.monotonic() - started
            time.sleep(0.2)
    raise AssertionError("the service did not become ready again")


def test_stopped_database_gives_503_json_and_the_service_recovers_without_restart(deployment):
    # Given a chat and the server's processes
    d = deployment
    chat = d.new_chat()
    workers = worker_pids(d.server)
    product_page = {"url": "https://shop.example/p/1", "organizationId": d.organization_id}

    # When PostgreSQL stops, every operation that needs it answers
    requests = {
        "readyz": ("GET", "/readyz", {}),
        "create chat": ("POST", "/v1/chats", {"json": {"chatbotId": d.chatbot_id}}),
        "get chat": ("GET", f"/v1/chats/{chat}", {}),
        "post message": ("POST", f"/v1/chats/{chat}/messages", {"json": BODY}),
        "history": ("GET", f"/v1/chats/{chat}/messages", {}),
        "open stream": ("GET", f"/v1/chats/{chat}/messages/events", {}),
        "usage": ("GET", "/v1/usage", {}),
        "pdp get": (
            "GET",
            f"/v1/knowledge/pdp-questions/{d.organization_id}/public",
            {"params": {"url": product_page["url"]}},
        ),
        "pdp post": (
            "POST",
            "/v1/knowledge/pdp-questions/public/get-questions",
            {"json": product_page},
        ),
    }

    def send(request: tuple[str, str, dict]) -> httpx.Response:
        method, path, options = request
        with d.client() as client:
            return client.request(method, path, timeout=10, **options)

    d.postgres.stop()
    try:
        with ThreadPoolExecutor(len(requests)) as pool:
            responses = dict(zip(requests, pool.map(send, requests.values()), strict=True))
        with d.client() as client:
            healthz = client.get("/healthz")
    finally:
        d.postgres.start()

    # Then 503 with a JSON message and nothing internal; liveness stays up
    for name, response in responses.items():
        assert response.status_code == 503, name
        assert response.headers["content-type"].startswith("application/json"), name
        assert response.json()["message"] == DATABASE_UNAVAILABLE, name
        assert not [word for word in INTERNALS if word in response.text], name
    assert healthz.status_code == 200

    # And when it is back, the same server (same worker processes) serves again by itself
    assert wait_until_ready(d.server) < 15
    with d.client() as client:
        assert client.get(f"/v1/chats/{chat}").status_code == 200
        assert client.post(f"/v1/chats/{chat}/messages", json=BODY).status_code == 201
        history = client.get(f"/v1/chats/{chat}/messages").json()["items"]
    # the message refused during the outage was not stored
    assert [m["type"] for m in history] == ["assistant", "user", "answer"]
    assert d.server.process.poll() is None and worker_pids(d.server) == workers
    assert unanswered_without_failed_event(d) == []


def test_a_reply_cut_by_the_outage_ends_with_failed_and_open_streams_miss_nothing(deployment):
    # Given an open event stream on a chat and a reply being typed
    d = deployment
    chat = d.new_chat()
    reader = StreamReader(
        f"{d.server.url}/v1/chats/{chat}/messages/events", {"x-api-key": d.key}
    ).start()
    outcome: dict[str, httpx.Response] = {}

    def ask() -> None:
        with d.client() as client:
            outcome["first"] = client.post(
                f"/v1/chats/{chat}/messages", json=BODY, headers={"Idempotency-Key": "cut-1"}
            )

    asking = threading.Thread(target=ask)
    asking.start()
    try:
        seen = reader.events_until(lambda e: e["status"] == "inProgress" and "content" in e)

        # When PostgreSQL stops in the middle of the reply and comes back 1.5 s later
        d.postgres.stop()
        time.sleep(1.5)
        d.postgres.start()
        asking.join(60)

        # Then the request ends with the assistant's 503, and the database holds the user
        # message with its reply's events ending in `failed` (nothing half-written)
        first = outcome["first"]
        assert (first.status_code, first.json()) == (503, {"message": ASSISTANT_FAILED})
        types = [
            t
            for (t,) in d.rows(
                "SELECT type FROM chats_message WHERE chat_id = %s ORDER BY seq", chat
            )
        ]
        assert types == ["assistant", "user"]
        events = d.rows(
            "SELECT status, tool_name FROM chats_event WHERE chat_id = %s ORDER BY seq", chat
        )
        assert events[0] == ("inProgress", "") and events[-1] == ("failed", "")
        assert [e for e in events if e[0] == "completed" and not e[1]] == []

        seen += reader.events_until(lambda e: e["status"] == "failed" and "toolName" not in e)

        # And the next message is answered normally
        with d.client() as client:
            assert client.post(f"/v1/chats/{chat}/messages", json=BODY).status_code == 201
            # a retry of the cut request with its key gets the first outcome again
            # (docs/api.md#idempotency)
            retry = client.post(
                f"/v1/chats/{chat}/messages", json=BODY, headers={"Idempotency-Key": "cut-1"}
            )
        assert (retry.status_code, retry.json()) == (503, {"message": ASSISTANT_FAILED})

        # And the stream opened before the outage delivered every event exactly once, in order
        seen += reader.events_until(lambda e: e["status"] == "completed" and "toolName" not in e)
        seen += reader.quiet_for(1.0)
        stored = [
            str(seq)
            for (seq,) in d.rows(
                "SELECT seq FROM chats_event WHERE chat_id = %s ORDER BY seq", chat
            )
        ]
        assert reader.error is None
        assert [event.id for event in seen] == stored
    finally:
        reader.close()
    assert unanswered_without_failed_event(d) == []
