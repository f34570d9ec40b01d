"""A question on a product page about an amount its description gives ("how much protein?",
"combien de calories ?") is answered from that description, not by a search or the price,
through POST /v1/chats/{chatId}/messages."""

from __future__ import annotations

import pytest

from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import grocery_item, run_import, tsv, write
from tests.knowledge.replies import ask, shop_client

pytestmark = pytest.mark.django_db

YOGURT_PAGE = "https://shop.example/p/1"
ROWS = [
    (
        "Yaourt grec",
        "Yaourt grec. Valeurs nutritionnelles pour 100 g : 97 kcal, protéines 5,5 g, glucides 3,6 g.",
    ),
    ("Banane", "Banane. Poids moyen d'une pièce : 120 g."),
    ("Protéines de soja", "Protéines de soja en poudre."),
    ("Miel", "Miel de fleurs."),
]


@pytest.fixture
def client(tmp_path):
    shop = OrganizationFactory(language="fr")
    items = [
        grocery_item(
            number,
            title,
            description,
            brand="Vitasoja" if title == "Protéines de soja" else "",
            size="500 g" if title == "Yaourt grec" else "",
        )
        for number, (title, description) in enumerate(ROWS, start=1)
    ]
    _, failed = run_import(str(shop.id), str(write(tmp_path / "f.tsv", tsv(items))))
    assert not failed
    return shop_client(shop)


@pytest.mark.parametrize(
    ("message", "page", "says"),
    [
        ("il y a combien de protéines dedans ?", YOGURT_PAGE, "protéines 5,5 g"),
        ("how much protein is in it?", YOGURT_PAGE, "protéines 5,5 g"),
        ("ça fait combien de calories ?", YOGURT_PAGE, "97 kcal"),
        ("combien pèse une pièce ?", "https://shop.example/p/2", "120 g"),
    ],
)
def test_an_amount_the_description_gives_is_quoted_from_it(client, message, page, says):
    reply = ask(client, message, page)

    assert says in reply["content"]
    assert [product["url"] for product in reply["products"]] == [page]


def test_a_question_about_what_the_description_has_no_amount_of_is_still_a_search(client):
    reply = ask(client, "vous avez du miel ?", YOGURT_PAGE)

    assert [product["designation"] for product in reply["products"]] == ["Miel"]


def test_a_product_the_description_names_with_an_amount_is_still_searched_for(client):
    # The yogurt's description gives "glucides 3,6 g"; the shopper asks for something else.
    reply = ask(client, "vous avez des protéines de soja ?", YOGURT_PAGE)

    assert [product["designation"] for product in reply["products"]] == ["Protéines de soja"]


def test_a_pack_size_question_is_answered_with_the_size(client):
    reply = ask(client, "c'est quelle contenance ?", YOGURT_PAGE)

    assert "500 g" in reply["content"]
    assert [product["url"] for product in reply["products"]] == [YOGURT_PAGE]


def test_the_answer_is_in_the_shoppers_language(client):
    reply = ask(client, "il y a combien de protéines dedans ?", YOGURT_PAGE)

    assert "À ce sujet, la description dit : « Valeurs nutritionnelles" in reply["content"]


def test_a_question_naming_a_brand_searches_it_whatever_the_page(client):
    # On the yogurt's page, whose description gives its protein
    reply = ask(client, "which Vitasoja protein do you have?", YOGURT_PAGE)

    # The brand's products, not the page's amount
    assert [p["designation"] for p in reply["products"]] == ["Protéines de soja"], reply
    assert "5,5 g" not in reply["content"]
