"""The shopper's words for goods against the catalog's titles, through
POST /v1/chats/{chatId}/messages: "headphones" in a catalog whose budget pair is titled
"Earphones" (lexicon.KIND_SYNONYMS), tried before any wish is given up; alternatives to a
product whose title names no kind; a model's letter ("iPhone X")."""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import DEMO_FILES, imported_shop


@pytest.fixture(scope="module")
def shop(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Kind words shop", DEMO_FILES) as shop:
        yield shop


def _titles(shop, message: str) -> list[str]:
    response = shop.say(shop.chat(), message)
    assert response.status_code == 201, response.content
    return [p["designation"] for p in response.json().get("products") or []]


@pytest.mark.django_db
@pytest.mark.parametrize("message", ["headphones under 60 dollars", "any earbuds below $70?"])
def test_a_budget_finds_the_kind_under_the_catalogs_word_before_giving_up_the_budget(shop, message):
    titles = _titles(shop, message)

    assert "Beats Flex Wireless Earphones" in titles
    assert "Apple AirPods Max Silver" not in titles  # the word's own product, over budget


@pytest.mark.django_db
def test_the_shoppers_own_word_is_searched_as_said_when_products_have_it(shop):
    assert "Apple AirPods Max Silver" in _titles(shop, "headphones")


AIRPODS = "https://demo-shop.example/products/apple-airpods-100"


@pytest.mark.django_db
def test_a_product_named_by_its_own_name_has_alternatives_alike_by_their_words(shop):
    # "Apple Airpods" names no kind, and its category ("mobile accessories > electronics")
    # holds chargers, speakers and cases: the alternative is the one described like it.
    response = shop.say(shop.chat(), "is there anything cheaper like this?", url=AIRPODS)
    assert response.status_code == 201, response.content
    titles = [p["designation"] for p in response.json()["products"]]

    assert titles[:1] == ["Beats Flex Wireless Earphones"]
    assert "Apple iPhone Charger" not in titles


@pytest.mark.django_db
@pytest.mark.parametrize("message", ["iphone x", "do you have the iPhone X?"])
def test_a_models_letter_after_the_catalogs_word_picks_that_model(shop, message):
    response = shop.say(shop.chat(), message)
    assert response.status_code == 201, response.content
    body = response.json()

    assert [p["designation"] for p in body["products"]] == ["iPhone X"]
    assert "xes" not in body["content"]  # a model's letter has no plural


@pytest.mark.django_db
def test_a_letter_no_title_has_after_the_word_is_not_searched(shop):
    titles = _titles(shop, "iphone q")

    assert len(titles) > 1 and "iPhone X" in titles
