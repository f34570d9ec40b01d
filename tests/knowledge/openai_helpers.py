"""Shared setup of the `openai` engine tests: a fake provider, a small shop, the public API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from chats.models import Chat
from knowledge.models import Availability, Product
from tests.factories import ChatFactory, ProductFactory
from tests.fake_openai import MODEL, FakeOpenAI, fake_openai_server
from tests.server import LiveServer, start_server

# A key that must never show anywhere but in the Authorization header sent to the provider.
PROVIDER_KEY = "sk-provider-SECRET-4f9d2c7e1a"
PAGE = "https://shop.example/products/trail-runner"


@dataclass
class Shop:
    tenant: Any
    chat: Chat
    runner: Product  # on sale
    hiker: Product
    boot: Product  # not in any tool result unless a test searches for it


def provider(settings) -> Iterator[FakeOpenAI]:
    """The fake provider, with the settings pointing at it (wrap in a fixture)."""
    with fake_openai_server() as fake:
        settings.OPENAI_BASE_URL = fake.base_url
        settings.OPENAI_API_KEY = PROVIDER_KEY
        settings.OPENAI_MODEL = MODEL
        settings.OPENAI_TIMEOUT_SECONDS = 30  # generous: only the timeout tests lower it
        settings.OPENAI_MAX_TOOL_ROUNDS = 3
        settings.ASSISTANT_FALLBACK = "catalog"
        # The stream ends right after replaying the chat's events: tests read it whole.
        settings.SSE_MAX_DURATION_SECONDS = 0
        yield fake


@contextmanager
def provider_and_server(**env: str) -> Iterator[tuple[FakeOpenAI, LiveServer]]:
    """The fake provider, and the real server (tests/server.py) pointed at it."""
    with (
        fake_openai_server() as fake,
        start_server(
            OPENAI_BASE_URL=fake.base_url, OPENAI_API_KEY=PROVIDER_KEY, OPENAI_MODEL=MODEL, **env
        ) as server,
    ):
        yield fake, server


def shop_build(tenant) -> Shop:
    """A tenant whose chatbot uses the `openai` engine, with three products and a chat."""
    tenant.chatbot.engine = "openai"
    tenant.chatbot.save()
    organization = tenant.organization
    runner = product(
        organization=organization,
        gtin="4006381333931",
        title="Trail Runner 2",
        brand="Peakline",
        url=PAGE,
        price=Decimal("89.90"),
        sale_price=Decimal("69.90"),
        product_type="Shoes > Running",
        color="Blue",
        size="42",
    )
    hiker = product(
        organization=organization,
        gtin="4006381333948",
        title="Peak Hiker",
        brand="Peakline",
        price=Decimal("99.00"),
        product_type="Shoes > Hiking",
        availability=Availability.IN_STOCK,
    )
    boot = product(
        organization=organization,
        gtin="4006381333955",
        title="Winter Boot",
        brand="Nordpol",
        price=Decimal("129.00"),
        product_type="Shoes > Boots",
    )
    chat = cast(Chat, ChatFactory(chatbot=tenant.chatbot))
    return Shop(tenant, chat, runner, hiker, boot)


def product(**fields: Any) -> Product:
    return cast(Product, ProductFactory(**fields))


def send(shop: Shop, message: str, *, url: str = PAGE, **query: str):
    path = f"/v1/chats/{shop.chat.id}/messages"
    if query:
        path += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return shop.tenant.client.post(path, {"message": message, "currentUrl": url}, format="json")


def stream_events(shop: Shop) -> list[dict[str, Any]]:
    """Every event of the chat, read from the public event stream (docs/api.md#event-stream)."""
    response = shop.tenant.client.get(
        f"/v1/chats/{shop.chat.id}/messages/events", {"lastEventId": "0"}
    )
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    return [
        json.loads(line.removeprefix("data: "))
        for line in body.splitlines()
        if line.startswith("data: ")
    ]


def block(products: list[str], suggestions: list[str]) -> str:
    """The structured block the system prompt asks the model to end its answer with."""
    payload = json.dumps({"products": products, "suggestions": suggestions})
    return f"\n\n```json\n{payload}\n```"


def chunks_text(events: list[dict[str, Any]]) -> str:
    return "".join(
        e["content"]
        for e in events
        if e["status"] == "inProgress" and "toolName" not in e and "content" in e
    )
