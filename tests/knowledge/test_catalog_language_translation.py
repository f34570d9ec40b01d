"""A shopper writing English, or a third language, to a catalog in another language, through
POST /v1/chats/{chatId}/messages: general words for goods (the language data's glossary) are
searched in the catalog's words."""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import GROCERY_FILES, imported_shop
from tests.knowledge.replies import say


@pytest.fixture(scope="module")
def grocery(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Translated grocery", GROCERY_FILES, "fr") as shop:
        yield shop


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "word"),
    [
        ("do you sell honey?", "Miel"),
        ("some oil under 6 euros please", "Huile"),
        ("I need juice", "Jus"),
    ],
)
def test_an_english_word_for_goods_finds_the_french_catalogs_products(grocery, message, word):
    body = say(grocery, message)

    titles = [p["designation"] for p in body["products"]]
    assert titles and all(word.lower() in title.lower() for title in titles), titles


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "word"),
    [("haben Sie Honig?", "Miel"), ("¿tienen miel?", "Miel"), ("avete del succo?", "Jus")],
)
def test_a_word_of_a_third_language_finds_the_french_catalogs_products(grocery, message, word):
    # German, Spanish or Italian read as English, then searched in the catalog's French.
    body = say(grocery, message)

    titles = [p["designation"] for p in body["products"]]
    assert titles and all(word.lower() in title.lower() for title in titles), titles


@pytest.mark.django_db
def test_a_french_word_on_the_french_catalog_is_searched_as_said(grocery):
    body = say(grocery, "du miel")

    assert [p["designation"] for p in body["products"]][:1] == ["Miel"]


@pytest.fixture(scope="module")
def grocery_set_as_english(django_db_setup, django_db_blocker):
    # An operator who left the organization's language at English for a French catalog.
    with imported_shop(django_db_blocker, "Grocery set as English", GROCERY_FILES) as shop:
        yield shop


@pytest.mark.django_db
def test_a_word_the_catalog_has_is_not_replaced_by_an_english_one_it_lacks(
    grocery_set_as_english,
):
    body = say(grocery_set_as_english, "vous avez du jambon blanc ?")

    assert "Jambon blanc" in [p["designation"] for p in body["products"]]
