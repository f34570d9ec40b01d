"""Every generated PDP question gets an answer from the product's own data
(docs/api.md#generated-questions).

Each catalog of the evaluation (eval/runner.py: the demo shop, fashion, Vendure, the French
grocery and the `make run` demo) is imported; for each product, each question its set holds
is sent as a chat message with `currentUrl` = that product's page, as the demo page's buttons
do. The answer is grounded in the product and never says the catalog cannot tell.
"""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from eval.runner import SHOPS
from knowledge.models import Product
from knowledge.pdp.generation import product_name, questions_generate

pytestmark = pytest.mark.django_db

# What a reply says when the product's data does not answer the question.
UNANSWERED = re.compile(
    r"catalog doesn't|couldn't find|not sure I understood|which product do you mean", re.I
)


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


@pytest.fixture(params=sorted(SHOPS))
def catalog_shop(request, tenant, settings):
    settings.RATE_LIMIT_PER_KEY = "off"  # about a thousand messages from one key
    products, inventory, stores = SHOPS[request.param]
    call_command(
        "import_catalog",
        str(tenant.organization.id),
        str(products),
        "--stores",
        str(stores),
        "--inventory",
        str(inventory),
        "--json",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    return tenant


def test_every_generated_question_is_answered_from_the_product(catalog_shop):
    client, chatbot = catalog_shop.client, catalog_shop.chatbot
    products = list(
        Product.objects.filter(organization=catalog_shop.organization).order_by("item_id")
    )
    assert len(products) >= 20

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
            content = reply.get("content", "")
            if (
                response.status_code != 201
                or not grounded(reply, product)
                or UNANSWERED.search(content)
            ):
                failures.append(
                    f"{response.status_code} {product.url}\n  Q: {question}\n  A: {content[:160]!r}"
                )
    assert asked > 3 * len(products)
    assert not failures, f"{len(failures)} of {asked} answers fall short:\n" + "\n".join(failures)
