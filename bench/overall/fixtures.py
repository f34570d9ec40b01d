"""The benchmark's data: the demo shop, a large catalog, chats, histories and PDP sets.

Organizations, keys and catalogs come from the operators' commands
(docs/api.md#operators-command-line); chats,
messages and question sets come from the HTTP API itself, so they are what integrators make.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from urllib.parse import quote

import httpx

# The catalog engineer's generator (bench/catalog_feed.py) makes the large catalog.
from bench.catalog_feed import two_word_queries, write_feed
from bench.overall.deployment import VAR, Deployment
from bench.overall.loadgen import Request

BIG_ORGANIZATION = "Bench Big Shop"
HISTORY_MESSAGES = 10  # user + answer each: with the greeting, a full first page of 20

# What shoppers ask: searches with filters, and questions about the product page they are on.
SEARCHES = [
    "do you have mascara?",
    "show me running shoes under 100",
    "I need a smartphone from samsung",
    "any laptops on sale?",
    "a gift for my mother who likes perfume",
    "kitchen tools for baking",
    "womens watches in black",
    "sunglasses for the beach",
    "cheap headphones",
    "a sofa for the living room",
]
PAGE_QUESTIONS = ["is it in stock?", "does it come in other colors?", "how much is it?"]
# Searches of the generated catalog: "<adjective or colour> <noun> under <price>".
BIG_SEARCHES = [f"{query} under {price}" for query, price in two_word_queries(10)]


def item_url(number: int) -> str:
    """The canonical product page URL of generated item `number` (bench/catalog_feed.py)."""
    return f"https://big-shop.example/p/{number:07d}"


@dataclass
class Tenant:
    organization_id: str
    chatbot_id: str
    key: str
    product_urls: list[str] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        return {"x-api-key": self.key, "content-type": "application/json"}


@dataclass
class Fixtures:
    demo: Tenant
    big: Tenant
    catalog_size: int
    import_seconds: float
    chat_id: str = ""
    history_chat_id: str = ""
    demo_chats: list[str] = field(default_factory=list)
    big_chats: list[str] = field(default_factory=list)
    floor_chats: list[str] = field(default_factory=list)  # the message floor's (floors.py)
    pdp_url: str = ""
    next_big_item: int = 0  # PDP POST: the next catalog item without a set

    def pdp_post_requests(self, count: int) -> list[Request]:
        """Up to `count` POSTs for URLs no set exists for yet, so each one generates.

        A small debugging catalog may run out: wrk then wraps around to URLs that have a set.
        """
        first = self.next_big_item
        self.next_big_item = min(first + count, self.catalog_size)
        if self.next_big_item == first:
            raise RuntimeError("the catalog has run out of PDP URLs without a set")
        path = "/v1/knowledge/pdp-questions/public/get-questions"
        return [
            Request("POST", path, {"url": item_url(n), "organizationId": self.big.organization_id})
            for n in range(first, self.next_big_item)
        ]


def load_catalogs(deployment: Deployment, *, catalog_size: int) -> Fixtures:
    """Migrates, seeds the demo shop and imports the large catalog of a second organization."""
    deployment.manage("migrate", "--noinput")
    seeded = deployment.manage_json("seed_demo")
    deployment.manage("set_quota", seeded["organizationId"], "unlimited")
    demo = Tenant(seeded["organizationId"], seeded["chatbotId"], seeded["apiKey"])

    big_id = deployment.manage_json("create_organization", BIG_ORGANIZATION)["organizationId"]
    deployment.manage("set_quota", big_id, "unlimited")
    big_bot = deployment.manage_json("create_chatbot", big_id, "Big Assistant")["chatbotId"]
    big_key = deployment.manage_json("issue_api_key", big_id)["apiKey"]
    big = Tenant(big_id, big_bot, big_key)

    feed = write_feed(VAR / f"catalog-{catalog_size}.tsv", catalog_size)
    started = time.monotonic()
    report = deployment.manage_json("import_catalog", big_id, str(feed))
    import_seconds = time.monotonic() - started
    if report.get("errors") or report.get("created") != catalog_size:
        raise RuntimeError(f"catalog import went wrong: {str(report)[:500]}")
    demo.product_urls = deployment.sql(
        "SELECT url FROM knowledge_product WHERE organization_id = "
        f"'{demo.organization_id}' ORDER BY item_id"
    ).splitlines()
    big.product_urls = [item_url(n) for n in range(0, catalog_size, max(1, catalog_size // 200))]
    return Fixtures(demo, big, catalog_size, import_seconds)


def create_conversations(fixtures: Fixtures, base_url: str, *, chats_per_catalog: int = 64) -> None:
    """Chats for the read endpoints and the message POSTs, and the PDP set the GET reads."""
    with httpx.Client(base_url=base_url, timeout=60) as client:
        fixtures.chat_id = new_chat(client, fixtures.demo)
        fixtures.history_chat_id = new_chat(client, fixtures.demo)
        for number in range(HISTORY_MESSAGES):
            url = fixtures.demo.product_urls[number % len(fixtures.demo.product_urls)]
            body = {"message": SEARCHES[number % len(SEARCHES)], "currentUrl": url}
            response = client.post(
                f"/v1/chats/{fixtures.history_chat_id}/messages",
                json=body,
                headers=fixtures.demo.headers,
            )
            response.raise_for_status()
        fixtures.demo_chats = [new_chat(client, fixtures.demo) for _ in range(chats_per_catalog)]
        fixtures.big_chats = [new_chat(client, fixtures.big) for _ in range(chats_per_catalog)]
        fixtures.floor_chats = [new_chat(client, fixtures.demo) for _ in range(chats_per_catalog)]

        fixtures.pdp_url = fixtures.demo.product_urls[0]
        generated = client.post(
            "/v1/knowledge/pdp-questions/public/get-questions",
            json={"url": fixtures.pdp_url, "organizationId": fixtures.demo.organization_id},
        )
        generated.raise_for_status()
        if generated.json() is None:
            raise RuntimeError(f"no PDP set generated for {fixtures.pdp_url}")


def new_chat(client: httpx.Client, tenant: Tenant) -> str:
    response = client.post(
        "/v1/chats", json={"chatbotId": tenant.chatbot_id}, headers=tenant.headers
    )
    response.raise_for_status()
    return response.json()["id"]


def message_requests(
    chats: list[str], product_urls: list[str], searches: list[str] = SEARCHES
) -> list[Request]:
    """One message per chat per round; searches and product-page questions alternate."""
    questions = [*searches, *PAGE_QUESTIONS]
    requests = []
    for round_number in range(len(questions)):
        for index, chat_id in enumerate(chats):
            question = questions[(round_number + index) % len(questions)]
            url = product_urls[(round_number * len(chats) + index) % len(product_urls)]
            requests.append(
                Request(
                    "POST",
                    f"/v1/chats/{chat_id}/messages",
                    {"message": question, "currentUrl": url},
                )
            )
    return requests


def floor_message_requests(fixtures: Fixtures) -> list[Request]:
    """The demo messages of `message_requests`, to the message floor (bench/overall/floors.py)."""
    organization_id = fixtures.demo.organization_id
    return [
        Request(
            "POST",
            "/bench/floor/message",
            {
                **(request.body or {}),
                "chatId": request.path.split("/")[3],
                "organizationId": organization_id,
            },
        )
        for request in message_requests(fixtures.floor_chats, fixtures.demo.product_urls)
    ]


def pdp_get_path(fixtures: Fixtures) -> str:
    return (
        f"/v1/knowledge/pdp-questions/{fixtures.demo.organization_id}/public"
        f"?url={quote(fixtures.pdp_url, safe='')}"
    )
