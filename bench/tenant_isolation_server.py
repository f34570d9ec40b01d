"""One organization attacks the server while another's latency is measured (RELIABILITY.md,
"One tenant against the others").

Starts the production server (gunicorn, 2 gevent workers) with a private Redis on its own
PostgreSQL database, and two organizations. Organization B, the bystander, runs a probe loop
for the whole run: GET its chat, POST a message to it, and wait for the reply's events on an
event stream it holds open. Organization A runs one attack per phase:

- baseline: nothing;
- slow bodies: 200 connections POSTing messages with `Content-Length: 60000`, then one byte
  every 2 s each, reconnecting when refused (408 after REQUEST_BODY_TIMEOUT_SECONDS);
- stream flood: event streams opened until refused (EVENT_STREAMS_PER_ORGANIZATION, 1000),
  held, and more tried all the time;
- wrong keys: 4 connections sending made-up keys as fast as they are answered.

Each phase lasts `--seconds`; B's p50 and p99 per operation, its errors, and what A's
requests got are printed as JSON and as the Markdown rows of RELIABILITY.md.

    .venv/bin/python bench/tenant_isolation_server.py --seconds 15

The clients share this machine with the server: numbers are only comparable within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATABASE_URL = os.environ.get(
    "TENANT_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/tenant_isolation_bench"
)
ATTACKER = "198.51.100.7"  # X-Forwarded-For of each organization, through TRUSTED_PROXIES
BYSTANDER = "198.51.100.20"
SLOW_CONNECTIONS = 200
STREAM_FLOOD = 1100
WRONG_KEY_CONNECTIONS = 4


def setup(database_url: str) -> None:
    import psycopg

    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    os.environ.update(
        DATABASE_URL=database_url,
        SECRET_KEY="tenant-bench",
        DJANGO_SETTINGS_MODULE="assistant_api.settings",
        LOG_LEVEL="ERROR",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def organization(name: str) -> tuple[str, str]:
    """A new organization's key and one of its chats."""
    from accounts.services import api_key_issue
    from chats.models import Chat
    from tests.factories import ChatbotFactory, OrganizationFactory

    org = OrganizationFactory(name=name)
    chatbot = ChatbotFactory(organization=org)
    chat = Chat.objects.create(organization=org, chatbot=chatbot)
    return api_key_issue(organization=org).key, str(chat.id)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


class Bystander:
    """Organization B's probe loop and its open event stream."""

    def __init__(self, url: str, key: str, chat_id: str) -> None:
        import httpx

        self.headers = {"x-api-key": key, "X-Forwarded-For": BYSTANDER}
        self.client = httpx.Client(base_url=url, headers=self.headers, timeout=30)
        self.chat_id = chat_id
        self.samples: dict[str, list[float]] = {}
        self.errors: Counter[str] = Counter()
        self.reply_ended = threading.Event()
        self.stop = threading.Event()
        self.stream = threading.Thread(target=self._read_stream, args=(url,), daemon=True)
        self.stream.start()

    def _read_stream(self, url: str) -> None:
        import httpx

        path = f"/v1/chats/{self.chat_id}/messages/events"
        with (
            httpx.Client(base_url=url, headers=self.headers, timeout=None) as client,
            client.stream("GET", path) as response,
        ):
            for line in response.iter_lines():
                if line.startswith("data:") and json.loads(line[5:])["status"] in (
                    "completed",
                    "failed",
                ):
                    self.reply_ended.set()

    def run(self) -> None:
        body = {"message": "hi", "currentUrl": "https://shop.example/"}
        path = f"/v1/chats/{self.chat_id}/messages"
        while not self.stop.is_set():
            self._timed("get_chat", lambda: self.client.get(f"/v1/chats/{self.chat_id}"), 200)
            self.reply_ended.clear()
            started = time.perf_counter()  # delivery: from sending the message to its reply's end
            if self._timed("post_message", lambda: self.client.post(path, json=body), 201):
                if self.reply_ended.wait(10):
                    self._sample("stream_delivery", time.perf_counter() - started)
                else:
                    self.errors["stream_delivery: none within 10 s"] += 1
            time.sleep(0.05)

    def _timed(self, name: str, call: Callable, expected: int) -> bool:
        started = time.perf_counter()
        try:
            status = call().status_code
        except Exception as exc:  # a timeout is a result too
            self.errors[f"{name}: {type(exc).__name__}"] += 1
            return False
        self._sample(name, time.perf_counter() - started)
        if status != expected:
            self.errors[f"{name}: {status}"] += 1
        return status == expected

    def _sample(self, name: str, seconds: float) -> None:
        self.samples.setdefault(name, []).append(seconds * 1000)

    def take(self) -> dict:
        samples, errors = self.samples, self.errors
        self.samples, self.errors = {}, Counter()
        result: dict = {
            name: {
                "n": len(values),
                "p50_ms": round(statistics.median(values), 1),
                "p99_ms": round(percentile(values, 0.99), 1),
            }
            for name, values in samples.items()
        }
        result["errors"] = dict(errors)
        return result


def raw_connection(url: str) -> socket.socket:
    parts = urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=10)


def status_of(answer: bytes) -> str:
    return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/") else "closed"


