"""`POST .../messages` latency against `POST /v1/chats`, same server, same run (demo catalog).

Target: the median latency of a message (the catalog engine's whole reply: user
message, tools and text published as events, reply stored) is at most 3 times the median of
creating a chat. One client sends the two requests alternately, one at a time, over HTTP to
the production server (gunicorn, gevent) on PostgreSQL; messages cycle through a realistic
mix (searches with budgets, follow-ups, product-page questions, store stock, small talk).

    .venv/bin/python bench/assistant_latency.py

Environment: ASSISTANT_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/
assistant_bench; dropped and created), ASSISTANT_BENCH_ROUNDS (default 300). Prints a Markdown
table; writes var/bench/assistant_latency.json.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.assistant_common import (  # noqa: E402
    VAR,
    django_setup,
    git_commit,
    server,
    shop,
    summary,
    timed,
)

ROUNDS = int(os.environ.get("ASSISTANT_BENCH_ROUNDS", "300"))
TARGET_RATIO = 3.0
CATALOGS = ROOT / "catalogs"
HOME = "https://demo-shop.example/"
PDP = "https://demo-shop.example/products/chanel-coco-noir-eau-de-7"
# (message, page, store): one conversation, replayed in a new chat each time it ends.
CONVERSATION = [
    ("Hi!", HOME, ""),
    ("Show me phones under 300", HOME, ""),
    ("cheaper ones", HOME, ""),
    ("what about Samsung?", HOME, ""),
    ("tell me more about the first one", HOME, ""),
    ("laptops below $1,500 not Apple", HOME, ""),
    ("compare the first two", HOME, ""),
    ("How much is it?", PDP, ""),
    ("Is it in stock?", PDP, "store-berlin-mitte"),
    ("something similar but cheaper", PDP, ""),
    ("Rolex under $100", HOME, ""),
    ("thanks!", HOME, ""),
]


def main() -> None:
    django_setup(fresh=True)
    _, chatbot, key = shop(
        "Assistant Bench Demo",
        CATALOGS / "demo-shop-products.tsv",
        inventory=CATALOGS / "demo-shop-local-inventory.tsv",
        stores=CATALOGS / "demo-shop-stores.tsv",
    )
    import httpx

    chats: list[float] = []
    messages: list[float] = []
    with server() as url, httpx.Client(base_url=url, headers={"x-api-key": key}) as client:
        body = {"chatbotId": str(chatbot.id)}

        def create_chat() -> str:
            response = client.post("/v1/chats", json=body)
            assert response.status_code == 201, response.text
            return response.json()["id"]

        def send(chat_id: str, turn: tuple[str, str, str]) -> None:
            text, page, store = turn
            path = f"/v1/chats/{chat_id}/messages" + (f"?store={store}" if store else "")
            response = client.post(path, json={"message": text, "currentUrl": page})
            assert response.status_code == 201, response.text

        chat_id = create_chat()
        for warm in range(2 * len(CONVERSATION)):  # warm-up: connections, caches, vocabulary
            timed(create_chat)
            send(chat_id, CONVERSATION[warm % len(CONVERSATION)])
        for round_number in range(ROUNDS):
            turn = CONVERSATION[round_number % len(CONVERSATION)]
            if round_number % len(CONVERSATION) == 0:
                chat_id = create_chat()
            chats.append(timed(create_chat))
            messages.append(timed(lambda c=chat_id, t=turn: send(c, t)))

    chat_stats, message_stats = summary(chats), summary(messages)
    ratio = message_stats["median_ms"] / chat_stats["median_ms"]
    result = {
        "commit": git_commit(),
        "rounds": ROUNDS,
        "post_chats": chat_stats,
        "post_messages": message_stats,
        "median_ratio": round(ratio, 2),
        "target_ratio": TARGET_RATIO,
        "meets_target": ratio <= TARGET_RATIO,
    }
    VAR.mkdir(parents=True, exist_ok=True)
    Path(VAR / "assistant_latency.json").write_text(json.dumps(result, indent=2))
    print("| request | n | median ms | p95 ms | max ms |")
    print("|---|---|---|---|---|")
    for name, stats in (("POST /v1/chats", chat_stats), ("POST .../messages", message_stats)):
        print(
            f"| {name} | {stats['n']} | {stats['median_ms']} | {stats['p95_ms']} |"
            f" {stats['max_ms']} |"
        )
    print(f"\nmedian ratio messages/chats: {ratio:.2f} (target <= {TARGET_RATIO})")


if __name__ == "__main__":
    main()
