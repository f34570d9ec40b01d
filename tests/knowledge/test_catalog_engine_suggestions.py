"""Every suggestion leads somewhere: sent back as the next message, it gets a useful answer.

For many kinds of reply (searches, follow-ups, product pages, small talk, nothing found), each
suggestion is sent in a fresh chat right after the message that produced it, the way a shopper
taps it; the answer must recommend products, or answer about the product in view.
"""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import (
    DEMO_FILES,
    FASHION_FILES,
    imported_shop,
)

pytestmark = pytest.mark.django_db
DEMO_PDP = "https://demo-shop.example/products/chanel-coco-noir-eau-de-7"
FASHION_PDP = "https://fashion.example/products/everyday-cotton-tee-black-m"
DEMO_STARTS = [
    ("Hi there", DEMO_PDP),
    ("Hello", "https://demo-shop.example/"),
    ("what's the weather tomorrow?", "https://demo-shop.example/"),
    ("phones under 300", "https://demo-shop.example/"),
    ("laptops", "https://demo-shop.example/"),
    ("Rolex under $100", "https://demo-shop.example/"),
    ("do you sell bicycles?", "https://demo-shop.example/"),
    ("what's on sale?", "https://demo-shop.example/"),
    ("How much is it?", DEMO_PDP),
    ("is it in stock?", DEMO_PDP),
    ("something similar but cheaper", DEMO_PDP),
    ("compare it with the Dior J'adore", DEMO_PDP),
    ("cheapest sunglasses", "https://demo-shop.example/"),
]
FASHION_STARTS = [
    ("does it come in L?", FASHION_PDP),
    ("running shoes under 100", "https://fashion.example/"),
    ("leather boots", "https://fashion.example/"),
]
NOT_USEFUL = ("not sure I understood", "Which product do you mean", "couldn't find anything")


@pytest.fixture(scope="module")
def shops(committed_database, django_db_blocker):
    with (
        imported_shop(django_db_blocker, "Suggestions Demo", DEMO_FILES) as demo,
        imported_shop(django_db_blocker, "Suggestions Fashion", FASHION_FILES) as fashion,
    ):
        yield {"demo": demo, "fashion": fashion}


@pytest.mark.parametrize(
    ("shop_name", "start", "url"),
    [("demo", *s) for s in DEMO_STARTS] + [("fashion", *s) for s in FASHION_STARTS],
)
def test_every_suggestion_gets_a_useful_answer(shops, shop_name, start, url):
    shop = shops[shop_name]
    first = shop.say(shop.chat(), start, url=url).json()
    assert 2 <= len(first["suggestions"]) <= 4

    for suggestion in first["suggestions"]:
        chat_id = shop.chat()
        shop.say(chat_id, start, url=url)
        response = shop.say(chat_id, suggestion, url=url)

        body = response.json()
        assert response.status_code == 201, suggestion
        assert body.get("products"), (start, suggestion, body["content"])
        assert not any(text in body["content"] for text in NOT_USEFUL), (suggestion, body)
        assert 2 <= len(body["suggestions"]) <= 4
