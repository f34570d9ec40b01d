"""Turns a new user tries on the `make run` demo shop (knowledge/demo/), through
POST /v1/chats/{chatId}/messages: small talk after a search, a store named in the message,
facts no catalog holds, a variant on sale within budget, alternatives of the product's own
kind, the sizes in stock, a product family's page (also for the PDP questions), and the
words of contractions ("we're") never searched for."""

from __future__ import annotations

import pytest

from chats.models import Event
from tests.knowledge.assistant_shops import MAKE_RUN_DEMO_FILES, imported_shop

HOME = "https://demo-shop.example/"
SNEAKER_FAMILY = "https://demo-shop.example/products/stride-air-sneaker"
WHITE_40 = SNEAKER_FAMILY + "?color=white&size=40"
TABLET = "https://demo-shop.example/products/kestrel-tab-11-tablet"


@pytest.fixture(scope="module")
def shop(committed_database, django_db_blocker):
    with imported_shop(django_db_blocker, "Demo turns shop", MAKE_RUN_DEMO_FILES) as imported:
        yield imported


@pytest.fixture
def ask(shop, db):
    chat_id = shop.chat()

    def say(message: str, url: str = HOME) -> dict:
        response = shop.say(chat_id, message, url)
        assert response.status_code == 201, response.content
        return response.json()

    say.chat_id = chat_id  # type: ignore[attr-defined]
    return say


def titles(reply: dict) -> list[str]:
    return [product["designation"] for product in reply.get("products") or []]


def test_small_talk_after_a_search_is_answered_as_small_talk(ask):
    # Given two headphones shown
    shown = titles(ask("headphones"))
    assert len(shown) == 2

    # When the shopper thanks and chats, then points at the second one
    thanks = ask("thanks! how is your day going?")
    second = ask("tell me more about the second one")

    assert titles(thanks) == []
    assert "welcome" in thanks["content"].lower()
    assert titles(second) == [shown[1]]


def test_a_store_named_in_the_message_is_where_stock_is_read(ask):
    reply = ask("is it in stock in Berlin?", WHITE_40)

    assert "Berlin Mitte" in reply["content"]
    assert titles(reply) == ["Stride Air Sneaker White"]


def test_a_search_naming_a_store_says_the_stock_there(ask):
    reply = ask("can I get the rain jacket in Munich?")

    assert "Munich Center" in reply["content"]
    assert any("Rain Jacket" in title for title in titles(reply))


def test_ratings_are_a_fact_the_catalog_does_not_hold(ask):
    ask("laptops")
    searches = Event.objects.filter(chat_id=ask.chat_id, tool_name="search_products")
    before = searches.count()

    reply = ask("which of them is rated highest?")

    assert titles(reply) == []
    assert "ratings" in reply["content"] and "compare" in reply["content"]
    assert "couldn't find" not in reply["content"]
    assert searches.count() == before  # no search for "highest"


def test_a_variant_on_sale_within_budget_is_the_one_shown(ask):
    reply = ask("phone under 500")

    assert titles(reply) == ["Pixelon P7 Smartphone 128 GB Blue"]
    assert "449" in reply["content"]


def test_a_cheaper_alternative_to_a_tablet_is_never_another_kind(ask):
    reply = ask("is there anything cheaper like this?", TABLET)

    assert titles(reply) == []  # the shop has no other tablet
    assert "tablet" in reply["content"]


def test_which_sizes_are_in_stock_lists_them(ask):
    reply = ask("which sizes are in stock?", WHITE_40)

    assert "in stock in sizes 40, 42 and 44" in reply["content"]


def test_a_product_familys_page_is_that_product(ask, shop, anonymous):
    reply = ask("how much is it?", SNEAKER_FAMILY)

    assert titles(reply) and titles(reply)[0].startswith("Stride Air Sneaker")
    assert "89" in reply["content"]
    questions = anonymous.post(
        "/v1/knowledge/pdp-questions/public/get-questions",
        {"organizationId": str(shop.organization.id), "url": SNEAKER_FAMILY},
        format="json",
    ).json()
    assert questions is not None and len(questions["questions"]) >= 3


@pytest.mark.parametrize(
    ("message", "first"),
    [
        ("we're going hiking and it's raining, I'd like a waterproof jacket", "Waterproof"),
        ("a backpack for my son who loves cycling", "Commuter Backpack"),
    ],
)
def test_contractions_and_verbs_of_liking_are_not_searched_for(ask, message, first):
    reply = ask(message)

    searched = Event.objects.filter(chat_id=ask.chat_id, tool_name="search_products").last()
    assert searched is not None
    query = searched.tool_args.get("query", "").split()
    assert not {"we're", "we", "going", "it's", "it", "i'd", "loves"} & set(query), query
    assert titles(reply)[0].startswith(first)


@pytest.mark.parametrize(
    "message",
    ["how big is the screen?", "what is the size of the screen?", "is its screen sharp?"],
)
def test_a_part_of_the_page_s_product_named_is_asked_about_it(ask, message):
    # "the screen" is no product of the catalog: a part of the tablet, not a search.
    reply = ask(message, TABLET)

    assert titles(reply) == ["Kestrel Tab 11 Tablet"]
    assert "Kestrel Tab 11 Tablet" in reply["content"]


def test_the_generated_question_for_sizes_in_stock_lists_them(ask):
    # The PDP question generator's own wording names the product: "sizes of the ...".
    reply = ask("Which sizes of the Stride Air Sneaker White are in stock?", WHITE_40)

    assert "sizes 40, 42 and 44" in reply["content"]


def test_it_is_the_one_product_just_shown_until_the_shopper_opens_another_page(ask):
    # Searched on the sneaker's page: the jacket shown is "it", not the page's sneaker.
    assert titles(ask("rain jacket in olive", SNEAKER_FAMILY)) == ["Waterproof Rain Jacket Olive"]

    about = ask("Tell me more about it", SNEAKER_FAMILY)
    pairing = ask("what goes with it?", SNEAKER_FAMILY)
    moved = ask("is it in stock?", TABLET)

    assert titles(about) == ["Waterproof Rain Jacket Olive"]
    assert "goes best with the Waterproof Rain Jacket Olive" in pairing["content"]
    assert titles(moved) == ["Kestrel Tab 11 Tablet"]
