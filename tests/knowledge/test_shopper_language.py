"""The shopper's language through POST /v1/chats/{chatId}/messages: each message's language
is detected, understood (prices, follow-ups, small talk, stock) and answered in it, with
amounts written as that language writes them; a message too short to tell keeps the
conversation's language, or the catalog's (Organization.language)."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext

from knowledge.language.detect import language_of
from knowledge.models import Product
from tests.knowledge.assistant_shops import DEMO_FILES, imported_shop


@pytest.fixture(scope="module")
def shop(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Language shop", DEMO_FILES) as shop:
        yield shop


def _language(body: dict, shop) -> str:
    """The reply's language, the catalog's own words (titles, descriptions) left out."""
    text = body["content"]
    for product in body.get("products") or []:
        # The description first: it may hold the title.
        for description in Product.objects.filter(
            organization=shop.organization, title=product["designation"]
        ).values_list("description", flat=True):
            text = text.replace(description.strip(), "")
        text = text.replace(product["designation"], "")
    return language_of(text, ["en", "fr", "de", "es", "it"])


def _reply(shop, chat_id: str, message: str) -> dict:
    response = shop.say(chat_id, message)
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "limit", "language"),
    [
        ("je cherche un casque sans fil à moins de 150 €", 150, "fr"),
        ("Kopfhörer unter 100 Euro", 100, "de"),
        ("teléfonos por menos de 300 dólares", 300, "es"),
        ("cerco un telefono a meno di 300 dollari", 300, "it"),
    ],
)
def test_a_budget_in_each_language_limits_the_products_and_the_reply_speaks_it(
    shop, message, limit, language
):
    body = _reply(shop, shop.chat(), message)

    assert body["products"]
    # The limit is read (and said back, as the language writes amounts), never searched for.
    assert str(limit) in body["content"], body["content"]
    assert _language(body, shop) == language, body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("search", "second", "language"),
    [
        ("des tablettes", "la deuxième, elle coûte combien ?", "fr"),
        ("zeig mir Tablets", "was kostet das zweite?", "de"),
        ("tabletas", "¿cuánto cuesta la segunda?", "es"),
        ("dei tablet", "quanto costa il secondo?", "it"),
        ("tablets", "how much is the second one?", "en"),
    ],
)
def test_the_second_one_in_each_language_is_the_second_product_shown(
    shop, search, second, language
):
    chat_id = shop.chat()
    shown = _reply(shop, chat_id, search)["products"]
    assert len(shown) >= 2

    body = _reply(shop, chat_id, second)

    assert [p["designation"] for p in body["products"]] == [shown[1]["designation"]]
    assert (
        language_of(
            body["content"].replace(shown[1]["designation"], ""), ["en", "fr", "de", "es", "it"]
        )
        == language
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("bonjour !", "Bonjour"),
        ("merci beaucoup", "Avec plaisir"),
        ("Guten Tag!", "Hallo"),
        ("danke schön", "Gern geschehen"),
        ("hola", "¡Hola"),
        ("muchas gracias", "¡De nada"),
        ("ciao", "Ciao"),
        ("grazie mille", "Prego"),
    ],
)
def test_small_talk_is_answered_in_the_shoppers_language_with_no_products(shop, message, expected):
    body = _reply(shop, shop.chat(), message)

    assert not body.get("products")
    assert body["content"].startswith(expected), body["content"]


@pytest.mark.django_db
def test_a_message_too_short_to_tell_keeps_the_conversations_language(shop):
    chat_id = shop.chat()
    _reply(shop, chat_id, "bonjour, je cherche des lunettes de soleil")

    body = _reply(shop, chat_id, "ok")

    assert "Parfait" in body["content"], body["content"]


@pytest.mark.django_db
def test_a_short_first_message_is_answered_in_the_catalogs_language(shop):
    shop.organization.language = "de"
    shop.organization.save(update_fields=["language"])
    try:
        body = _reply(shop, shop.chat(), "ok")
    finally:
        shop.organization.language = "en"
        shop.organization.save(update_fields=["language"])

    assert body["content"].startswith("Prima"), body["content"]


@pytest.mark.django_db
def test_a_short_first_message_is_answered_in_the_chatbots_language_before_the_catalogs(shop):
    # Given the chatbot of a German storefront on an English catalog
    shop.chatbot.language = "de"
    shop.chatbot.save(update_fields=["language"])
    try:
        # When a first message is a word English and German share
        chat_id = shop.chat()
        body = _reply(shop, chat_id, "Tablets")
        english = _reply(shop, chat_id, "show me the cheapest laptops please")
    finally:
        shop.chatbot.language = ""
        shop.chatbot.save(update_fields=["language"])

    # Then it is answered in German; a message that tells its language is answered in it
    assert body["products"] and _language(body, shop) == "de", body["content"]
    assert _language(english, shop) == "en", english["content"]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fr", "es"])
def test_words_two_languages_share_are_read_in_the_chatbots_language(shop, language):
    # Given a storefront's chatbot in French, or in Spanish
    shop.chatbot.language = language
    shop.chatbot.save(update_fields=["language"])
    try:
        # When the message's words are as French as they are Spanish ("entre", "euros")
        body = _reply(shop, shop.chat(), "entre 100 et 300 euros")
    finally:
        shop.chatbot.language = ""
        shop.chatbot.save(update_fields=["language"])

    # Then the storefront's language answers
    assert _language(body, shop) == language, body["content"]


@pytest.mark.django_db
def test_prices_are_written_as_the_shoppers_language_writes_them(shop):
    chat_id = shop.chat()
    _reply(shop, chat_id, "des ordinateurs portables")

    body = _reply(shop, chat_id, "le premier, il coûte combien ?")

    # Babel's French form: a decimal comma and the currency after the amount.
    assert "$US" in body["content"] and "," in body["content"], body["content"]


DEMO_PDP = "https://demo-shop.example/products/chanel-coco-noir-eau-de-7"
LANGUAGE_STARTS = [
    ("fr", "des ordinateurs portables", "https://demo-shop.example/"),
    ("fr", "il est en stock ?", DEMO_PDP),
    ("de", "zeig mir Laptops", "https://demo-shop.example/"),
    ("de", "ist es im Angebot?", DEMO_PDP),
    ("es", "muéstrame portátiles", "https://demo-shop.example/"),
    ("es", "¿está en stock?", DEMO_PDP),
    ("it", "mostrami dei portatili", "https://demo-shop.example/"),
    ("it", "è disponibile?", DEMO_PDP),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "start", "url"), LANGUAGE_STARTS)
def test_every_suggestion_is_in_the_shoppers_language_and_leads_somewhere(
    shop, language, start, url
):
    with translation.override(language):
        not_useful = [
            gettext("I'm not sure I understood.").split(".")[0],
            gettext("Which product do you mean?"),
        ]
    first = shop.say(shop.chat(), start, url=url).json()
    assert 2 <= len(first["suggestions"]) <= 4

    for suggestion in first["suggestions"]:
        chat_id = shop.chat()
        shop.say(chat_id, start, url=url)
        body = shop.say(chat_id, suggestion, url=url).json()

        assert body.get("products"), (start, suggestion, body["content"])
        assert not any(text in body["content"] for text in not_useful), (suggestion, body)
        assert _language(body, shop) == language, (suggestion, body["content"])


@pytest.mark.django_db
def test_which_one_is_asked_in_the_shoppers_language_and_its_choices_answer_it(shop):
    chat_id = shop.chat()
    shown = _reply(shop, chat_id, "des tablettes")["products"]

    asked = _reply(shop, chat_id, "il coûte combien ?")

    assert asked["content"].startswith("Lequel voulez-vous dire"), asked["content"]
    assert "Le deuxième" in asked["suggestions"]
    body = _reply(shop, chat_id, "Le deuxième")
    assert [p["designation"] for p in body["products"]] == [shown[1]["designation"]]


@pytest.mark.django_db
@pytest.mark.parametrize("message", ["Samsung Galaxy tablet", "Apple AirPods Max"])
def test_the_catalogs_own_names_do_not_make_a_message_foreign(shop, message):
    # Brand and product names read as German to a letter-statistics detector; they are the
    # catalog's words, so the message is told by the others (none: the catalog's language).
    body = _reply(shop, shop.chat(), message)

    assert _language(body, shop) in ("en", ""), body["content"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("message", "negation"),
    [
        ("vous vendez des trampolines ?", "aucun"),
        ("¿venden trampolines?", "no encontr"),
        ("verkauft ihr Trampoline?", "nichts"),
        ("vendete trampolini?", "non ho trovato"),
    ],
)
def test_what_the_catalog_does_not_hold_is_said_plainly_in_the_shoppers_language(
    shop, message, negation
):
    body = _reply(shop, shop.chat(), message)

    assert not body.get("products")
    assert negation in body["content"], body["content"]
