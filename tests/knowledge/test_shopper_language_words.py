"""How the shopper's words are read in French, German, Spanish and Italian, through
POST /v1/chats/{chatId}/messages on the demo shop (an English catalog): which language a short
message is in, the shopping phrases and kinds of goods it uses, and the reply in that language."""

from __future__ import annotations

import pytest

from knowledge.language.detect import language_of
from tests.knowledge.assistant_shops import DEMO_FILES, FASHION_FILES, imported_shop
from tests.knowledge.catalog_files import ROOT
from tests.knowledge.replies import own_words, say, titles

LANGUAGES = ["en", "fr", "de", "es", "it"]


@pytest.fixture(scope="module")
def shop(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Language words shop", DEMO_FILES) as shop:
        yield shop


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "language", "title"),
    [
        # No word is one language's alone: "un" and "de" are French and Spanish, "perfume"
        # English and Spanish; Spanish has all three.
        ("un perfume de Chanel", "es", "Chanel Coco Noir Eau De"),
        # Italian and Spanish share the stem of "portatili"; lingua tells them apart.
        ("portatili", "it", "Lenovo Yoga 920"),
        # A plural whose stem is short ("Uhr" of "Uhren") still counts for its language.
        ("Uhren", "de", "Rolex Cellini Moonphase"),
    ],
)
def test_a_short_message_of_shared_words_is_read_in_the_language_that_has_them_all(
    shop, message, language, title
):
    body = say(shop, message)

    assert title in titles(body), body["content"]
    assert language_of(own_words(body), LANGUAGES) == language, body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("que pensent les clients de l'iPhone X ?", "avis"),
        ("was sagen die Kunden über das iPhone X?", "Bewertungen"),
        ("¿qué opinan los clientes del iPhone X?", "reseñas"),
        ("cosa ne pensano i clienti dell'iPhone X?", "recensioni"),
    ],
)
def test_what_customers_think_is_asked_as_reviews_the_catalog_does_not_hold(shop, message, said):
    body = say(shop, message)

    assert not body.get("products")
    assert said in body["content"], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "message",
    [
        "des raquettes de tennis",
        "Tennisschläger",
        "raquetas de tenis",
        "una racchetta da tennis",
    ],
)
def test_general_words_for_sports_gear_find_the_english_catalogs_product(shop, message):
    # "Tennisschläger" is one word: an unknown head ("tennis") before a known kind
    # ("schläger", a racket). "tenis" alone is Spanish for sneakers; with a racket, the sport.
    body = say(shop, message)

    assert titles(body)[0] == "Tennis Racket", body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "message",
    [
        "vous avez des raquettes de tennis à Berlin Mitte ?",
        "habt ihr Tennisschläger in Berlin Mitte?",
        "¿tenéis raquetas de tenis en Berlin Mitte?",
        "avete racchette da tennis a Berlin Mitte?",
    ],
)
def test_a_store_named_after_a_place_word_is_the_store_asked_about(shop, message):
    body = say(shop, message)

    assert titles(body)[0] == "Tennis Racket", body["content"]
    # The demo's Berlin Mitte has no Tennis Racket: the reply says so and where it is.
    assert "Berlin Mitte" in body["content"] and "Hamburg Altona" in body["content"], body


PDP_EARPHONES = "https://demo-shop.example/products/beats-flex-wireless-earphones-107"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "said"),
    [
        # "è" (is) folds to "e" (and); "c'est" is "it is": both ask about the page's product.
        ("è impermeabile?", "Il catalogo non dice nulla"),
        ("c'est étanche ?", "Le catalogue ne dit rien"),
    ],
)
def test_a_question_on_a_product_page_without_a_pronoun_is_about_that_product(shop, message, said):
    body = shop.say(shop.chat(), message, url=PDP_EARPHONES).json()

    assert titles(body) == ["Beats Flex Wireless Earphones"], body["content"]
    assert said in body["content"], body["content"]


@pytest.mark.django_db
def test_the_cheapest_in_german_sorts_the_products_shown_by_price(shop):
    chat_id = shop.chat()
    shop.say(chat_id, "Damenschuhe")

    body = shop.say(chat_id, "die günstigsten bitte").json()

    prices = [p["price"] for p in body["products"]]
    assert len(prices) >= 2 and prices == sorted(prices), body["content"]


