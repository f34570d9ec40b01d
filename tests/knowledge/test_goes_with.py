"""What goes with a product, through POST /v1/chats/{chatId}/messages on the fashion catalog:
in-stock products of the other shelves of its range, one per shelf, said to be suggestions
(no catalog says what pairs best); "which shoes go with it?" is a search for shoes. Delivery
questions asked on a product page are the shop's to answer, not the product's."""

from __future__ import annotations

import pytest

from knowledge.models import Product
from tests.knowledge.assistant_shops import FASHION_FILES, imported_shop

pytestmark = pytest.mark.django_db
JACKET_PAGE = "https://fashion.example/products/bluefield-denim-jacket-m"


@pytest.fixture(scope="module")
def fashion(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Goes with fashion", FASHION_FILES) as shop:
        yield shop


def reply(fashion, message: str, url: str = JACKET_PAGE) -> dict:
    response = fashion.say(fashion.chat(), message, url)
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.parametrize(
    ("message", "lead"),
    [
        ("what would go well with it?", "The catalog doesn't say what goes best with"),
        ("what can I wear with this?", "The catalog doesn't say what goes best with"),
        ("qu'est-ce qui va avec ?", "Le catalogue ne dit pas ce qui va le mieux avec"),
        ("was passt dazu?", "Der Katalog sagt nicht, was am besten zu"),
    ],
)
def test_products_of_other_shelves_go_with_the_product(fashion, message, lead):
    body = reply(fashion, message)

    assert body["content"].startswith(lead)
    shown = [
        Product.objects.filter(organization=fashion.organization, url=p["url"]).first()
        for p in body["products"]
    ]
    shelves = [p.product_type for p in shown]
    assert len(shown) >= 2 and len(set(shelves)) == len(shelves)
    assert "clothing > jackets" not in shelves
    assert all(p.availability == "in_stock" for p in shown)


def test_with_nothing_in_view_the_assistant_asks_which_product(fashion):
    body = reply(fashion, "what goes with it?", "https://fashion.example/")

    assert body["content"].startswith("To go with which product?")
    assert not body.get("products")


def test_a_kind_named_is_searched_for(fashion):
    body = reply(fashion, "which boots go with it?")

    assert body["products"] and all("Boots" in p["designation"] for p in body["products"])


@pytest.mark.parametrize(
    "message",
    [
        "when will it be delivered if I order today?",
        "when will it arrive?",
        "can you ship it to Canada?",
        "how long does shipping take?",
    ],
)
def test_delivery_questions_on_a_product_page_are_the_shop_s_to_answer(fashion, message):
    # Not the product's description quoted with "the catalog doesn't say anything about".
    body = reply(fashion, message)

    assert body["content"].startswith("I can't see delivery, returns or payment details")
