"""Streaming overhead: from a model writing a token to that token reaching an EventSource-like
client, with 1 and with 100 replies streaming at once (docs/api.md, "Shop front-ends").

The `openai` engine answers through a loopback model server (a process of its own speaking the
Chat Completions stream) that writes one token every `--pace-ms`, each a unique word
(`r<reply>t<n>`), and notes when each was written. Clients hold each chat's event stream open
over raw sockets (HTTP/1.0, as EventSource reads it) and note when each word first arrives in
an event. Both clocks are `time.time()` on this machine. Next to it, in the same run, the raw
PostgreSQL NOTIFY -> LISTEN latency (bench/sse_streams.py's measurement).

Each token's latency is also split at the moment the reply made the event carrying it (the
event's `created_at`): the reply's part (reading the model's stream) and the delivery's (the
event writer, the commit, NOTIFY, the listener, the stream's write, the client's read); and
reported by the token's place in its reply, since the replies of a level start and end together.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/token_bench \\
        .venv/bin/python bench/token_latency.py --levels 1,100

Targets: p50 at most 10 ms; p99 at most 3 x the raw NOTIFY p99 + 20 ms.

By default the replies of a round start at once, so their starts and ends come in bursts.
`--arrivals staggered` holds the level instead: each chat sends its messages one after the
other, the chats' first ones spread over one reply's time, so that the level's replies stream at
once all along and start and end at an even rate (100 chats with 200-token replies at 40 ms a
token: 12.5 replies start a second); with 3 rounds or more, only the replies of that middle
part (not each chat's first and last) are measured.

Next to the raw NOTIFY of an idle moment, which the target is set against, the same pings are
timed while the round's replies stream (`raw_notify_loaded_*`, from a process of their own, on
the cluster's `postgres` database; with `--arrivals staggered`, also while the level ramps up
and down): the delay the machine's load alone gives a bare notification. And the model server's
gaps between two tokens of a reply as it wrote them (`model_gap_ms_*`): well above
`--pace-ms`, even the model server waited for a CPU, and the level is more than the machine
can serve.

`--floor` serves bench/token_floor.py instead of the service: the same path, scheduled the
service's way (turns, the event writer), with the least work around it (no middleware,
authentication, quota, history, engine or Django models).

Each level also reports the text events written (fewer than tokens when a reply's tokens were
coalesced), the CPU time per token of the server's processes, of the PostgreSQL backends
serving the database, of the model server and of the clients (this process), and the load
average: on a shared machine the latencies follow the load, while the work per token hardly
does.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing
import os
import queue
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sse_streams import (  # noqa: E402 (after the path is set)
    percentile,
    raw_notify_latency,
    setup_django,
    start_server,
)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/token_bench"
WORD = re.compile(r"r(\d+)t(\d+)")


# --- the model: a loopback Chat Completions server writing tokens at a pace -----------------


class ModelHTTPServer(ThreadingHTTPServer):
    # All replies connect at once: with socketserver's listen backlog of 5 the kernel's accept
    # queue overflows and some connections are reset once their request is sent (a reply then
    # fails with "The language model service could not be reached").
    request_queue_size = 1024
    daemon_threads = True


def model_server(port: int, pace: float, tokens: int, ready) -> None:
    """Runs in its own process; `GET /written` answers {"r<reply>t<n>": time written}."""
    written: dict[str, float] = {}
    lock = threading.Lock()

    def chunk(delta: dict, finish: str | None = None) -> bytes:
        body = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "bench-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(body).encode() + b"\n\n"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            with lock:
                body = json.dumps(written).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            asked = " ".join(
                m["content"] for m in request["messages"] if isinstance(m.get("content"), str)
            )
            reply = re.findall(r"reply (\d+)", asked)[-1]
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(chunk({"role": "assistant", "content": ""}))
            self.wfile.flush()
            for n in range(tokens):
                time.sleep(pace)
                word = f"r{reply}t{n}"
                data = chunk({"content": f" {word}"})
                # Noted before the write: after it, this thread may wait for the GIL behind
                # the other replies' threads, and the token would look younger than it is.
                at = time.time()
                self.wfile.write(data)
                self.wfile.flush()
                with lock:
                    written[word] = at
            self.wfile.write(chunk({}, "stop") + b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    server = ModelHTTPServer(("127.0.0.1", port), Handler)
    ready.set()
    server.serve_forever()


# --- the clients: event streams read as EventSource reads them ------------------------------


class Streams:
    """One event stream per chat over raw sockets; notes when each word first arrives."""

    def __init__(self, port: int, key: str) -> None:
        self.port = port
        self.key = key
        self.arrived: dict[str, float] = {}
        self.tasks: list[asyncio.Task] = []

    async def open(self, chat_id: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(
            f"GET /v1/chats/{chat_id}/messages/events HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            f"x-api-key: {self.key}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(head[:200])
        self.tasks.append(asyncio.create_task(self._read(reader, writer)))

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # Only the time and the bytes now: 100 streams share this process's loop, and parsing
        # one stream's events would delay the next stream's read (and its time) by as much,
        # which a browser, one EventSource per page, does not have. Parsed once closed.
        reads: list[tuple[float, bytes]] = []
        try:
            while chunk := await reader.read(65536):
                reads.append((time.time(), chunk))
        finally:
            writer.close()
            self._note_arrivals(reads)

    def _note_arrivals(self, reads: list[tuple[float, bytes]]) -> None:
        buffer = b""
        for at, chunk in reads:
            buffer += chunk
            *blocks, buffer = buffer.split(b"\n\n")
            for block in blocks:
                for line in block.split(b"\n"):
                    if line.startswith(b"data: "):
                        content = json.loads(line[6:]).get("content") or ""
                        for word in WORD.finditer(content):
                            self.arrived.setdefault(word.group(0), at)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def post_messages(port: int, key: str, chats: list[str], first_reply: int) -> list[int]:
    """Sends each chat's message over a raw socket, as the streams are read: an HTTP client
    library's own work (and its log line per request) would take this machine's CPU from the
    server just as the replies start and end, which a shop's browsers, elsewhere, do not."""

    async def one(index: int, chat_id: str) -> int:
        body = json.dumps(
            {
                "message": f"Please answer reply {first_reply + index}",
                "currentUrl": "https://bench.example/",
            }
        ).encode()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            f"POST /v1/chats/{chat_id}/messages HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            f"x-api-key: {key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        response = await reader.read()  # HTTP/1.0: the server closes once it has answered
        writer.close()
        return int(response.split(b" ", 2)[1])

    return await asyncio.gather(*(one(i, chat) for i, chat in enumerate(chats)))


class LoadedPings:
    """Raw NOTIFY -> LISTEN pings from a process of their own (forked before the round's event
    loop starts), sent between `start()` and `end()`: while the replies stream."""

    def __init__(self, database_url: str, gap: float) -> None:
        self._go = multiprocessing.Event()
        self._stop = multiprocessing.Event()
        self._results: multiprocessing.Queue = multiprocessing.Queue()
        self._process = multiprocessing.Process(
            target=_ping_between,
            args=(database_url, gap, self._go, self._stop, self._results),
            daemon=True,
        )
        self._process.start()

    def start(self) -> None:
        self._go.set()

    def end(self) -> None:
        self._go.set()
        self._stop.set()

    def latencies(self) -> list[float]:
        self.end()
        try:
            latencies = self._results.get(timeout=60)
        except queue.Empty:
            self._process.kill()
            raise RuntimeError("the NOTIFY pings' process gave no result") from None
        self._process.join(10)
        return latencies


def _ping_between(database_url: str, gap: float, go, stop, results) -> None:
    go.wait()
    results.put(raw_notify_latency(database_url, 0, gap, until=stop))


async def measure(
    level: int,
    chats: list[str],
    key: str,
    port: int,
    first_reply: int,
    pings: LoadedPings | None = None,
):
    streams = Streams(port, key)
    await asyncio.gather(*(streams.open(chat) for chat in chats))
    await asyncio.sleep(0.5)
    if pings is not None:
        pings.start()
    statuses = await post_messages(port, key, chats, first_reply)
    if pings is not None:
        pings.end()
    await asyncio.sleep(0.5)
    await streams.close()
    return streams.arrived, statuses


async def measure_staggered(
    chats: list[str],
    key: str,
    port: int,
    first_reply: int,
    rounds: int,
    reply_seconds: float,
    pings: LoadedPings,
):
    """Each chat sends `rounds` messages one after the other, each once the last is answered,
    the chats starting `reply_seconds / len(chats)` apart: after the first reply's time, all
    of them are streaming at once, and replies start and end at an even rate. Reply numbers:
    `first_reply + round * len(chats) + chat index`."""
    streams = Streams(port, key)
    await asyncio.gather(*(streams.open(chat) for chat in chats))
    await asyncio.sleep(0.5)
    gap = reply_seconds / len(chats)

    async def converse(index: int, chat_id: str) -> list[int]:
        await asyncio.sleep(index * gap)
        statuses = []
        for number in range(rounds):
            reply = first_reply + number * len(chats) + index
            statuses += await post_messages(port, key, [chat_id], reply)
        return statuses

    pings.start()
    statuses = await asyncio.gather(*(converse(i, chat) for i, chat in enumerate(chats)))
    pings.end()
    await asyncio.sleep(0.5)
    await streams.close()
    return streams.arrived, [status for chat in statuses for status in chat]


def process_cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user + system) one process used so far (this one when `pid` is None)."""
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def server_cpu_seconds(server) -> float:
    """CPU time (user + system) the server's processes (gunicorn and its workers) used so far:
    the work a level costs, which the shared machine's load does not change much."""
    import psutil

    parent = psutil.Process(server.pid)
    total = 0.0
    for process in [parent, *parent.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def database_cpu_seconds() -> dict[int, float]:
    """CPU time so far of each PostgreSQL backend serving this database (the server's pool and
    listener), by process id: the database's share of a level's work."""
    import psutil
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
        pids = [row[0] for row in cursor.fetchall()]
    used = {}
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.NoSuchProcess:
            continue
        used[pid] = times.user + times.system
    return used


def text_events(chats: list[str]) -> int:
    """The text events (`inProgress` with content) written for these chats' replies."""
    from chats.models import Event, EventStatus

    return Event.objects.filter(
        chat_id__in=chats, status=EventStatus.IN_PROGRESS, tool_name="", content__isnull=False
    ).count()


def rounded_percentile(values: list[float], p: float) -> float | None:
    return round(percentile(values, p), 2) if values else None


def events_made(chats: list[str]) -> dict[str, float]:
    """When the reply made the text event carrying each word (its `created_at`, set by the
    reply in Python before the event is written): splits a token's latency into the reply's
    part and the delivery's (the writer, the commit, NOTIFY, the listener, the stream)."""
    from chats.models import Event, EventStatus

    made: dict[str, float] = {}
    events = Event.objects.filter(
        chat_id__in=chats, status=EventStatus.IN_PROGRESS, tool_name="", content__isnull=False
    ).values_list("content", "created_at")
    for content, created_at in events:
        for word in WORD.finditer(content or ""):
            made[word.group(0)] = created_at.timestamp()
    return made


def model_gaps(written: dict[str, float], replies: set[int], tokens: int) -> list[float]:
    """The time between each two tokens of a reply as the model server wrote them, in ms: its
    pace plus how long it took to write the first (one late write shows in the tail)."""
    gaps = []
    for reply in replies:
        times = [written.get(f"r{reply}t{n}") for n in range(tokens)]
        gaps += [
            (b - a) * 1000 for a, b in itertools.pairwise(times) if a is not None and b is not None
        ]
    return gaps


def make_fixtures(count: int) -> tuple[str, list[str]]:
    from accounts.services import api_key_issue
    from chats.models import Chat
    from tests.factories import ChatbotFactory, OrganizationFactory

    organization = OrganizationFactory(name=f"token-bench-{time.time_ns()}")
    chatbot = ChatbotFactory(organization=organization, engine="openai")
    key = api_key_issue(organization=organization).key
    chats = Chat.objects.bulk_create(
        [Chat(organization=organization, chatbot=chatbot) for _ in range(count)]
    )
    return key, [str(chat.id) for chat in chats]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1,100", help="replies streaming at once")
    parser.add_argument("--pace-ms", type=float, default=40.0, help="the model's token pace")
    parser.add_argument("--tokens", type=int, default=25, help="tokens per reply")
    parser.add_argument("--rounds", type=int, default=3, help="runs per level")
    parser.add_argument("--workers", default="2", help="gunicorn workers (WEB_CONCURRENCY)")
    # A reply holds a database connection from its start to its end: 100 replies at once
    # need 100 connections, or they queue for the pool (which delays replies, not tokens).
    parser.add_argument("--pool", default="60", help="DB_POOL_MAX_SIZE per worker")
    parser.add_argument(
        "--arrivals",
        choices=("together", "staggered"),
        default="together",
        help="together: each round's replies start at once; staggered: each chat sends its "
        "rounds' messages one after the other, the chats' starts spread over one reply's "
        "time, and only the replies while all chats stream count (not the first and last "
        "of each chat, with 3 rounds or more)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="serve bench/token_floor.py instead of the service: the least work of the path",
    )
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    database_url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    setup_django(database_url)
    import httpx
    from django.db import connection

    from tests.server import free_port

    # As many unmeasured replies at once as the largest level, so the workers' pools have
    # grown to what that level holds (a service serving such a load has), before measuring.
    warm_up = max(4 * int(args.workers), *levels)
    key, chats = make_fixtures(warm_up + sum(levels) * args.rounds)
    connection.close()
    model_port, api_port = free_port(), free_port()
    ready = multiprocessing.Event()
    model = multiprocessing.Process(
        target=model_server,
        args=(model_port, args.pace_ms / 1000, args.tokens, ready),
        daemon=True,
    )
    model.start()
    ready.wait(10)
    server = start_server(
        api_port,
        app="bench.token_floor:app" if args.floor else "assistant_api.wsgi",
        FLOOR_MODEL_URL=f"http://127.0.0.1:{model_port}/v1",
        WEB_CONCURRENCY=args.workers,
        ASSISTANT_ENGINE="openai",
        OPENAI_BASE_URL=f"http://127.0.0.1:{model_port}/v1",
        OPENAI_API_KEY="bench",
        OPENAI_MAX_TOOL_ROUNDS="0",
        ASSISTANT_FALLBACK="off",
        RATE_LIMIT_PER_KEY="off",
        DB_POOL_MAX_SIZE=args.pool,
        DB_POOL_TIMEOUT="120",
    )
    results = []
    try:
        # Unmeasured replies first, so every worker has booted and imported what a reply uses:
        # the first level's CPU time would otherwise count a worker's start and its pool's
        # growth.
        asyncio.run(measure(warm_up, chats[:warm_up], key, api_port, 0))
        next_chat = warm_up
        for level in levels:
            arrived: dict[str, float] = {}
            raw: list[float] = []
            raw_loaded: list[float] = []
            failures = 0
            cpu = db_cpu = model_cpu = client_cpu = 0.0
            events = 0
            made: dict[str, float] = {}
            staggered = args.arrivals == "staggered"
            counted: set[int] | None = None
            if staggered and args.rounds >= 3:
                counted = set(range(next_chat + level, next_chat + level * (args.rounds - 1)))
            for _ in range(1 if staggered else args.rounds):
                batch = chats[next_chat : next_chat + level]
                cpu_before, db_before = server_cpu_seconds(server), database_cpu_seconds()
                model_before, client_before = process_cpu_seconds(model.pid), process_cpu_seconds()
                # On the cluster's own database, so that their backends' CPU is not counted as
                # the service's database work and their notifications wake none of its
                # listeners; they still pass through PostgreSQL's one queue for all databases.
                pings = LoadedPings(database_url.rsplit("/", 1)[0] + "/postgres", gap=0.01)
                try:
                    if staggered:
                        reply_seconds = args.tokens * args.pace_ms / 1000
                        session = measure_staggered(
                            batch, key, api_port, next_chat, args.rounds, reply_seconds, pings
                        )
                        seen, statuses = asyncio.run(session)
                    else:
                        run = measure(level, batch, key, api_port, next_chat, pings)
                        seen, statuses = asyncio.run(run)
                finally:
                    pings.end()
                cpu += server_cpu_seconds(server) - cpu_before
                model_cpu += process_cpu_seconds(model.pid) - model_before
                client_cpu += process_cpu_seconds() - client_before
                db_after = database_cpu_seconds()
                db_cpu += sum(used - db_before.get(pid, 0.0) for pid, used in db_after.items())
                raw_loaded += pings.latencies()
                events += text_events(batch)
                made.update(events_made(batch))
                connection.close()
                arrived.update(seen)
                next_chat += level * (args.rounds if staggered else 1)
                failures += sum(status != 201 for status in statuses)
                raw += raw_notify_latency(
                    database_url, count=200 * (args.rounds if staggered else 1), gap=0.005
                )
            written = httpx.get(f"http://127.0.0.1:{model_port}/written", timeout=10).json()
            # When the replies of a level start together, their first tokens also wait for the
            # burst of POSTs that started them (each request's own work: auth, quota, storing
            # the message) and their last tokens for the replies ending (storing the answer,
            # the response): reported apart from the tokens in between, in either mode.
            first: list[float] = []
            middle: list[float] = []
            last: list[float] = []
            to_event: list[float] = []
            event_to_client: list[float] = []
            replies: set[int] = set()
            for word, at in arrived.items():
                if word not in written:
                    continue
                reply, index = map(int, WORD.fullmatch(word).groups())  # type: ignore[union-attr]
                if counted is not None and reply not in counted:
                    continue
                replies.add(reply)
                position = first if index == 0 else last if index == args.tokens - 1 else middle
                position.append((at - written[word]) * 1000)
                if word in made:
                    to_event.append((made[word] - written[word]) * 1000)
                    event_to_client.append((at - made[word]) * 1000)
            later = middle + last
            latencies = first + later
            gaps = model_gaps(written, replies, args.tokens)
            tokens_written = level * args.rounds * args.tokens
            expected = len(counted) * args.tokens if counted is not None else tokens_written
            result = {
                "replies_at_once": level,
                "arrivals": args.arrivals,
                "tokens_written": tokens_written,
                "tokens_measured": len(latencies),
                "tokens_expected": expected,
                "failed_replies": failures,
                "text_events": events,
                "server_cpu_ms_per_token": round(cpu * 1000 / tokens_written, 3),
                "database_cpu_ms_per_token": round(db_cpu * 1000 / tokens_written, 3),
                "model_cpu_ms_per_token": round(model_cpu * 1000 / tokens_written, 3),
                "client_cpu_ms_per_token": round(client_cpu * 1000 / tokens_written, 3),
                "load_average": round(os.getloadavg()[0], 1),
                "token_ms_p50": rounded_percentile(latencies, 50),
                "token_ms_p99": rounded_percentile(latencies, 99),
                "first_token_ms_p50": rounded_percentile(first, 50),
                "first_token_ms_p99": rounded_percentile(first, 99),
                "later_tokens_ms_p99": rounded_percentile(later, 99),
                "middle_tokens_ms_p99": rounded_percentile(middle, 99),
                "last_token_ms_p99": rounded_percentile(last, 99),
                "model_to_event_ms_p50": rounded_percentile(to_event, 50),
                "model_to_event_ms_p99": rounded_percentile(to_event, 99),
                "event_to_client_ms_p50": rounded_percentile(event_to_client, 50),
                "event_to_client_ms_p99": rounded_percentile(event_to_client, 99),
                "raw_notify_ms_p50": rounded_percentile(raw, 50),
                "raw_notify_ms_p99": rounded_percentile(raw, 99),
                "raw_notify_loaded_ms_p50": rounded_percentile(raw_loaded, 50),
                "raw_notify_loaded_ms_p99": rounded_percentile(raw_loaded, 99),
                "model_gap_ms_p50": rounded_percentile(gaps, 50),
                "model_gap_ms_p99": rounded_percentile(gaps, 99),
            }
            result["p99_target_ms"] = round(3 * result["raw_notify_ms_p99"] + 20, 2)
            result["p50_ok"] = result["token_ms_p50"] <= 10
            result["p99_ok"] = result["token_ms_p99"] <= result["p99_target_ms"]
            results.append(result)
            print(json.dumps(result), flush=True)
    finally:
        server.terminate()
        server.wait(15)
        model.terminate()
    print(json.dumps({"pace_ms": args.pace_ms, "tokens": args.tokens, "results": results}))


if __name__ == "__main__":
    main()