@pytest.fixture(scope="module")
def fashion(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Language words fashion", FASHION_FILES) as shop:
        yield shop


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("des bottes en 43", "taille 43"),
        ("Stiefel in 43", "Größe 43"),
        ("botas en la 43", "talla 43"),
    ],
)
def test_a_bare_size_after_a_place_word_is_the_size_wished(fashion, message, said):
    body = say(fashion, message)

    assert body["products"] and said in body["content"], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("search", "tell"),
    [
        ("relojes", "háblame del tercero"),
        ("orologi", "parlami del terzo"),
    ],
)
def test_tell_me_about_the_third_shows_the_third_product(shop, search, tell):
    chat_id = shop.chat()
    shown = shop.say(chat_id, search).json()["products"]

    body = shop.say(chat_id, tell).json()

    assert titles(body) == [shown[2]["designation"]], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "message",
    [
        # "como" shares the stem of "comida" (food): a short stem matches only its own word.
        "perfume como mucho 50 dólares",
        "parfum sous 50 dollars",
        "profumo entro 50 dollari",
        "Parfüm nicht teurer als 50 Dollar",
    ],
)
def test_more_ways_of_saying_a_budget_limit_the_products(shop, message):
    body = say(shop, message)

    assert body["products"], body["content"]
    assert all(p["price"] <= 50 for p in body["products"]), body["content"]
    assert "50" in body["content"], body["content"]


@pytest.mark.django_db
def test_a_word_sharing_a_short_stem_with_a_kind_of_goods_is_not_that_kind(shop):
    # "como" (like) and "comida" (food) share the Spanish stem "com".
    body = say(shop, "busco un perfume como el Chanel")

    assert titles(body) == ["Chanel Coco Noir Eau De"], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "message",
    [
        "il en reste combien ?",
        "quanti ne rimangono?",
        "wie viele habt ihr noch?",
        "¿cuántas unidades tienen?",
    ],
)
def test_how_many_are_left_is_answered_with_the_stock_figure(shop, message):
    body = shop.say(shop.chat(), message, url=PDP_EARPHONES).json()

    # The demo's Beats Flex has 50 in stock.
    assert titles(body) == ["Beats Flex Wireless Earphones"], body["content"]
    assert "50" in body["content"], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "language"),
    [
        # Snowball stems "telefono" "telef" and "telefoni" "telefon": plurals are listed forms.
        ("telefoni", "it"),
        ("Handys", "de"),
    ],
)
def test_a_plural_the_stemmer_parts_from_its_singular_is_still_that_kind(shop, message, language):
    body = say(shop, message)

    assert "iPhone X" in titles(body), body["content"]
    assert language_of(own_words(body), LANGUAGES) == language, body["content"]


@pytest.mark.django_db
def test_only_those_on_sale_in_french_keeps_the_search_and_adds_the_wish(shop):
    chat_id = shop.chat()
    shop.say(chat_id, "des téléphones")

    body = shop.say(chat_id, "seulement ceux en promo").json()

    assert body["products"] and "smartphones en promotion" in body["content"], body["content"]


VENDURE_FILES = tuple(
    ROOT / "eval" / "catalogs" / f"vendure-{name}.tsv"
    for name in ("products", "local-inventory", "stores")
)


@pytest.fixture(scope="module")
def sports(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Language words Vendure", VENDURE_FILES) as shop:
        yield shop


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("un ballon de foot", "Football"),
        ("Boxhandschuhe", "Boxing Gloves"),
        ("una cuerda para saltar", "Skipping Rope"),
        ("Zimmerpflanzen", "Assorted Indoor Succulents"),
    ],
)
def test_general_words_for_sports_and_home_goods_find_their_kind(sports, message, title):
    body = say(sports, message)

    assert title in titles(body), body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "limit"),
    [
        ("un parfum à moins de cent dollars", 100),
        ("Parfüm unter fünfzig Dollar", 50),
        ("perfume por menos de cien dólares", 100),
        ("profumo sotto i cinquanta dollari", 50),
        ("téléphones entre deux cents et quatre cents dollars", 400),
    ],
)
def test_an_amount_written_in_words_is_a_budget(shop, message, limit):
    body = say(shop, message)

    assert body["products"], body["content"]
    assert all(p["price"] <= limit for p in body["products"]), body["content"]
