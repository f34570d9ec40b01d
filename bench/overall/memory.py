"""Leak check: one worker's RSS after 1,000 requests and after 20,000."""

from __future__ import annotations

import time
from pathlib import Path

from bench.overall.deployment import VAR, Deployment
from bench.overall.fixtures import Fixtures, message_requests, pdp_get_path
from bench.overall.loadgen import Request, run_wrk, write_requests
from bench.overall.report import Memory

FIRST, TOTAL = 1_000, 20_000
CONCURRENCY = 16
MAX_SECONDS = 300  # a stuck server ends the phase; the report shows the requests made
CHUNK_SECONDS = 2


def mixed_requests(fixtures: Fixtures) -> list[Request]:
    """Every endpoint in one cycle; a catalog reply is one request in twenty (it is slow)."""
    demo = fixtures.demo
    fast = [
        Request("GET", f"/v1/chats/{fixtures.chat_id}"),
        Request("GET", f"/v1/chats/{fixtures.history_chat_id}/messages?page=1&size=20"),
        Request("POST", "/v1/chats", {"chatbotId": demo.chatbot_id}),
        Request("GET", pdp_get_path(fixtures)),
        Request("GET", f"/v1/chats/{fixtures.chat_id}/messages?page=1&size=20"),
    ]
    messages = message_requests(fixtures.demo_chats, demo.product_urls)
    cycle: list[Request] = []
    for index, message in enumerate(messages[:50]):
        cycle += [fast[(index + n) % len(fast)] for n in range(19)]
        cycle.append(message)
    return cycle


def measure_memory(deployment: Deployment, fixtures: Fixtures) -> Memory:
    """Runs a one-worker server: RSS after the first 1,000 requests, then after 20,000."""
    requests_file = write_requests(VAR / "requests-memory.txt", mixed_requests(fixtures))
    headers = fixtures.demo.headers
    with deployment.server(workers=1, log_name="server-memory") as server:
        (worker,) = server.workers()
        done = _drive(server.url, requests_file, headers, FIRST)
        after_first = worker.memory_info().rss
        done += _drive(server.url, requests_file, headers, TOTAL - done)
        after_total = worker.memory_info().rss
    return Memory(rss_after_1k=after_first, rss_after_20k=after_total, requests=done)


def _drive(url: str, requests_file: Path, headers: dict[str, str], count: int) -> int:
    """Sends about `count` requests: short wrk runs, the last one stopped at the count.

    (wrk always runs for its whole duration, even after its threads stopped at a limit.)
    """
    done, deadline = 0, time.monotonic() + MAX_SECONDS
    while done < count and time.monotonic() < deadline:
        data = run_wrk(
            base_url=url,
            requests_file=requests_file,
            concurrency=CONCURRENCY,
            seconds=CHUNK_SECONDS,
            headers=headers,
            limit=count - done,
        )
        done += int(data["requests"])
    return done
