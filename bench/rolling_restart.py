"""Rolling restart under steady load: two instances behind nginx (deploy/nginx/assistant.conf),
restarted one at a time, then each reloaded with gunicorn's SIGHUP, while clients keep sending
requests and following event streams. Reports whether any request or event was lost.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/rolling_bench \\
        .venv/bin/python bench/rolling_restart.py --clients 8 --streams 20

Needs nginx and redis-server (apt-get install nginx redis-server). The cluster is the tests'
(tests/cluster.py): nginx's configuration is deploy/'s with loopback addresses.

Clients behave as the API asks integrators to: a message POST carries an Idempotency-Key and is
sent again with the same key when the connection fails or nginx answers 502/504 (the request
may or may not have reached an instance; the API stores it once). `--no-client-retry` shows what
clients that never retry would have seen. GETs are retried by nginx itself. `--drain` takes
each instance out of nginx (`down`, reload) before stopping it and puts it back once it is ready.

A request is lost when its final answer is not its normal status (201 for creations, 200 for
reads). An event is lost when a stream that was open all along does not receive an event the
database holds for its chat, or receives one twice; the streams are judged once each has caught
up (or 60 s after the load stopped). Each SIGHUP step lasts until every worker of the instance
is a new one; the report gives the slowest request started in each step (a pause shows there).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import logging
import os
import re
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sse_streams import setup_django  # noqa: E402 (after the path is set)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/rolling_bench"
RETRYABLE = {502, 504}


@dataclass
class Shop:
    key: str
    chatbot_id: str
    organization_id: str
    product_url: str
    chats: list[str]


def make_shop(chats: int) -> Shop:
    from accounts.services import api_key_issue
    from chats.models import Chat
    from tests.factories import ChatbotFactory, OrganizationFactory, ProductFactory

    organization = OrganizationFactory(name=f"rolling-{uuid.uuid4().hex[:8]}")
    chatbot = ChatbotFactory(organization=organization)
    product = ProductFactory(organization=organization, url="https://shop.example/p/rolling")
    created = Chat.objects.bulk_create(
        [Chat(organization=organization, chatbot=chatbot) for _ in range(chats)]
    )
    return Shop(
        key=api_key_issue(organization=organization).key,
        chatbot_id=str(chatbot.id),
        organization_id=str(organization.id),
        product_url=product.url,
        chats=[str(chat.id) for chat in created],
    )


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    final: collections.Counter = field(default_factory=collections.Counter)  # (op, status)
    retried: collections.Counter = field(default_factory=collections.Counter)  # op
    first_failures: collections.Counter = field(default_factory=collections.Counter)
    # (phase, op) -> seconds of each request, retries included
    latencies: collections.defaultdict = field(
        default_factory=lambda: collections.defaultdict(list)
    )
    # The phase a request started in: "warmup" requests are left out of the report.
    phase: str = "warmup"
    # (monotonic start, seconds) of every request, to find the slowest one of each step
    timeline: list = field(default_factory=list)
    # (monotonic start, op, final status, error of the last attempt) of abnormal answers
    abnormal: list = field(default_factory=list)

    def add(self, op: str, sent: Sent, phase: str, started: float, seconds: float) -> None:
        with self.lock:
            self.final[(op, sent.status)] += 1
            if sent.attempts > 1:
                self.retried[op] += 1
                self.first_failures[(op, sent.first)] += 1
            self.latencies[(phase, op)].append(seconds)
            self.timeline.append((started, seconds))
            if sent.status != NORMAL[op]:
                self.abnormal.append((started, op, sent.status, sent.error))

    def slowest_since(self, start: float, end: float) -> float:
        """The longest request that started between `start` and `end` (monotonic)."""
        with self.lock:
            return max((s for t, s in self.timeline if start <= t < end), default=0.0)

    def report(self, phase: str, seconds: float) -> None:
        every = sorted(t for (p, _), times in self.latencies.items() if p == phase for t in times)
        if not every:
            return
        print(
            f"{phase}: {len(every)} requests in {seconds:.0f} s ({len(every) / seconds:.0f}/s); "
            f"p50 {every[len(every) // 2] * 1000:.0f} ms, "
            f"p99 {every[int(len(every) * 0.99)] * 1000:.0f} ms, max {every[-1] * 1000:.0f} ms"
        )
        for (p, op), times in sorted(self.latencies.items()):
            if p == phase:
                times = sorted(times)
                print(
                    f"    {op:12} p50 {times[len(times) // 2] * 1000:6.0f} ms, "
                    f"max {times[-1] * 1000:6.0f} ms"
                )


NORMAL = {"create_chat": 201, "message": 201, "history": 200, "get_chat": 200, "pdp": 200}
READS = {"history", "get_chat"}


@dataclass
class Sent:
    status: int  # the final answer's, 0 for a connection failure
    attempts: int
    first: int  # the first attempt's status
    error: str  # the exception of the last attempt, if it failed


def send(client: httpx.Client, shop: Shop, op: str, chat: str, retry: bool) -> Sent:
    key = str(uuid.uuid4())
    attempts = 0
    first = None
    while True:
        attempts += 1
        error = ""
        try:
            if op == "create_chat":
                response = client.post("/v1/chats", json={"chatbotId": shop.chatbot_id})
            elif op == "message":
                response = client.post(
                    f"/v1/chats/{chat}/messages",
                    json={"message": "running shoes under 100", "currentUrl": shop.product_url},
                    headers={"Idempotency-Key": key},
                )
            elif op == "history":
                response = client.get(f"/v1/chats/{chat}/messages", params={"size": 5})
            elif op == "get_chat":
                response = client.get(f"/v1/chats/{chat}")
            else:
                response = client.post(
                    "/v1/knowledge/pdp-questions/public/get-questions",
                    json={"organizationId": shop.organization_id, "url": shop.product_url},
                )
            status = response.status_code
        except httpx.TransportError as exc:
            status, error = 0, type(exc).__name__
        first = status if first is None else first
        # The message POST is safe to send again (its Idempotency-Key). nginx retried GETs on
        # the instances already; a GET whose connection to nginx failed is sent again once, as
        # browsers and HTTP libraries do when a kept-alive connection was closed under them
        # (nginx's graceful reload, in --drain, closes its idle client connections).
        if retry and op == "message" and (status == 0 or status in RETRYABLE) and attempts < 5:
            time.sleep(0.2)
            continue
        if retry and op in READS and status == 0 and attempts < 2:
            continue
        return Sent(status, attempts, first, error)


def load(shop: Shop, url: str, tally: Tally, stop: threading.Event, retry: bool, n: int) -> None:
    ops = itertools.cycle(["message", "history", "get_chat", "pdp", "message", "create_chat"])
    chats = itertools.cycle(shop.chats[n::3] or shop.chats)
    with httpx.Client(base_url=url, headers={"x-api-key": shop.key}, timeout=30) as client:
        while not stop.is_set():
            op = next(ops)
            phase, started = tally.phase, time.monotonic()
            sent = send(client, shop, op, next(chats), retry)
            tally.add(op, sent, phase, started, time.monotonic() - started)


def stored_events(chats: list[str]) -> dict[str, list[int]]:
    from chats.models import Event

    return {
        chat: list(Event.objects.filter(chat_id=chat).order_by("seq").values_list("seq", flat=True))
        for chat in chats
    }


def nginx_retries(log: str) -> int:
    """Requests nginx sent to a second instance (its upstream_status lists two)."""
    return len(re.findall(r"upstream_status=\S+, ", log))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8, help="request loops at once")
    parser.add_argument("--streams", type=int, default=20, help="open streams (one per chat)")
    parser.add_argument("--workers", type=int, default=2, help="WEB_CONCURRENCY per instance")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    parser.add_argument("--steady", type=float, default=15.0, help="seconds of load first")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds between steps")
    parser.add_argument("--no-client-retry", action="store_true")
    parser.add_argument(
        "--drain",
        action="store_true",
        help="mark each instance down in nginx (and reload it) before stopping it",
    )
    args = parser.parse_args()

    database_url = os.environ.get("DATABASE_URL") or DEFAULT_URL
    setup_django(database_url)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    from tests.chats.stream_client import ResumingClient
    from tests.cluster import cluster
    from tests.server import free_port, redis_server

    shop = make_shop(args.streams)
    retry = not args.no_client_retry
    with redis_server(free_port()) as redis_url:
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "WEB_CONCURRENCY": str(args.workers),
            "LOG_LEVEL": "WARNING",
            "RATE_LIMIT_PER_KEY": "off",
            "RATE_LIMIT_PUBLIC": "off",
            "SECURE_COOKIES": "0",
        }
        with cluster(env) as running:
            print(f"cluster in {running.directory} (KEEP_CLUSTER_LOGS=1 keeps it)", flush=True)
            streams = [
                ResumingClient(f"{running.url}/v1/chats/{chat}/messages/events", shop.key)
                for chat in shop.chats
            ]
            for stream in streams:
                stream.thread.start()
                stream.opened.wait(15)
            tally = Tally()
            stop = threading.Event()
            loops = [
                threading.Thread(target=load, args=(shop, running.url, tally, stop, retry, n))
                for n in range(args.clients)
            ]
            started = time.monotonic()
            for loop in loops:
                loop.start()
            steps: list[tuple[float, str]] = []  # (monotonic time, what happened)

            def step(name: str) -> None:
                steps.append((time.monotonic(), name))
                print(f"{steps[-1][0] - started:6.1f}s {name}", flush=True)

            time.sleep(args.warmup)  # first requests of each worker load the catalog words
            tally.phase = "steady"
            started = time.monotonic()
            time.sleep(args.steady)
            steady_seconds = time.monotonic() - started
            tally.phase = "restarts"
            for instance in running.instances:
                if args.drain:
                    step(f"{instance.name} down in nginx")
                    running.drain(instance, down=True)
                    time.sleep(2)  # nginx's old workers finish their requests to it
                step(f"SIGTERM {instance.name}")
                instance.stop()
                step(f"{instance.name} exited; starting it")
                instance.start()
                step(f"{instance.name} ready")
                if args.drain:
                    running.drain(instance, down=False)
                    step(f"{instance.name} back in nginx")
                time.sleep(args.settle)  # longer than nginx's fail_timeout (3 s)
            for instance in running.instances:
                step(f"SIGHUP {instance.name}")
                instance.reload_and_wait()
                step(f"{instance.name} reloaded")
                time.sleep(args.settle)
            step("load stops")
            stop.set()
            # The slowest request that started in each step, such as a reload's pause.
            slowest = [
                (name, tally.slowest_since(at, until))
                for (at, name), (until, _) in itertools.pairwise(steps)
            ]
            for loop in loops:
                loop.join(60)
            elapsed = time.monotonic() - started
            # A stream cut by the last reload may still be reconnecting: wait until every
            # stream has every event of its chat (or 60 s), then judge.
            ended = time.monotonic()
            while time.monotonic() - ended < 60:
                stored = stored_events(shop.chats)
                if all(
                    set(stored[c]) <= set(s.ids) for c, s in zip(shop.chats, streams, strict=True)
                ):
                    break
                time.sleep(0.5)
            caught_up = time.monotonic() - ended
            for stream in streams:
                stream.stopping.set()
            log = running.nginx_log()

    expected = stored_events(shop.chats)
    missing = sum(
        len(set(expected[c]) - set(s.ids)) for c, s in zip(shop.chats, streams, strict=True)
    )
    for chat, stream in zip(shop.chats, streams, strict=True):
        lost = sorted(set(expected[chat]) - set(stream.ids))
        if lost:
            last = max(stream.ids, default=0)
            print(
                f"chat {chat}: {len(lost)} missing, {sum(seq > last for seq in lost)} after the "
                f"last received ({last}); first missing {lost[:5]}; opens {stream.opens}"
            )
    duplicated = sum(len(s.ids) - len(set(s.ids)) for s in streams)
    out_of_order = sum(s.ids != sorted(s.ids) for s in streams)
    reconnects = sum(len(s.opens) - 1 for s in streams)
    bad_opens = sum(1 for s in streams for status in s.opens if status != 200)

    total = sum(tally.final.values())
    abnormal = {k: v for k, v in tally.final.items() if v and NORMAL[k[0]] != k[1]}
    print()
    print(f"requests: {total} (warm-up included), {args.clients} client loops")
    tally.report("steady", steady_seconds)
    tally.report("restarts", elapsed - steady_seconds)
    print("final statuses:", dict(sorted(tally.final.items())))
    print("not answered with their normal status:", abnormal or "none")
    for at, op, status, error in tally.abnormal:
        print(f"    {op} started at {at - started:.1f} s: {status} {error}")
    print("requests sent again by the client:", dict(tally.retried) or "none")
    print("first answers of those:", dict(tally.first_failures) or "none")
    print("requests nginx passed to the second instance:", nginx_retries(log))
    print("slowest request started during each step:")
    for name, seconds in slowest:
        print(f"    {name:28} {seconds * 1000:7.0f} ms")
    events = sum(len(v) for v in expected.values())
    print(
        f"events: {events} stored for {len(streams)} streamed chats; missing {missing}, "
        f"duplicated {duplicated}, out of order {out_of_order}; reconnections {reconnects}, "
        f"non-200 (re)connections {bad_opens}; every stream had every event {caught_up:.1f} s after "
        "the load stopped"
    )
    sys.exit(1 if abnormal or missing or duplicated or out_of_order else 0)


if __name__ == "__main__":
    main()
