"""Words read as the shopper meant them, through POST /v1/chats/{chatId}/messages: the person
a gift is for is no reason to refuse ("a scarf for my girlfriend"), and a word the catalog
lacks is not "corrected" into another product ("shelves" is not "sleeve" nor "sieve")."""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import DEMO_FILES, FASHION_FILES, imported_shop
from tests.knowledge.replies import say, titles

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def shops(django_db_setup, django_db_blocker):
    with (
        imported_shop(django_db_blocker, "Words fashion", FASHION_FILES) as fashion,
        imported_shop(django_db_blocker, "Words demo", DEMO_FILES) as demo,
    ):
        yield {"fashion": fashion, "demo": demo}


@pytest.mark.parametrize("message", ["a scarf for my girlfriend", "scarves for my boyfriend"])
def test_the_person_a_product_is_for_is_no_reason_to_refuse(shops, message):
    reply = say(shops["fashion"], message)

    assert titles(reply) == ["Basico Cashmere Scarf"]
    assert "scarves" in reply["content"]  # not "scarfs"


def test_asking_the_assistant_out_is_still_out_of_scope(shops):
    reply = say(shops["fashion"], "will you be my girlfriend?")

    assert titles(reply) == [] and "I can only help with our products" in reply["content"]


def test_a_word_two_letters_from_other_products_is_not_read_as_them(shops):
    reply = say(shops["demo"], "shelves")

    assert titles(reply) == []
    assert '"shelves"' in reply["content"]


def test_a_plural_in_ves_finds_its_singular(shops):
    assert titles(say(shops["demo"], "kitchen knives")) == ["Knife"]
