"""Open event streams capped per organization (EVENT_STREAMS_PER_ORGANIZATION), per process
without Redis and across the deployment with it, against the real server."""

from __future__ import annotations

import os
import shutil
import signal
import time
from contextlib import ExitStack, closing
from pathlib import Path

import httpx
import pytest

from chats.stream.places import RETRY_AFTER_SECONDS, TOO_MANY_STREAMS
from tests.conftest import make_tenant
from tests.factories import ChatFactory
from tests.server import LiveServer, free_port, redis_server, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


def events_path(tenant) -> str:
    chat = ChatFactory(chatbot=tenant.chatbot)
    return f"/v1/chats/{chat.id}/messages/events"


def open_stream(stack: ExitStack, server: LiveServer, tenant, path: str) -> httpx.Response:
    client = stack.enter_context(server.client(headers={"x-api-key": tenant.key}))
    response = stack.enter_context(client.stream("GET", path))
    if response.status_code == 200:
        # Kept open with the stack: a dropped iterator would close the response.
        chunks = stack.enter_context(closing(response.iter_raw()))
        next(chunks)  # the stream has started
    else:
        response.read()
    return response


def assert_refused(response: httpx.Response) -> None:
    assert response.status_code == 429, response.status_code
    assert response.json() == {"message": TOO_MANY_STREAMS}
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)


def opens_within(server: LiveServer, tenant, path: str, seconds: float) -> float:
    """Seconds until a stream of `tenant` opens (and is closed again); fails after `seconds`."""
    started = time.monotonic()
    while True:
        with ExitStack() as stack:
            if open_stream(stack, server, tenant, path).status_code == 200:
                return time.monotonic() - started
        assert time.monotonic() - started < seconds, "no place was freed"
        time.sleep(0.1)


def test_one_stream_over_the_cap_is_429_and_closing_one_frees_its_place_at_once():
    crowd, other = make_tenant(), make_tenant()
    path, other_path = events_path(crowd), events_path(other)
    # The keep-alive is long: only noticing the closed connection frees the place quickly.
    env = {"EVENT_STREAMS_PER_ORGANIZATION": "2", "SSE_KEEPALIVE_SECONDS": "30"}
    with start_server(**env) as server, ExitStack() as first:
        assert open_stream(first, server, crowd, path).status_code == 200
        with ExitStack() as second:
            assert open_stream(second, server, crowd, path).status_code == 200
            assert_refused(open_stream(second, server, crowd, path))
            # Another organization is not affected.
            assert open_stream(second, server, other, other_path).status_code == 200
        # One of the two is closed by its client: its place is free.
        assert opens_within(server, crowd, path, seconds=3) < 3


@needs_redis
def test_the_cap_holds_across_servers_sharing_redis():
    crowd = make_tenant()
    path = events_path(crowd)
    with redis_server(free_port()) as redis_url:
        env = {"REDIS_URL": redis_url, "EVENT_STREAMS_PER_ORGANIZATION": "2"}
        with start_server(**env) as first, start_server(**env) as second, ExitStack() as streams:
            assert open_stream(streams, first, crowd, path).status_code == 200
            assert open_stream(streams, second, crowd, path).status_code == 200
            assert_refused(open_stream(streams, first, crowd, path))
            assert_refused(open_stream(streams, second, crowd, path))


@needs_redis
def test_the_places_of_a_killed_worker_free_themselves_after_the_lease():
    crowd = make_tenant()
    path = events_path(crowd)
    with redis_server(free_port()) as redis_url:
        env = {
            "REDIS_URL": redis_url,
            "EVENT_STREAMS_PER_ORGANIZATION": "1",
            "EVENT_STREAM_LEASE_SECONDS": "3",
        }
        with start_server(**env) as doomed, start_server(**env) as survivor:
            with ExitStack() as streams:
                assert open_stream(streams, doomed, crowd, path).status_code == 200
                # The worker holding the stream dies without closing anything.
                pid = doomed.process.pid
                worker = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                assert len(worker) == 1
                os.kill(int(worker[0]), signal.SIGKILL)
            # Its place is still counted until its lease runs out, then freed.
            with ExitStack() as refused:
                assert_refused(open_stream(refused, survivor, crowd, path))
            assert opens_within(survivor, crowd, path, seconds=10) < 10
