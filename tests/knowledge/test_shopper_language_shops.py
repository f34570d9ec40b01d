"""French, German, Spanish and Italian shoppers on English catalogs, through
POST /v1/chats/{chatId}/messages: letter sizes, "A de B" goods, cities named in the shopper's
language, "the other one", gendered categories, a colour the product lacks, store locations."""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import DEMO_FILES, FASHION_FILES, imported_shop
from tests.knowledge.replies import say, titles

FASHION = "https://fashion.example/products/"
DEMO = "https://demo-shop.example/products/"


@pytest.fixture(scope="module")
def fashion(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Fashion for shoppers' languages", FASHION_FILES) as shop:
        yield shop


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Demo for shoppers' languages", DEMO_FILES) as shop:
        yield shop


def _conversation(shop, *messages: str) -> list[dict]:
    chat = shop.chat()
    replies = []
    for message in messages:
        response = shop.say(chat, message)
        assert response.status_code == 201, response.content
        replies.append(response.json())
    return replies


@pytest.mark.django_db
def test_a_letter_size_after_en_is_a_size_not_an_elided_pronoun(fashion):
    body = say(fashion, "une robe verte en S")

    assert titles(body) == ["Aurelle Silk Midi Dress Green"]
    assert body["products"][0]["url"].endswith("-green-s")


@pytest.mark.django_db
def test_goods_named_with_de_are_the_goods_not_their_qualifier(demo):
    # "consolas de videojuegos" is a console the shop does not sell, not its ball games.
    body = say(demo, "¿tenéis consolas de videojuegos?")

    assert titles(body) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "store"),
    [
        ("Ist der Basketball in München vorrätig?", "Munich Sendling"),
        ("il Dior J'adore è disponibile ad Amburgo?", "Hamburg Altona"),
    ],
)
def test_a_city_in_the_shoppers_language_finds_the_store_in_it(demo, message, store):
    body = say(demo, message)

    assert store in body["content"]


@pytest.mark.django_db
def test_the_other_one_is_the_product_not_in_focus_asked_the_same_question(demo):
    shown, first, other = _conversation(
        demo, "tablet Samsung", "quanto costa il primo?", "e l'altro?"
    )

    assert len(titles(shown)) == 2
    assert titles(other) == [t for t in titles(shown) if t not in titles(first)]
    assert "599,99" in other["content"]


@pytest.mark.django_db
def test_a_gender_picks_the_gendered_level_of_a_shared_category(demo):
    body = say(demo, "relojes para hombre")

    assert titles(body) and not [t for t in titles(body) if "Women" in t], titles(body)


@pytest.mark.django_db
def test_a_colour_the_page_product_lacks_shows_its_kind_in_that_colour(demo):
    chat = demo.chat()
    body = demo.say(chat, "Gibt es die auch in Blau?", url=f"{DEMO}women-handbag-black-176").json()

    assert titles(body) == ["Blue Women's Handbag"]


@pytest.mark.django_db
def test_a_store_location_is_written_in_the_shoppers_language(fashion):
    chat = fashion.chat()
    response = fashion.say(
        chat,
        "questa sciarpa ce l'avete in negozio?",
        url=f"{FASHION}basico-cashmere-scarf",
        store="fashion-paris",
    )
    content = response.json()["content"]

    assert "Paris Marais" in content
    assert "piano 0, sezione C" in content and "floor" not in content


@pytest.mark.django_db
def test_a_city_without_a_store_is_said_and_the_stores_with_the_product_listed(demo):
    body = say(demo, "¿el iPad Mini lo tienen en la tienda de Madrid?")

    assert titles(body) == ["iPad Mini 2021 Starlight"]
    assert "No tenemos tienda en Madrid" in body["content"]
    assert "Berlin Mitte" in body["content"]


@pytest.mark.django_db
def test_a_season_the_catalog_never_names_does_not_hide_what_it_has(fashion):
    body = say(fashion, "I need something warm for the winter")

    assert titles(body) == ["Northway Wool Overcoat"]
