"""Sustained price and stock updates through the catalog API while chats are answered.

Target: 10,000 updates a minute (`POST /v1/catalog/products/batch`, PATCH items of price,
sale price, availability and quantity) while `POST .../messages` keeps its p95. One run, two
phases of the same length on the same server and catalog: chats alone (the baseline), then
the same chats with the updates; the result is the updates' throughput and the messages' p95
under updates as a ratio to the baseline's. Some products have a PDP question set, so updates
also pay for generating those again (knowledge/catalog/freshness.py).

    .venv/bin/python bench/catalog_updates.py

Environment: CATALOG_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/
catalog_updates_bench; dropped and created), CATALOG_BENCH_SECONDS (per phase, default 60),
CATALOG_BENCH_PRODUCTS (default 10000), CATALOG_BENCH_RATE (updates a minute, default 10000),
CATALOG_BENCH_BATCH (items per batch, default 500), CATALOG_BENCH_CHATS (concurrent chat
clients, default 2), CATALOG_BENCH_WORKERS (gunicorn workers, default 2), CATALOG_BENCH_WRITE
(1: write the section of BENCHMARKS.md). Prints a Markdown table; writes
var/bench/catalog_updates.json.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault(
    "ASSISTANT_BENCH_DATABASE_URL",
    os.environ.get(
        "CATALOG_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/catalog_updates_bench"
    ),
)

from bench.assistant_common import VAR, django_setup, git_commit, summary  # noqa: E402

SECONDS = float(os.environ.get("CATALOG_BENCH_SECONDS", "60"))
PRODUCTS = int(os.environ.get("CATALOG_BENCH_PRODUCTS", "10000"))
RATE = int(os.environ.get("CATALOG_BENCH_RATE", "10000"))
BATCH = int(os.environ.get("CATALOG_BENCH_BATCH", "500"))
CHATS = int(os.environ.get("CATALOG_BENCH_CHATS", "2"))
WORKERS = os.environ.get("CATALOG_BENCH_WORKERS", "2")
WRITE = os.environ.get("CATALOG_BENCH_WRITE") == "1"
QUESTION_SETS = 300  # products whose page has a generated question set
SECTION = "## Catalog updates under chat load"

KINDS = [
    ("Shoes > Running", "running shoe", ["Stride", "Pace", "Trailhead"]),
    ("Electronics > Phones", "phone", ["Nova", "Pixelon", "Orbit"]),
    ("Electronics > Laptops", "laptop", ["Corebook", "Lumen", "Vertex"]),
    ("Home > Coffee Makers", "coffee maker", ["Brewster", "Crema", "Morning"]),
]
COLORS = ["Black", "Blue", "Red", "White", "Green"]


def page(number: int) -> str:
    return f"https://bench-shop.example/p/{number}"


def feed(path: Path) -> None:
    header = "id\ttitle\tlink\tprice\tavailability\tquantity\tbrand\tproduct_type\tcolor\n"
    with path.open("w") as out:
        out.write(header)
        for number in range(PRODUCTS):
            category, noun, brands = KINDS[number % len(KINDS)]
            brand, color = brands[number % 3], COLORS[number % len(COLORS)]
            price = 20 + (number * 37) % 900
            out.write(
                f"B-{number}\t{brand} {color} {noun.title()} {number}\t{page(number)}\t"
                f"{price}.00 EUR\tin_stock\t{number % 50}\t{brand}\t{category}\t{color}\n"
            )


def conversation() -> list[tuple[str, str]]:
    return [
        ("Show me running shoes under 100", "https://bench-shop.example/"),
        ("cheaper ones", "https://bench-shop.example/"),
        ("any Nova phones?", "https://bench-shop.example/"),
        ("How much is it?", page(1)),
        ("Is it in stock?", page(2)),
        ("laptops below 500", "https://bench-shop.example/"),
    ]


def chat_loop(client, chatbot_id: str, stop: threading.Event, latencies: list[float]) -> None:
    turns = conversation()
    chat_id = ""
    turn = 0
    while not stop.is_set():
        if turn % len(turns) == 0:
            chat_id = client.post("/v1/chats", json={"chatbotId": chatbot_id}).json()["id"]
        message, url = turns[turn % len(turns)]
        started = time.perf_counter()
        response = client.post(
            f"/v1/chats/{chat_id}/messages", json={"message": message, "currentUrl": url}
        )
        latencies.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 201, response.text
        turn += 1


def update_loop(client, stop: threading.Event, stats: dict) -> None:
    """Batches paced to RATE a minute; a late batch is sent at once (the lag is kept)."""
    interval = 60.0 * BATCH / RATE
    rng = random.Random(7)
    started = time.monotonic()
    sent = 0
    while not stop.is_set():
        due = started + sent * interval
        wait = due - time.monotonic()
        if wait > 0:
            if stop.wait(wait):
                break
        else:
            stats["lag_s"] = max(stats["lag_s"], -wait)
        items = []
        for number in rng.sample(range(PRODUCTS), BATCH):
            price = 20 + rng.randrange(900)
            change = {"price": f"{price}.00 EUR", "quantity": rng.randrange(60)}
            if rng.random() < 0.2:
                change["sale_price"] = f"{price * 0.8:.2f} EUR"
            if rng.random() < 0.1:
                change["availability"] = rng.choice(["out_of_stock", "in_stock", "backorder"])
            items.append({"method": "PATCH", "id": f"B-{number}", "product": change})
        begun = time.perf_counter()
        response = client.post("/v1/catalog/products/batch", json={"items": items})
        stats["batch_ms"].append((time.perf_counter() - begun) * 1000)
        assert response.status_code == 200, response.text
        stats["updated"] += sum(r["status"] == 200 for r in response.json()["results"])
        sent += 1
    stats["seconds"] = time.monotonic() - started


def warm_up(url: str, keys: dict, chatbot_id: str) -> None:
    """Every worker's connections and caches, before anything is timed."""
    import httpx

    with httpx.Client(base_url=url, headers={"x-api-key": keys["chat"]}, timeout=60) as client:
        for _ in range(2 * int(WORKERS)):
            chat_id = client.post("/v1/chats", json={"chatbotId": chatbot_id}).json()["id"]
            for message, page_url in conversation():
                client.post(
                    f"/v1/chats/{chat_id}/messages",
                    json={"message": message, "currentUrl": page_url},
                )


