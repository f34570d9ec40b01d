"""What the event stream's NOTIFY costs the writers: on vs off, same run.

Two measurements, each alternating `SSE_NOTIFY` on and off in rounds so drift hits both:
1. `POST /v1/chats/{chatId}/messages` throughput on the real server (gunicorn, gevent, the
   catalog engine on the demo shop; every reply publishes ~8 events), with concurrent clients
   and one open event stream (so the listener LISTENs, as in production).
2. Raw `EventPublisher.publish` throughput from several threads (events/s), where the
   database-wide lock NOTIFY takes at commit would show first.

    .venv/bin/python bench/sse_notify_cost.py

Environment: SSE_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/
sse_notify_bench; dropped and created). Notifications should be batched or coalesced if they
cost the writers more than 10%.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault(
    "ASSISTANT_BENCH_DATABASE_URL",
    os.environ.get(
        "SSE_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/sse_notify_bench"
    ),
)

from bench.assistant_common import django_setup, shop  # noqa: E402

CATALOGS = ROOT / "catalogs"
MESSAGES = ["Show me phones under 300", "laptops below $1,500 not Apple", "thanks!"]
ROUNDS = int(os.environ.get("SSE_BENCH_ROUNDS", "2"))
SECONDS = float(os.environ.get("SSE_BENCH_SECONDS", "15"))
CLIENTS = int(os.environ.get("SSE_BENCH_CLIENTS", "8"))


def post_throughput(chatbot, key: str, notify: str) -> dict[str, float]:
    import httpx

    from tests.chats.stream_client import StreamReader
    from tests.server import start_server

    with start_server(
        SSE_NOTIFY=notify,
        LOG_LEVEL="ERROR",
        RATE_LIMIT_PER_KEY="off",
        WEB_CONCURRENCY="2",
        DEBUG="0",
        SECRET_KEY="assistant-bench",
        SECURE_SSL_REDIRECT="0",
        SECURE_HSTS_SECONDS="0",
        SECURE_COOKIES="0",
    ) as server:
        headers = {"x-api-key": key}
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
            watched = client.post("/v1/chats", json={"chatbotId": str(chatbot.id)}).json()["id"]
        stream = StreamReader(f"{server.url}/v1/chats/{watched}/messages/events", headers).start()
        done: list[int] = []
        failed: list[int] = []
        deadline = time.monotonic() + SECONDS

        def client_loop() -> None:
            with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
                created = client.post("/v1/chats", json={"chatbotId": str(chatbot.id)})
                assert created.status_code == 201, created.text
                chat = created.json()["id"]
                i = 0
                while time.monotonic() < deadline:
                    response = client.post(
                        f"/v1/chats/{chat}/messages",
                        json={
                            "message": MESSAGES[i % len(MESSAGES)],
                            "currentUrl": "https://demo-shop.example/",
                        },
                    )
                    (done if response.status_code == 201 else failed).append(1)
                    i += 1

        threads = [threading.Thread(target=client_loop) for _ in range(CLIENTS)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        stream.close()
    return {"posts_per_second": len(done) / elapsed, "failed": len(failed)}


def publish_throughput(chat_ids, notify: bool, threads: int = 8, seconds: float = 8) -> float:
    from django.db import connection
    from django.test.utils import override_settings

    from chats.events import EventPublisher

    count = [0] * threads
    deadline = time.monotonic() + seconds

    def loop(n: int) -> None:
        with override_settings(SSE_NOTIFY=notify):
            publisher = EventPublisher(chat_id=chat_ids[n])
            while time.monotonic() < deadline:
                publisher.chunk("some text of a reply ")
                count[n] += 1
        connection.close()

    workers = [threading.Thread(target=loop, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(count) / seconds


def main() -> None:
    django_setup(fresh=True)
    _, chatbot, key = shop(
        "Notify bench",
        CATALOGS / "demo-shop-products.tsv",
        inventory=CATALOGS / "demo-shop-local-inventory.tsv",
        stores=CATALOGS / "demo-shop-stores.tsv",
    )
    from django.db import connection

    from chats.models import Chat

    chats = [
        Chat.objects.create(organization=chatbot.organization, chatbot=chatbot).id for _ in range(8)
    ]
    connection.close()
    results: dict[str, list[float]] = {
        "post_on": [],
        "post_off": [],
        "publish_on": [],
        "publish_off": [],
    }
    for _ in range(ROUNDS):
        for notify in ("on", "off"):
            post = post_throughput(chatbot, key, notify)
            results[f"post_{notify}"].append(post["posts_per_second"])
            assert post["failed"] == 0, post
            results[f"publish_{notify}"].append(publish_throughput(chats, notify == "on"))
            print(
                json.dumps(
                    {
                        "notify": notify,
                        **post,
                        "publish_per_second": results[f"publish_{notify}"][-1],
                    }
                ),
                flush=True,
            )
    mean = {name: sum(values) / len(values) for name, values in results.items()}
    print(
        json.dumps(
            {
                "rounds": ROUNDS,
                "clients": CLIENTS,
                "seconds": SECONDS,
                **{name: round(value, 1) for name, value in mean.items()},
                "post_cost_percent": round(100 * (1 - mean["post_on"] / mean["post_off"]), 1),
                "publish_cost_percent": round(
                    100 * (1 - mean["publish_on"] / mean["publish_off"]), 1
                ),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
