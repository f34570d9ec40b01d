"""Questions about the one product in view, after a search shows it, through
POST /v1/chats/{chatId}/messages on the fashion catalog: a size asked on its own ("is M
available?") is that product's size, "which sizes are in stock?" answers with its sizes, and
"is it waterproof?" with its description, rather than searching again. The denim jacket: S, M
and L online; M out of stock in Berlin."""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import FASHION_FILES, imported_shop

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def fashion(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Variant questions fashion", FASHION_FILES) as shop:
        yield shop


@pytest.fixture
def after_jacket(fashion):
    chat = fashion.chat()
    assert fashion.say(chat, "denim jacket").status_code == 201

    def ask(message: str) -> str:
        response = fashion.say(chat, message)
        assert response.status_code == 201, response.content
        return response.json()["content"]

    return ask


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ("is M available?", "size M is in stock (9 available)"),
        ("is M available in Berlin?", "out of stock at Berlin Flagship"),
        ("any L left in Paris?", "size L is in stock at Paris Marais (4 available)"),
        ("got XL?", "doesn't come in size XL"),
    ],
)
def test_a_size_asked_on_its_own_is_the_product_in_view_s(after_jacket, message, says):
    reply = after_jacket(message)

    assert says in reply
    assert not reply.startswith("I found")  # not a new search


@pytest.mark.parametrize("message", ["which sizes are in stock?", "which sizes do you have left?"])
def test_the_sizes_in_stock_are_those_of_the_product_in_view(after_jacket, message):
    assert after_jacket(message) == "The Bluefield Denim Jacket is in stock in sizes S, M and L."


@pytest.mark.parametrize("message", ["is it waterproof?", "is it warm enough for winter?"])
def test_a_question_about_a_feature_of_the_product_in_view_is_about_it(after_jacket, message):
    # Not a search for waterproof products: the jacket's own description answers.
    reply = after_jacket(message)

    assert reply.startswith("Here's the Bluefield Denim Jacket")


def test_a_question_naming_a_kind_of_the_catalog_still_searches(after_jacket):
    assert after_jacket("is there a dress like it?").startswith(("I found", "Here are"))


def test_nothing_cheaper_of_the_kind_is_said_so_not_filled_with_other_kinds(fashion):
    # Before: "without the price, material and category limits" a T-shirt, a belt, a tote.
    chat = fashion.chat()
    fashion.say(chat, "coats")

    reply = fashion.say(chat, "cheaper?").json()

    assert reply["content"] == "The Northway Wool Overcoat is the most affordable of our coats."
    assert [p["designation"] for p in reply["products"]] == ["Northway Wool Overcoat"]


def test_cheaper_keeps_to_the_kind_searched(fashion):
    chat = fashion.chat()
    fashion.say(chat, "running shoes")

    reply = fashion.say(chat, "cheaper ones?").json()

    assert reply["content"].startswith("The Stride Trail Runner Grey is the most affordable of")