def phase(url: str, keys: dict, chatbot_id: str, *, updates: bool) -> dict:
    import httpx

    stop = threading.Event()
    latencies: list[list[float]] = [[] for _ in range(CHATS)]
    stats: dict = {"batch_ms": [], "updated": 0, "lag_s": 0.0, "seconds": 0.0}
    clients = [
        httpx.Client(base_url=url, headers={"x-api-key": keys["chat"]}, timeout=60)
        for _ in range(CHATS)
    ]
    threads = [
        threading.Thread(target=chat_loop, args=(client, chatbot_id, stop, samples))
        for client, samples in zip(clients, latencies, strict=True)
    ]
    if updates:
        catalog = httpx.Client(base_url=url, headers={"x-api-key": keys["catalog"]}, timeout=120)
        threads.append(threading.Thread(target=update_loop, args=(catalog, stop, stats)))
    for thread in threads:
        thread.start()
    time.sleep(SECONDS)
    stop.set()
    for thread in threads:
        thread.join()
    messages = [sample for samples in latencies for sample in samples]
    result: dict = {"messages": summary(messages)}
    if updates:
        minutes = stats["seconds"] / 60
        result["updates"] = {
            "applied": stats["updated"],
            "per_minute": round(stats["updated"] / minutes) if minutes else 0,
            "target_per_minute": RATE,
            "batch_size": BATCH,
            "batch": summary(stats["batch_ms"]),
            "max_lag_s": round(stats["lag_s"], 2),
        }
    return result


