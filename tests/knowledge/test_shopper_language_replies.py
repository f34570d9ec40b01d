"""Replies in French, German, Spanish and Italian through POST /v1/chats/{chatId}/messages:
texts the engine writes (gift ideas, limits given up, product-page answers, shop policy) are
translations, and the values a product comes in read correctly in each language."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext

from knowledge.language.detect import language_of
from tests.knowledge.assistant_shops import DEMO_FILES, FASHION_FILES, imported_shop
from tests.knowledge.replies import own_words, say

LANGUAGES = ["en", "fr", "de", "es", "it"]


@pytest.fixture(scope="module")
def shop(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Language replies shop", DEMO_FILES) as shop:
        yield shop


@pytest.fixture(scope="module")
def fashion(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Language replies fashion", FASHION_FILES) as shop:
        yield shop


PDP_EARPHONES = "https://demo-shop.example/products/beats-flex-wireless-earphones-107"


BOOTS = "https://fashion.example/products/northway-chelsea-boots-black-41"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "language"),
    [
        ("un cadeau pour ma femme", "fr"),
        ("ein Geschenk für meinen Mann", "de"),
        ("un regalo para mi madre", "es"),
        ("un regalo per mio padre", "it"),
    ],
)
def test_gift_ideas_and_their_budget_suggestion_are_in_the_shoppers_language(
    shop, message, language
):
    chat_id = shop.chat()
    ideas = shop.say(chat_id, message).json()
    with translation.override(language):
        assert ideas["content"].startswith(gettext("Happy to help you find a gift!"))
        under_50 = gettext("Gift ideas under 50")
    assert under_50 in ideas["suggestions"]

    body = shop.say(chat_id, under_50).json()

    assert body["products"] and all(p["price"] <= 50 for p in body["products"]), body
    assert language_of(own_words(body), LANGUAGES) == language, body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "limit"),
    [
        ("chaussures noires en taille 42", "limite taille"),
        ("schwarze Schuhe in Größe 42", "Größe"),
    ],
)
def test_a_limit_given_up_is_named_in_the_shoppers_language(shop, message, limit):
    body = say(shop, message)

    assert limit in body["content"] and "size" not in body["content"], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("quelle est l'autonomie de la batterie ?", "autonomie de la batterie"),
        ("quanto dura la batteria?", "durata della batteria"),
        # "how long does it last", not a search for "dura" or "hält"
        ("¿cuánto dura la batería?", "duración de la batería"),
        ("wie lange hält der Akku?", "Akkulaufzeit"),
        ("quelle est la garantie ?", "garantie"),
    ],
)
def test_what_the_description_says_about_a_topic_is_told_in_the_shoppers_language(
    shop, message, said
):
    body = shop.say(shop.chat(), message, url=PDP_EARPHONES).json()

    assert said in body["content"], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "language"),
    [
        # Only Spanish opens a question with "¿": the brand name tells nothing.
        ("¿aceptan PayPal?", "es"),
        ("wie kann ich zurückgeben?", "de"),
        ("je peux payer comment ?", "fr"),
        ("posso restituire un prodotto?", "it"),
    ],
)
def test_shop_policy_questions_are_answered_in_the_shoppers_language_without_a_search(
    shop, message, language
):
    body = say(shop, message)

    assert not body.get("products")
    with translation.override(language):
        policy = gettext(
            "I can't see delivery, returns or payment details from here: the shop's "
            "help pages or customer service will know. I can help you with our "
            "products, their prices and what's in stock."
        )
    assert body["content"] == policy, body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "said"),
    [
        # Italian "colori" is masculine, "taglie" feminine: one wording fits both.
        ("di che colore sono disponibili?", "disponibile con colori Black e Brown"),
        ("che taglie ci sono?", "disponibile con taglie 41, 43 e 45"),
    ],
)
def test_the_values_a_product_comes_in_are_said_in_correct_italian(fashion, message, said):
    body = fashion.say(fashion.chat(), message, url=BOOTS).json()

    assert said in body["content"], body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("search", "yes", "language"),
    [
        ("des montres", "oui", "fr"),
        ("Uhren", "ja bitte", "de"),
        ("relojes", "sí, por favor", "es"),
        ("orologi", "sì grazie", "it"),
    ],
)
def test_yes_after_a_list_is_acknowledged_in_the_shoppers_language(shop, search, yes, language):
    chat_id = shop.chat()
    shop.say(chat_id, search)

    body = shop.say(chat_id, yes).json()

    with translation.override(language):
        not_understood = gettext("I'm not sure I understood.").split(".")[0]
    assert not body.get("products") and not_understood not in body["content"], body
    assert language_of(body["content"], LANGUAGES) == language, body["content"]
