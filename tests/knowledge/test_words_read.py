"""Words read as the shopper meant them, through POST /v1/chats/{chatId}/messages: the person
a gift is for is no reason to refuse ("a scarf for my girlfriend"), a word the catalog lacks
is not "corrected" into another product ("shelves" is not "sleeve" nor "sieve"), the search
is quoted in the shopper's words and word order ("auriculares inalámbricos"), and "the other
one" of a single product is that one."""

from __future__ import annotations

import pytest

from tests.knowledge.assistant_shops import (
    DEMO_FILES,
    FASHION_FILES,
    MAKE_RUN_DEMO_FILES,
    imported_shop,
)
from tests.knowledge.replies import say, titles

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def shops(django_db_setup, django_db_blocker):
    with (
        imported_shop(django_db_blocker, "Words fashion", FASHION_FILES) as fashion,
        imported_shop(django_db_blocker, "Words demo", DEMO_FILES) as demo,
        imported_shop(django_db_blocker, "Words seed", MAKE_RUN_DEMO_FILES) as seed,
    ):
        yield {"fashion": fashion, "demo": demo, "seed": seed}


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


@pytest.mark.parametrize(
    ("message", "lead"),
    [
        ("wireless earphones under 100", "wireless earphones under"),
        ("busco auriculares inalámbricos por menos de 100 euros", "auriculares inalámbricos"),
        ("je cherche des écouteurs sans fil à moins de 100 €", "« écouteurs sans fil »"),
    ],
)
def test_a_kind_said_another_way_is_quoted_as_said(shops, message, lead):
    # The catalog calls them "Earbuds"; the reply names them in the shopper's words.
    reply = say(shops["seed"], message)

    assert titles(reply) == ["Nordwave Buds Wireless Earbuds"]
    assert lead in reply["content"]


def test_the_other_one_when_one_product_was_shown_is_that_one(shops):
    chat = shops["seed"].chat()
    shops["seed"].say(chat, "busco auriculares inalámbricos por menos de 100 euros")

    reply = shops["seed"].say(chat, "¿y el otro?").json()

    assert titles(reply) == ["Nordwave Buds Wireless Earbuds"]
    assert reply["content"].startswith("Solo he mostrado un producto")