def main() -> None:
    django_setup(fresh=True)
    from django.core.management import call_command

    from accounts.models import Chatbot, Organization
    from accounts.services import api_key_issue
    from knowledge.pdp.services import question_set_get_or_generate

    VAR.mkdir(parents=True, exist_ok=True)
    organization = Organization.objects.create(name="Catalog Updates Bench")
    chatbot = Chatbot.objects.create(organization=organization, name="Bench assistant")
    feed(VAR / "catalog_updates.tsv")
    with open(os.devnull, "w") as devnull:
        call_command(
            "import_catalog", str(organization.pk), str(VAR / "catalog_updates.tsv"), stdout=devnull
        )
    for number in range(0, PRODUCTS, max(1, PRODUCTS // QUESTION_SETS)):
        question_set_get_or_generate(organization=organization, url=page(number))
    keys = {
        "chat": api_key_issue(organization=organization).key,
        "catalog": api_key_issue(organization=organization, scope="catalog").key,
    }
    from tests.server import start_server

    with start_server(
        LOG_LEVEL="ERROR",
        RATE_LIMIT_PER_KEY="off",
        WEB_CONCURRENCY=WORKERS,
        DEBUG="0",
        SECRET_KEY="assistant-bench",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        SECURE_HSTS_SECONDS="0",
        SECURE_COOKIES="0",
    ) as live:
        warm_up(live.url, keys, str(chatbot.pk))
        baseline = phase(live.url, keys, str(chatbot.pk), updates=False)
        loaded = phase(live.url, keys, str(chatbot.pk), updates=True)

    ratio = loaded["messages"]["p95_ms"] / baseline["messages"]["p95_ms"]
    result = {
        "commit": git_commit(),
        "seconds_per_phase": SECONDS,
        "products": PRODUCTS,
        "chat_clients": CHATS,
        "workers": WORKERS,
        "baseline": baseline,
        "with_updates": loaded,
        "messages_p95_ratio": round(ratio, 2),
    }
    (VAR / "catalog_updates.json").write_text(json.dumps(result, indent=2))
    text = report(result)
    print(text)
    if WRITE:
        write_section(text)


def report(result: dict) -> str:
    base, loaded = result["baseline"]["messages"], result["with_updates"]["messages"]
    updates = result["with_updates"]["updates"]
    return "\n".join(
        [
            SECTION,
            "",
            f"`.venv/bin/python bench/catalog_updates.py` at {result['commit']}: "
            f"{result['products']:,} products, {result['workers']} gunicorn workers, "
            f"{result['chat_clients']} chat clients one message at a time, "
            f"{result['seconds_per_phase']:.0f} s per phase; updates are batches of "
            f"{updates['batch_size']} PATCH items (price, quantity, some sale prices and "
            "availability) paced to the target.",
            "",
            "| phase | messages | message p50 ms | message p95 ms | updates / min | batch p95 ms |",
            "|---|---|---|---|---|---|",
            f"| chats alone | {base['n']} | {base['median_ms']} | {base['p95_ms']} | - | - |",
            f"| chats + updates | {loaded['n']} | {loaded['median_ms']} | {loaded['p95_ms']} | "
            f"{updates['per_minute']:,} (target {updates['target_per_minute']:,}) | "
            f"{updates['batch']['p95_ms']} |",
            "",
            f"Message p95 with updates / without: {result['messages_p95_ratio']}; "
            f"updates applied: {updates['applied']:,}; largest lag behind the pace: "
            f"{updates['max_lag_s']} s.",
            "",
        ]
    )


def write_section(text: str) -> None:
    path = ROOT / "BENCHMARKS.md"
    current = path.read_text()
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(current):
        current = pattern.sub(lambda _: text + "\n", current)
    else:
        current = current.rstrip("\n") + "\n\n" + text
    path.write_text(current)


if __name__ == "__main__":
    main()
