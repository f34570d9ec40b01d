"""`POST .../messages` latency on a 100,000-item catalog (PostgreSQL, production server).

Target: p95 of at most 60 ms. The catalog is bench/catalog_feed.py's generated feed
(80 brands, 40 product nouns, colours, sizes, materials, variants of 4), imported once with
`import_catalog`. One client sends conversations one message at a time over HTTP: a search
with a budget ("waterproof jackets under 180"), then follow-ups that search again or look up
products ("cheaper ones", "in black", "show more", "tell me more about the second one",
"compare the first two", "is it in stock?"), and product-page questions. Baseline in the same
run: `POST /v1/chats` on the same server.

    .venv/bin/python bench/assistant_catalog_100k.py

Environment: ASSISTANT_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/
assistant_bench; kept, so the catalog is imported once; ASSISTANT_BENCH_FRESH=1 recreates it),
ASSISTANT_BENCH_SIZE (default 100000), ASSISTANT_BENCH_CONVERSATIONS (default 40). Prints a
Markdown table; writes var/bench/assistant_catalog_100k.json.
"""

from __future__ import annotations

import json
import os
import random
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
from bench.catalog_feed import two_word_queries, write_feed  # noqa: E402

SIZE = int(os.environ.get("ASSISTANT_BENCH_SIZE", "100000"))
CONVERSATIONS = int(os.environ.get("ASSISTANT_BENCH_CONVERSATIONS", "40"))
TARGET_P95_MS = 60.0
HOME = "https://big-shop.example/"
FOLLOW_UPS = [
    "cheaper ones",
    "in black",
    "show more",
    "tell me more about the second one",
    "compare the first two",
    "is the first one in stock?",
    "what about something on sale?",
]
PAGE_QUESTIONS = ["How much is it?", "Is it in stock?", "does it come in L?", "who makes it?"]


def conversations(count: int) -> list[list[tuple[str, str]]]:
    rng = random.Random(7)
    plays = []
    for query, budget in two_word_queries(count):
        turns = [(f"{query} under {budget}", HOME)]
        turns += [(text, HOME) for text in rng.sample(FOLLOW_UPS, 4)]
        page = f"https://big-shop.example/p/{rng.randrange(SIZE):07d}"
        turns += [(text, page) for text in rng.sample(PAGE_QUESTIONS, 2)]
        plays.append(turns)
    return plays


def main() -> None:
    django_setup(fresh=os.environ.get("ASSISTANT_BENCH_FRESH") == "1")
    feed = write_feed(VAR / f"assistant-feed-{SIZE}.tsv", SIZE)
    organization, chatbot, key = shop(f"Assistant Bench {SIZE}", feed)
    assert organization.products.count() == SIZE
    import httpx

    chats: list[float] = []
    messages: list[float] = []
    plays = conversations(CONVERSATIONS)
    with server() as url, httpx.Client(base_url=url, headers={"x-api-key": key}) as client:

        def create_chat() -> str:
            response = client.post("/v1/chats", json={"chatbotId": str(chatbot.id)})
            assert response.status_code == 201, response.text
            return response.json()["id"]

        def send(chat_id: str, text: str, page: str) -> None:
            response = client.post(
                f"/v1/chats/{chat_id}/messages", json={"message": text, "currentUrl": page}
            )
            assert response.status_code == 201, response.text

        warm = create_chat()
        for text, page in plays[0]:  # warm-up: connections, the catalog's words
            send(warm, text, page)
        for turns in plays:
            chats.append(timed(create_chat))
            chat_id = create_chat()
            for text, page in turns:
                messages.append(timed(lambda c=chat_id, t=text, p=page: send(c, t, p)))

    chat_stats, message_stats = summary(chats), summary(messages)
    result = {
        "commit": git_commit(),
        "catalog_size": SIZE,
        "post_chats": chat_stats,
        "post_messages": message_stats,
        "target_p95_ms": TARGET_P95_MS,
        "meets_target": message_stats["p95_ms"] <= TARGET_P95_MS,
    }
    VAR.mkdir(parents=True, exist_ok=True)
    Path(VAR / "assistant_catalog_100k.json").write_text(json.dumps(result, indent=2))
    print(f"Catalog: {SIZE} items")
    print("| request | n | median ms | p95 ms | max ms |")
    print("|---|---|---|---|---|")
    for name, stats in (("POST /v1/chats", chat_stats), ("POST .../messages", message_stats)):
        print(
            f"| {name} | {stats['n']} | {stats['median_ms']} | {stats['p95_ms']} |"
            f" {stats['max_ms']} |"
        )
    print(f"\np95 of messages: {message_stats['p95_ms']} ms (target <= {TARGET_P95_MS})")


if __name__ == "__main__":
    main()
