"""Asking for the least or most of an amount descriptions state ("un yaourt peu calorique",
"high protein"), the closest matches of a search no product has every word of, and the
suggestions for products without variants, through POST /v1/chats/{chatId}/messages on a
French grocery catalog."""

from __future__ import annotations

import pytest

from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import grocery_item, run_import, tsv, write
from tests.knowledge.replies import ask, shop_client, titles

pytestmark = pytest.mark.django_db

FACTS = "Valeurs nutritionnelles pour 100 g : {kcal} kcal, protéines {protein} g, glucides 4 g."
ROWS = [
    ("Yaourt grec", "97", "5,5", "3.76"),
    ("Yaourt nature", "61", "4", "5.56"),
    ("Yaourt à la vanille", "104", "3,4", "2.90"),
    ("Mozzarella légère", "156", "20,7", "4.53"),
    ("Skyr", "63", "11", "2.50"),
]


@pytest.fixture
def client(tmp_path):
    shop = OrganizationFactory(language="fr")
    items = [
        grocery_item(
            number,
            title,
            f"{title}. " + FACTS.format(kcal=kcal, protein=protein),
            price=f"{price} EUR",
            product_type="Crèmerie",
            size="500 g",
        )
        for number, (title, kcal, protein, price) in enumerate(ROWS, start=1)
    ]
    _, failed = run_import(str(shop.id), str(write(tmp_path / "f.tsv", tsv(items))))
    assert not failed
    return shop_client(shop)


@pytest.mark.parametrize(
    "message",
    ["un yaourt peu calorique", "le yaourt le moins calorique", "low calorie yogurt"],
)
def test_fewest_calories_first_with_the_description_s_own_words(client, message):
    reply = ask(client, message)

    assert titles(reply) == ["Yaourt nature", "Yaourt grec", "Yaourt à la vanille"]
    assert "61 kcal" in reply["content"]
    assert "104 kcal" in reply["content"]


def test_most_protein_first(client):
    reply = ask(client, "quelque chose de riche en protéines")

    assert titles(reply)[:3] == ["Mozzarella légère", "Skyr", "Yaourt grec"]
    assert "protéines 20,7 g" in reply["content"]


def test_the_closest_matches_are_of_the_kind_named_before_those_sharing_another_word(client):
    # No product is a "yaourt léger" nor "yaourt allégé": the yogurts come first, and each is
    # said to match the one word it has.
    reply = ask(client, "un yaourt allégé, peu calorique")

    assert titles(reply) == ["Yaourt nature", "Yaourt grec", "Yaourt à la vanille"]
    assert "correspond à « yaourt allege »" not in reply["content"]
    assert "97 kcal." in reply["content"]

    reply = ask(client, "un yaourt léger")

    lines = [line for line in reply["content"].splitlines() if line.startswith("- ")]
    assert lines[0].endswith("correspond à « yaourt ».")
    # SQLite's prefix search finds "légère" for "léger" too: the mozzarella then comes last.
    assert set(titles(reply)[:3]) == {"Yaourt grec", "Yaourt nature", "Yaourt à la vanille"}
    assert titles(reply)[3:] in ([], ["Mozzarella légère"])


def test_a_cheaper_alternative_in_a_french_catalog_is_of_the_same_kind(client):
    # French names the kind first: "Yaourt nature" is a yogurt, not a "nature".
    reply = ask(client, "quelque chose de moins cher ?", "https://shop.example/p/2")

    assert titles(reply)[:2] == ["Yaourt grec", "Yaourt à la vanille"]


def test_a_product_of_one_size_gets_no_question_about_its_sizes(client):
    # Each jar has one size ("500 g") and no variants: asking for its sizes leads nowhere.
    for message in ("un yaourt peu calorique", "du skyr"):
        reply = ask(client, message)

        assert titles(reply)
        assert not [s for s in reply["suggestions"] if "taille" in s.lower()], reply["suggestions"]
