"""A need only product descriptions state: the weather a product is for ("something warm for
winter" is the overcoat "in warm Italian wool"), in the shopper's language, quoted back in the
shopper's own words, through POST /v1/chats/{chatId}/messages on the fashion catalog."""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import FASHION_FILES, imported_shop
from tests.knowledge.replies import say, titles

pytestmark = pytest.mark.django_db
OVERCOAT = "Northway Wool Overcoat"


@pytest.fixture(scope="module")
def fashion(django_db_setup, django_db_blocker):
    with imported_shop(django_db_blocker, "Weather fashion", FASHION_FILES) as shop:
        yield shop


@pytest.mark.parametrize(
    "message",
    [
        "I need something warm for winter under 300",
        "quelque chose de chaud pour l'hiver",
        "un abrigo para el frío",
        "un cappotto caldo per l'inverno",
    ],
)
def test_a_product_for_the_weather_named_is_found_by_its_description(fashion, message):
    assert OVERCOAT in titles(say(fashion, message))


def test_the_reply_quotes_the_shopper_s_words_not_the_english_ones_searched(fashion):
    reply = say(fashion, "quelque chose de chaud pour l'hiver")

    assert "hiver" in reply["content"]
    assert "winter" not in reply["content"] and "warm " not in reply["content"]