def slow_bodies(url: str, key: str, chat_id: str, stop: threading.Event) -> Counter[str]:
    """SLOW_CONNECTIONS bodies that never finish: a byte every 2 s each, reopened when answered."""
    head = (
        f"POST /v1/chats/{chat_id}/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: {key}\r\n"
        f"X-Forwarded-For: {ATTACKER}\r\nContent-Type: application/json\r\n"
        "Content-Length: 60000\r\n\r\n"
    ).encode()
    seen: Counter[str] = Counter()

    def opened() -> socket.socket:
        sock = raw_connection(url)
        sock.sendall(head)
        sock.setblocking(False)
        return sock

    sockets = [opened() for _ in range(SLOW_CONNECTIONS)]
    while not stop.wait(2):
        for index, sock in enumerate(sockets):
            try:
                answer = sock.recv(4096)
            except BlockingIOError:
                try:
                    sock.send(b"a")
                    continue
                except OSError:
                    answer = b""
            except OSError:
                answer = b""
            seen[status_of(answer)] += 1
            sock.close()
            sockets[index] = opened()
    for sock in sockets:
        sock.close()
    return seen


def stream_flood(url: str, key: str, chat_id: str, stop: threading.Event) -> Counter[str]:
    """Streams opened until refused, held, and more tried every 50 ms."""
    request = (
        f"GET /v1/chats/{chat_id}/messages/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: {key}\r\n"
        f"X-Forwarded-For: {ATTACKER}\r\n\r\n"
    ).encode()
    seen: Counter[str] = Counter()
    held = []

    def attempt() -> None:
        sock = raw_connection(url)
        sock.sendall(request)
        status = status_of(sock.recv(4096))
        seen[status] += 1
        if status == "200":
            held.append(sock)
        else:
            sock.close()

    for _ in range(STREAM_FLOOD):
        if stop.is_set():
            break
        attempt()
    while not stop.wait(0.05):
        attempt()
    seen["held"] = len(held)
    for sock in held:
        sock.close()
    return seen


def wrong_keys(url: str, key: str, chat_id: str, stop: threading.Event) -> Counter[str]:
    import httpx

    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def guess(worker: int) -> None:
        headers = {"X-Forwarded-For": ATTACKER}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            count = 0
            while not stop.is_set():
                made_up = f"sk_stag_{worker:04x}{count % 65536:04x}_" + "x" * 43
                status = client.get(f"/v1/chats/{chat_id}", headers={"x-api-key": made_up})
                with lock:
                    seen[str(status.status_code)] += 1
                count += 1

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(WRONG_KEY_CONNECTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen


def nothing(url: str, key: str, chat_id: str, stop: threading.Event) -> Counter[str]:
    stop.wait()
    return Counter()


ATTACKS = {
    "baseline": nothing,
    "slow bodies": slow_bodies,
    "stream flood": stream_flood,
    "wrong keys": wrong_keys,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--only", help="comma-separated phases (default: all)")
    parser.add_argument("--pool", default="20", help="DB_POOL_MAX_SIZE per worker")
    args = parser.parse_args()
    phases = args.only.split(",") if args.only else list(ATTACKS)

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    setup(DATABASE_URL)
    attacker_key, attacker_chat = organization("attacker")
    bystander_key, bystander_chat = organization("bystander")

    from tests.server import free_port, redis_server, start_server

    with (
        redis_server(free_port()) as redis_url,
        start_server(
            DATABASE_URL=DATABASE_URL,
            REDIS_URL=redis_url,
            WEB_CONCURRENCY="2",
            DB_POOL_MAX_SIZE=args.pool,
            TRUSTED_PROXIES="127.0.0.1",
            RATE_LIMIT_PER_KEY="off",  # the probe loop is not what is measured against
            RATE_LIMIT_FAILED_AUTH="60/min",
            LOG_LEVEL="ERROR",
            DEBUG="0",
            SECRET_KEY="tenant-bench",
            SECURE_SSL_REDIRECT="0",
            SECURE_HSTS_SECONDS="0",
            SECURE_COOKIES="0",
        ) as live,
    ):
        bystander = Bystander(live.url, bystander_key, bystander_chat)
        probe = threading.Thread(target=bystander.run, daemon=True)
        probe.start()
        time.sleep(2)  # warm-up
        bystander.take()
        results = {}
        for phase in phases:
            stop = threading.Event()
            outcome: dict[str, Counter[str]] = {}

            def attack(phase=phase, stop=stop, outcome=outcome) -> None:
                outcome["attacker"] = ATTACKS[phase](live.url, attacker_key, attacker_chat, stop)

            attacker = threading.Thread(target=attack)
            attacker.start()
            time.sleep(args.seconds)
            results[phase] = bystander.take()
            stop.set()
            attacker.join()
            results[phase]["attacker"] = dict(outcome.get("attacker", {}))
            time.sleep(3)  # let the server settle between phases
            bystander.take()
        bystander.stop.set()
        probe.join(timeout=15)

    print(json.dumps(results, indent=2))
    print(
        "\n| Attack (org A) | GET chat p50 / p99 | POST message p50 / p99 | stream delivery p50 / p99 | B's errors | A got |"
    )
    print("|---|---|---|---|---|---|")
    for phase, result in results.items():
        cells = []
        for name in ("get_chat", "post_message", "stream_delivery"):
            s = result.get(name)
            cells.append(f"{s['p50_ms']} / {s['p99_ms']} ms" if s else "-")
        errors = ", ".join(f"{k} x{v}" for k, v in result["errors"].items()) or "none"
        got = ", ".join(f"{k} x{v}" for k, v in sorted(result["attacker"].items())) or "-"
        print(f"| {phase} | {' | '.join(cells)} | {errors} | {got} |")


if __name__ == "__main__":
    main()
