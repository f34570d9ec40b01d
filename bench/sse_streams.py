"""Benchmark of the event stream: thousands of open streams on ONE gevent worker.

Starts gunicorn with one worker on its own PostgreSQL database, opens 10, then 1,000, then
5,000 streams on distinct chats (raw sockets, asyncio), and reports for each level:
- memory per open idle stream (worker RSS growth over the 10-stream level),
- database transactions per second while the streams idle (pg_stat_database),
- delivery latency from event commit to client receipt (p50/p99) for replies published to a
  sample of the open chats, next to the raw PostgreSQL NOTIFY -> LISTEN latency measured in
  the same run, at the same moment, the same way (time after commit returns -> time received).

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/sse_bench \\
        .venv/bin/python bench/sse_streams.py --levels 1000,5000

Targets: 5,000 streams on one worker; <= 30 KB per idle stream; flat queries/s;
p99 delivery <= 3 x raw NOTIFY p99 + 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import resource
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/sse_bench"


def raise_open_file_limit(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, wanted), hard) if hard != resource.RLIM_INFINITY else wanted
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("SECRET_KEY", "bench-secret-key")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant_api.settings")
    import psycopg

    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_fixtures(count: int):
    """An organization, a key and `count` chats (created in bulk)."""
    from accounts.services import api_key_issue
    from chats.models import Chat
    from tests.factories import ChatbotFactory, OrganizationFactory

    organization = OrganizationFactory(name=f"sse-bench-{uuid.uuid4().hex[:8]}")
    chatbot = ChatbotFactory(organization=organization)
    key = api_key_issue(organization=organization).key
    chats = Chat.objects.bulk_create(
        [Chat(organization=organization, chatbot=chatbot) for _ in range(count)], batch_size=1000
    )
    return key, [chat.id for chat in chats]


def start_server(
    port: int, *, app: str = "assistant_api.wsgi", **env_overrides: str
) -> subprocess.Popen:
    """gunicorn serving `app` on `port`: the service, configured as in production, or another
    WSGI application (bench/token_floor.py) in plain gevent workers, as many and with as many
    connections each (`WEB_CONCURRENCY`, `WORKER_CONNECTIONS`)."""
    env = {
        **os.environ,
        "WEB_CONCURRENCY": "1",
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
        "WORKER_CONNECTIONS": "10000",
        **env_overrides,
    }
    if app == "assistant_api.wsgi":
        options = ["-c", "assistant_api/gunicorn.conf.py"]
    else:
        options = ["-k", "gevent", "-w", env["WEB_CONCURRENCY"], "-b", f"127.0.0.1:{port}"]
        options += ["--worker-connections", env["WORKER_CONNECTIONS"]]
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", *options, app],
        cwd=ROOT,
        env=env,
    )
    import httpx

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("server did not start")


def worker_rss(master_pid: int) -> int:
    import psutil

    children = psutil.Process(master_pid).children()
    assert len(children) == 1, "expected exactly one worker"
    return children[0].memory_info().rss


def transactions(database_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database "
            "WHERE datname = current_database()"
        ).fetchone()
        return int(row[0])


def queries_per_second(database_url: str, seconds: float) -> float:
    """Transactions per second in the benchmark database over a window (each of the
    listener's autocommit queries is one transaction; the two reads of this counter add 2)."""
    before = transactions(database_url)
    time.sleep(seconds)
    after = transactions(database_url)
    return (after - before - 1) / seconds


class Streams:
    """Many SSE connections over raw sockets; records when each event id arrives."""

    def __init__(self, port: int, key: str) -> None:
        self.port = port
        self.key = key
        self.received: dict[int, float] = {}
        self.open_count = 0
        self.ended = 0
        self.tasks: list[asyncio.Task] = []

    async def open(self, chat_id: uuid.UUID) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        # HTTP/1.0: the body is the raw stream (no chunked encoding to undo).
        writer.write(
            f"GET /v1/chats/{chat_id}/messages/events HTTP/1.0\r\n"
            f"Host: 127.0.0.1\r\nx-api-key: {self.key}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200") and not head.startswith(b"HTTP/1.0 200"):
            raise RuntimeError(head[:200])
        self.open_count += 1
        self.tasks.append(asyncio.create_task(self._read(reader, writer)))

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        buffer = b""
        try:
            while chunk := await reader.read(65536):
                now = time.time()
                buffer += chunk
                *blocks, buffer = buffer.split(b"\n\n")
                for block in blocks:
                    if block.startswith(b"id: "):
                        self.received.setdefault(int(block[4 : block.index(b"\n")]), now)
        finally:
            self.ended += 1
            writer.close()

    async def open_many(self, chat_ids, concurrency: int = 100) -> None:
        semaphore = asyncio.Semaphore(concurrency)

        async def one(chat_id):
            async with semaphore:
                await self.open(chat_id)

        await asyncio.gather(*(one(chat_id) for chat_id in chat_ids))

    def close(self) -> None:
        for task in self.tasks:
            task.cancel()


def publish_sample(chat_ids, events_per_reply: int, gap: float) -> dict[int, float]:
    """Publishes one reply per chat through EventPublisher; seq -> time its commit returned."""
    from django.db import connection

    from chats.events import EventPublisher

    committed: dict[int, float] = {}
    for chat_id in chat_ids:
        publisher = EventPublisher(chat_id=chat_id)
        for i in range(events_per_reply):
            event = publisher.chunk(f"chunk {i} ") if i else publisher.typing()
            committed[event.seq] = time.time()
            time.sleep(gap)
    connection.close()
    return committed


def raw_notify_latency(
    database_url: str, count: int, gap: float, *, until: Any = None
) -> list[float]:
    """NOTIFY (autocommit) -> LISTEN receipt on two plain psycopg connections, in ms: `count`
    pings `gap` seconds apart, or with `until` (an Event) as many as come before it is set."""
    import psycopg

    received: dict[int, float] = {}
    listener = psycopg.connect(database_url, autocommit=True)
    listener.execute("LISTEN sse_bench_raw")
    done = threading.Event()

    def listen() -> None:
        while not done.is_set():
            for notify in listener.notifies(timeout=0.2):
                received[int(notify.payload)] = time.time()

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    sent: dict[int, float] = {}
    with psycopg.connect(database_url, autocommit=True) as sender:
        for i in itertools.count():
            if (i >= count) if until is None else until.is_set():
                break
            sender.execute("SELECT pg_notify('sse_bench_raw', %s)", [str(i)])
            sent[i] = time.time()
            time.sleep(gap)
    deadline = time.monotonic() + 5
    while len(received) < len(sent) and time.monotonic() < deadline:
        time.sleep(0.05)
    done.set()
    thread.join()
    listener.close()
    return [(received[i] - sent[i]) * 1000 for i in sent if i in received]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def measure_level(streams, level, chat_ids, master_pid, args, baseline) -> dict[str, object]:
    await streams.open_many(chat_ids[streams.open_count : level], args.open_concurrency)
    await asyncio.sleep(args.settle)
    rss = worker_rss(master_pid)
    qps = await asyncio.to_thread(queries_per_second, args.database_url, args.window)
    result: dict[str, object] = {"streams": streams.open_count, "worker_rss_mb": rss / 2**20}
    result["queries_per_second_idle"] = round(qps, 2)
    if baseline is not None:
        base_streams, base_rss = baseline
        result["kb_per_stream"] = round((rss - base_rss) / (level - base_streams) / 1024, 1)
    if level >= 100:
        # A sample of open chats gets one reply each; raw NOTIFY pings are measured just before.
        step = max(1, level // args.sample)
        sample = chat_ids[:level:step][: args.sample]
        raw = await asyncio.to_thread(
            raw_notify_latency, args.database_url, len(sample) * args.events, args.gap
        )
        committed = await asyncio.to_thread(publish_sample, sample, args.events, args.gap)
        deadline = time.monotonic() + 15
        while not all(seq in streams.received for seq in committed):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        latencies = [
            (streams.received[seq] - t) * 1000
            for seq, t in committed.items()
            if seq in streams.received
        ]
        result.update(
            events_published=len(committed),
            events_received=len(latencies),
            delivery_ms_p50=round(percentile(latencies, 50), 2),
            delivery_ms_p99=round(percentile(latencies, 99), 2),
            raw_notify_ms_p50=round(percentile(raw, 50), 2),
            raw_notify_ms_p99=round(percentile(raw, 99), 2),
        )
        result["delivery_target_ms"] = round(3 * percentile(raw, 99) + 20, 2)
        result["still_open"] = streams.open_count - streams.ended
    return result


async def run(args, key, chat_ids, port, master_pid) -> list[dict[str, object]]:
    streams = Streams(port, key)
    results = []
    baseline = None
    try:
        for level in [10, *args.levels]:
            result = await measure_level(streams, level, chat_ids, master_pid, args, baseline)
            if baseline is None:
                baseline = (level, worker_rss(master_pid))
            print(json.dumps(result), flush=True)
            results.append(result)
    finally:
        streams.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--levels", default="1000,5000")
    parser.add_argument("--sample", type=int, default=100, help="chats that get a reply")
    parser.add_argument("--events", type=int, default=5, help="events per reply")
    parser.add_argument("--gap", type=float, default=0.01, help="seconds between events")
    parser.add_argument("--window", type=float, default=20, help="seconds counting queries")
    # PostgreSQL 15 backends flush their statistics up to 10 s late: let the opening settle first.
    parser.add_argument("--settle", type=float, default=12)
    parser.add_argument("--open-concurrency", type=int, default=50, help="streams opening at once")
    args = parser.parse_args()
    args.levels = [int(level) for level in args.levels.split(",")]
    limit = raise_open_file_limit(2 * max(args.levels) + 1000)
    setup_django(args.database_url)
    key, chat_ids = make_fixtures(max(args.levels))
    from django.db import connection

    connection.close()  # Its pending statistics are flushed now, not during a window.
    from tests.server import free_port

    port = free_port()
    server = start_server(port)
    try:
        results = asyncio.run(run(args, key, chat_ids, port, server.pid))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(json.dumps({"open_file_limit": limit, "levels": results}, indent=2))


if __name__ == "__main__":
    main()
