"""A catalog change reaches shoppers at once, on the real server with several workers, each
with its own caches: the chat's next reply, the catalog search and the PDP question set."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from accounts.services import api_key_issue
from tests.factories import ChatbotFactory, OrganizationFactory
from tests.server import LiveServer, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WORKERS = 3
PAGE = "https://shop.example/p/trail-runner"
# A worker's caches are used after it served a request: enough requests that each has.
WARMING_REQUESTS = 4 * WORKERS


@pytest.fixture(scope="module")
def workers_process(committed_database, django_db_blocker) -> Iterator[LiveServer]:
    with django_db_blocker.unblock(), start_server(WEB_CONCURRENCY=str(WORKERS)) as server:
        yield server


class Shop:
    """One organization on the live server, as its integrator and its shop's pages call it."""

    def __init__(self, live: LiveServer) -> None:
        organization = OrganizationFactory()
        self.organization_id = str(organization.pk)
        self.chatbot_id = str(ChatbotFactory(organization=organization).pk)
        chat_key = api_key_issue(organization=organization).key
        catalog_key = api_key_issue(organization=organization, scope="catalog").key
        self.chat_api = httpx.Client(base_url=live.url, headers={"x-api-key": chat_key}, timeout=30)
        self.catalog = httpx.Client(
            base_url=live.url, headers={"x-api-key": catalog_key}, timeout=30
        )
        self.public = httpx.Client(base_url=live.url, timeout=30)

    def product(self, item_id: str, **values: str) -> None:
        response = self.catalog.put(f"/v1/catalog/products/{item_id}", json=values)
        assert response.status_code == 201, response.text

    def patch(self, item_id: str, **values: str) -> None:
        response = self.catalog.patch(f"/v1/catalog/products/{item_id}", json=values)
        assert response.status_code == 200, response.text

    def chat(self) -> str:
        return self.chat_api.post("/v1/chats", json={"chatbotId": self.chatbot_id}).json()["id"]

    def say(self, chat_id: str, message: str, url: str = PAGE) -> dict:
        response = self.chat_api.post(
            f"/v1/chats/{chat_id}/messages", json={"message": message, "currentUrl": url}
        )
        assert response.status_code == 201, response.text
        return response.json()

    def questions(self) -> list[str]:
        response = self.public.get(
            f"/v1/knowledge/pdp-questions/{self.organization_id}/public", params={"url": PAGE}
        )
        assert response.status_code == 200, response.text
        return [question["text"] for question in response.json()["questions"]]


def prices(reply: dict) -> dict[str, float]:
    return {product["url"]: product["price"] for product in reply["products"]}


def test_a_price_and_stock_change_shows_in_the_next_reply_search_and_question_set(
    workers_process,
):
    shop = Shop(workers_process)
    shop.product(
        "SKU-1",
        title="Trail Runner Shoe",
        brand="Stride",
        product_type="Shoes > Running",
        link=PAGE,
        price="89.90 EUR",
        availability="in_stock",
        quantity="40",
    )
    shop.product(
        "SKU-2",
        title="Road Runner Shoe",
        brand="Stride",
        product_type="Shoes > Running",
        link="https://shop.example/p/road-runner",
        price="64.00 EUR",
        availability="in_stock",
    )
    generated = shop.public.post(
        "/v1/knowledge/pdp-questions/public/get-questions",
        json={"organizationId": shop.organization_id, "url": PAGE},
    ).json()["questions"]
    discount = "How much is the discount on the Trail Runner Shoe?"
    assert discount not in [question["text"] for question in generated]

    # Given a chat on the product's page, and every worker having served this catalog
    chat_id = shop.chat()
    first = shop.say(chat_id, "How much is it?")
    assert prices(first)[PAGE] == 89.90
    for _ in range(WARMING_REQUESTS):
        assert PAGE not in prices(shop.say(shop.chat(), "running shoes under 70"))
        assert discount not in shop.questions()

    # When the shop puts it on sale with little stock left
    shop.patch("SKU-1", sale_price="59.90 EUR", quantity=2)

    # Then the chat's next reply, whichever worker answers, has the sale price
    second = shop.say(chat_id, "How much is it?")
    assert prices(second)[PAGE] == 59.90
    assert "59.90" in second["content"]
    assert [product["price"] for product in second["products"] if product["url"] == PAGE] == [59.90]
    for _ in range(WARMING_REQUESTS):
        # ... and so does every search, on every worker
        assert prices(shop.say(shop.chat(), "running shoes under 70"))[PAGE] == 59.90
    # ... and the product page's question set asks about the discount: a worker that kept the
    # old set sees it changed at its next count (PDP_COUNT_FLUSH_SECONDS, 1 s by default).
    deadline = time.monotonic() + 10
    while discount not in shop.questions() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.5)  # past every worker's next flush
    for _ in range(WARMING_REQUESTS):
        assert discount in shop.questions()
