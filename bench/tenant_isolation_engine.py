"""One organization's hostile messages against another's latency, on one shared worker.

Organization A sends, back to back from one client, each kind of message that once froze a
worker or failed (RELIABILITY.md, "One tenant against the others"); meanwhile organization B,
on the same server (gunicorn, one gevent worker, so every request shares the worker A's
messages run on), reads its chat, sends messages, and follows its event stream. Each phase
lasts BENCH_SECONDS; the first has no attack and is the baseline of the same run.

    .venv/bin/python bench/tenant_isolation_engine.py

Environment: ASSISTANT_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/
assistant_bench; dropped and created), BENCH_SECONDS (default 8). Prints a Markdown table of
B's p50 and p99 per phase (and their ratio to the baseline's p99); writes
var/bench/tenant_isolation_engine.json.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.assistant_common import VAR, django_setup, git_commit, server, shop  # noqa: E402

SECONDS = float(os.environ.get("BENCH_SECONDS", "8"))
CATALOG = ROOT / "eval" / "catalogs" / "fashion-products.tsv"
HOME = "https://fashion.example/"


def new_each_time(*messages: str) -> Callable[[], Iterator[str]]:
    """The messages in turn, each made new by a number at its end (within 4,000 characters),
    so the per-catalog cache of readings never answers for one: every one is read."""

    def sent() -> Iterator[str]:
        for number, message in enumerate(itertools.cycle(messages)):
            tail = f" {number}"
            yield message[: 4000 - len(tail)] + tail

    return sent


ATTACKS: dict[str, Callable[[], Iterator[str]]] = {
    "none (baseline)": lambda: iter(()),
    '"1" * 4000': new_each_time("1" * 4000),
    '"men " * 1000': new_each_time("men " * 1000),
    '"1" + ",111" * 999': new_each_time("1" + ",111" * 999),
    "4,000-char sentences into one chat (its history grows)": new_each_time(
        "a red dress under 50 for men " * 150
    ),
    "huge amounts (6 kinds)": new_each_time(
        "under " + "9" * 309,
        "over " + "9" * 309,
        "between 1 and " + "9" * 309,
        "9" * 309 + " or more",
        "under 1" + ",000" * 110,
        "around " + "9" * 29,
    ),
}


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


def new_chat(client: httpx.Client, chatbot_id) -> str:
    response = client.post("/v1/chats", json={"chatbotId": str(chatbot_id)})
    response.raise_for_status()
    return response.json()["id"]


def attack(url: str, key: str, chatbot_id, messages: Iterator[str], stop: threading.Event):
    """Sends `messages` one after another until `stop`; returns (sent, slowest ms, statuses)."""
    sent, slowest, statuses = 0, 0.0, set()
    with httpx.Client(base_url=url, headers={"x-api-key": key}, timeout=120) as client:
        chat_id = new_chat(client, chatbot_id)
        for message in messages:
            if stop.is_set():
                break
            started = time.perf_counter()
            response = client.post(
                f"/v1/chats/{chat_id}/messages", json={"message": message, "currentUrl": HOME}
            )
            slowest = max(slowest, (time.perf_counter() - started) * 1000)
            statuses.add(response.status_code)
            sent += 1
    return sent, slowest, statuses


def bystander(url: str, key: str, chatbot_id, seconds: float) -> dict[str, list[float]]:
    """B's latencies (ms): GET chat, POST message, and the stream's delivery of the reply's
    `completed` event counted from the POST's start."""
    from tests.chats.stream_client import StreamReader

    samples: dict[str, list[float]] = {"get_chat": [], "post_message": [], "stream": []}
    with httpx.Client(base_url=url, headers={"x-api-key": key}, timeout=120) as client:
        chat_id = new_chat(client, chatbot_id)
        events = f"{url}/v1/chats/{chat_id}/messages/events"
        with StreamReader(events, {"x-api-key": key}, read_timeout=120) as stream:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                started = time.perf_counter()
                client.get(f"/v1/chats/{chat_id}").raise_for_status()
                samples["get_chat"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                response = client.post(
                    f"/v1/chats/{chat_id}/messages",
                    json={"message": "Show me dresses under 100", "currentUrl": HOME},
                )
                response.raise_for_status()
                samples["post_message"].append((time.perf_counter() - started) * 1000)
                stream.events_until(
                    lambda e: e["status"] in ("completed", "failed") and "toolName" not in e,
                    timeout=120,
                )
                samples["stream"].append((time.perf_counter() - started) * 1000)
    return samples


def main() -> None:
    django_setup(fresh=True)
    _, attacker_bot, attacker_key = shop("Tenant A (hostile)", CATALOG)
    _, bystander_bot, bystander_key = shop("Tenant B (bystander)", CATALOG)
    rows = []
    with server() as url:
        for name, messages in ATTACKS.items():
            stop = threading.Event()
            outcome: list[tuple[int, float, set[int]]] = []
            thread = threading.Thread(
                target=lambda *args: outcome.append(attack(*args)),  # noqa: B023 (joined below)
                args=(url, attacker_key, attacker_bot.id, messages(), stop),
            )
            thread.start()
            samples = bystander(url, bystander_key, bystander_bot.id, SECONDS)
            stop.set()
            thread.join()
            sent, slowest, statuses = outcome[0]
            row = {"attack": name, "attack_messages": sent, "attack_slowest_ms": round(slowest)}
            row["attack_statuses"] = sorted(statuses)
            for kind, values in samples.items():
                row[kind] = {
                    "n": len(values),
                    "p50_ms": round(statistics.median(values), 1),
                    "p99_ms": round(percentile(values, 0.99), 1),
                }
            rows.append(row)
            print(f"{name}: {row}", file=sys.stderr)
    baseline = rows[0]
    print(f"Commit {git_commit()}, {SECONDS:g} s per phase, one gevent worker.\n")
    print(
        "| A sends (back to back) | A msgs, slowest ms, statuses | B GET chat p50 / p99 ms "
        "| B POST message p50 / p99 ms | B stream delivery p50 / p99 ms | B p99 / baseline p99 |"
    )
    print("|---|---|---|---|---|---|")
    for row in rows:
        cells = [f"{row[k]['p50_ms']} / {row[k]['p99_ms']}" for k in ("get_chat", "post_message")]
        cells.append(f"{row['stream']['p50_ms']} / {row['stream']['p99_ms']}")
        ratio = " / ".join(
            f"{row[k]['p99_ms'] / baseline[k]['p99_ms']:.1f}"
            for k in ("get_chat", "post_message", "stream")
        )
        statuses = ",".join(str(s) for s in row["attack_statuses"]) or "-"
        attacker = f"{row['attack_messages']}, {row['attack_slowest_ms']}, {statuses}"
        print(f"| {row['attack']} | {attacker} | {' | '.join(cells)} | {ratio} |")
    VAR.mkdir(parents=True, exist_ok=True)
    (VAR / "tenant_isolation_engine.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
