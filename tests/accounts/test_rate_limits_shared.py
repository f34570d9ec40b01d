"""Rate limits across processes through Redis, and failing open when Redis is gone."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from assistant_api.throttling import RATE_LIMITED
from tests.conftest import make_tenant
from tests.factories import ChatFactory
from tests.server import free_port, redis_server, start_server

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


def statuses(url: str, key: str, count: int) -> list[int]:
    with httpx.Client(base_url=url, headers={"x-api-key": key}, timeout=10) as client:
        return [client.get("/v1/chats/x").status_code for _ in range(count)]


def test_limit_is_shared_by_two_server_processes():
    tenant = make_tenant()
    port = free_port()
    with redis_server(port) as redis_url:
        env = {"REDIS_URL": redis_url, "RATE_LIMIT_PER_KEY": "10/min"}
        with start_server(**env) as first, start_server(**env) as second:
            results = statuses(first.url, tenant.key, 6) + statuses(second.url, tenant.key, 6)
    assert results.count(404) == 10
    assert results.count(429) == 2


def test_redis_outage_fails_open_and_limits_resume():
    tenant = make_tenant()
    port = free_port()
    env = {"RATE_LIMIT_PER_KEY": "3/min"}
    with redis_server(port) as redis_url:
        env["REDIS_URL"] = redis_url
        with start_server(**env) as server:
            assert statuses(server.url, tenant.key, 4) == [404, 404, 404, 429]
            # Redis goes away: requests are served without limits.
            subprocess.run(
                ["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True
            )
            assert set(statuses(server.url, tenant.key, 6)) == {404}
            # Redis is back: after the retry delay the limits apply again.
            with redis_server(port):
                time.sleep(6)
                other = make_tenant()
                assert statuses(server.url, other.key, 4) == [404, 404, 404, 429]


def test_opening_an_event_stream_counts_against_the_key():
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    headers = {"x-api-key": tenant.key}
    with (
        start_server(RATE_LIMIT_PER_KEY="1/min", SSE_MAX_DURATION_SECONDS="1") as server,
        httpx.Client(base_url=server.url, headers=headers, timeout=10) as client,
    ):
        with client.stream("GET", f"/v1/chats/{chat.id}/messages/events") as first:
            assert first.status_code == 200
        refused = client.get(f"/v1/chats/{chat.id}/messages/events")
    assert refused.status_code == 429
    assert refused.json() == {"message": RATE_LIMITED}
    assert int(refused.headers["Retry-After"]) >= 1


def test_a_limited_request_costs_redis_one_command():
    tenant = make_tenant()
    port = free_port()
    with redis_server(port) as redis_url:
        with start_server(REDIS_URL=redis_url, RATE_LIMIT_PER_KEY="1000/min") as server:
            assert statuses(server.url, tenant.key, 5) == [404] * 5
        stats = subprocess.run(
            ["redis-cli", "-p", str(port), "info", "commandstats"], capture_output=True, text=True
        ).stdout

    # Per request one EVALSHA, which adds one (INCR) and gives the window's first count its
    # expiry (EXPIRE; twice if the minute turned meanwhile); the script is loaded once, after
    # the first EVALSHA found it missing. PING and INFO are this test's own.
    calls = _command_calls(stats)
    assert calls.pop("evalsha") == (6, 1)  # (calls, of which failed)
    assert calls.pop("expire")[0] in (1, 2)
    assert {name: count for name, (count, _) in calls.items() if name not in ("ping", "info")} == {
        "script|load": 1,
        "incr": 5,
    }


def _command_calls(stats: str) -> dict[str, tuple[int, int]]:
    """`INFO commandstats` as {command: (calls, failed calls)}."""
    return {
        name: (int(calls), int(failed))
        for name, calls, failed in re.findall(
            r"^cmdstat_([\w|]+):calls=(\d+),.*failed_calls=(\d+)", stats, re.MULTILINE
        )
    }


def test_requests_at_the_same_moment_share_round_trips_and_the_limit_stays_exact():
    tenant = make_tenant()
    port = free_port()
    burst, limit = 60, 25
    with redis_server(port) as redis_url:
        env = {"REDIS_URL": redis_url, "RATE_LIMIT_PER_KEY": f"{limit}/min"}
        with (
            start_server(WEB_CONCURRENCY="1", **env) as server,
            httpx.Client(
                base_url=server.url,
                headers={"x-api-key": tenant.key},
                timeout=30,
                limits=httpx.Limits(max_connections=burst),
            ) as client,
            ThreadPoolExecutor(burst) as pool,
        ):
            # Given a worker with every connection open, when all send at once
            list(pool.map(lambda _: client.get("/healthz"), range(burst)))
            statuses = list(pool.map(lambda _: client.get("/v1/chats/x").status_code, range(burst)))
        stats = subprocess.run(
            ["redis-cli", "-p", str(port), "info", "commandstats"], capture_output=True, text=True
        ).stdout

    # Then exactly the limit is served and the rest refused
    assert statuses.count(404) == limit
    assert statuses.count(429) == burst - limit
    # with every count made in Redis, in fewer transactions than requests
    calls = _command_calls(stats)
    assert calls["incr"][0] == burst
    assert calls["evalsha"][0] < burst
