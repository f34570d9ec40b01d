"""Every generated PDP question gets an answer grounded in the catalog
(docs/api.md#generated-questions).

The whole demo-shop catalog (catalogs/) is imported; for each product, each question its set
holds is sent as a chat message with `currentUrl` = that product's page, as the demo page's
buttons do.
"""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from knowledge.models import Product
from knowledge.pdp.generation import product_name, questions_generate
from tests.knowledge.catalog_files import DEMO_CATALOGS

pytestmark = pytest.mark.django_db


def grounded(reply: dict, product: Product) -> bool:
    """The reply names the product (or recommends it) or states one of its catalog facts."""
    text = reply.get("content", "").lower()
    names = {product.title.lower()[:15], product_name(product.title).text.lower()}
    if any(name and name in text for name in names):
        return True
    if any(item.get("url") == product.url for item in reply.get("products") or []):
        return True
    brand = product.brand.strip().lower()
    if len(brand) >= 3 and brand in text:
        return True
    for sentence in re.split(r"(?<=[.!?])\s+", product.description):
        if len(sentence) >= 20 and sentence.lower()[:40] in text:
            return True
    return f"{product.current_price:,.2f}" in text


@pytest.fixture
def demo_shop(tenant, settings):
    settings.RATE_LIMIT_PER_KEY = "off"  # about a thousand messages from one key
    call_command(
        "import_catalog",
        str(tenant.organization.id),
        str(DEMO_CATALOGS / "demo-shop-products.tsv"),
        "--stores",
        str(DEMO_CATALOGS / "demo-shop-stores.tsv"),
        "--inventory",
        str(DEMO_CATALOGS / "demo-shop-local-inventory.tsv"),
        "--json",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    return tenant


def test_every_generated_question_gets_a_grounded_answer(demo_shop):
    client, chatbot = demo_shop.client, demo_shop.chatbot
    products = list(Product.objects.filter(organization=demo_shop.organization).order_by("item_id"))
    assert len(products) == 194

    failures = []
    asked = 0
    for product in products:
        for question in questions_generate(product):
            chat = client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json").json()
            response = client.post(
                f"/v1/chats/{chat['id']}/messages",
                {"message": question, "currentUrl": product.url},
                format="json",
            )
            asked += 1
            reply = response.json() if response.status_code < 500 else {}
            if response.status_code != 201 or not grounded(reply, product):
                failures.append(
                    f"{response.status_code} {product.url}\n  Q: {question}\n"
                    f"  A: {reply.get('content', '')[:160]!r}"
                )
    assert asked > 3 * len(products)
    assert not failures, f"{len(failures)} of {asked} answers not grounded:\n" + "\n".join(failures)
