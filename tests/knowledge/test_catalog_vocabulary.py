"""The catalog's own words steer understanding (knowledge/engines/catalog/vocabulary.py):
categories named by a part of a shelf's name or by what a shelf sells, in the catalog's
language, through POST /v1/chats/{chatId}/messages on small feeds made for each test."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import item, run_import, tsv, write
from tests.knowledge.replies import ask, shop_client, titles

pytestmark = pytest.mark.django_db

# A French grocery's shelves, as its feed names them.
GROCERY = [
    ("Riz blanc", "2.30", "Épicerie salée > Céréales, pâtes et riz", "Riz blanc. Grain long."),
    ("Riz complet", "2.60", "Épicerie salée > Céréales, pâtes et riz", "Riz complet."),
    ("Céréales soufflées", "1.90", "Épicerie salée > Céréales, pâtes et riz", "Céréales."),
    ("Pâtes fraîches", "2.10", "Épicerie salée > Céréales, pâtes et riz", "Pâtes de blé dur."),
    ("Ketchup", "2.20", "Épicerie salée > Sauces et condiments", "Sauce tomate."),
    ("Moutarde forte", "1.80", "Épicerie salée > Sauces et condiments", "Moutarde de Dijon."),
    ("Truite", "12.50", "Poissonnerie", "Truite fraîche."),
    ("Cabillaud", "19.80", "Poissonnerie", "Cabillaud frais."),
    ("Beignet", "2.40", "Épicerie sucrée", "Beignet à la confiture."),
    ("Miel", "4.10", "Épicerie sucrée", "Miel de fleurs."),
    ("Oeuf (blanc)", "3.20", "Crèmerie > Produits laitiers et œufs", "Blanc d'oeuf."),
    ("Lait demi-écrémé", "1.10", "Crèmerie > Produits laitiers et œufs", "Lait de vache."),
    ("Beurre doux", "2.90", "Crèmerie > Produits laitiers et œufs", "Beurre."),
]


def _shop(
    tmp_path,
    rows,
    language: str,
    stores: dict[str, list[str]] | None = None,
    age_groups: dict[str, str] | None = None,
) -> APIClient:
    """A shop of `rows`; `stores`: each store's name -> the titles it has in stock;
    `age_groups`: a title -> its feed's age_group."""
    organization = OrganizationFactory(name=f"Vocabulary {language}", language=language)
    items = [
        item(
            number,
            title=title,
            price=f"{price} EUR",
            product_type=shelf,
            google_product_category="",
            description=description,
            link=f"https://shop.example/p/{number}",
            item_group_id="",
            color="",
            size="",
            material="",
            gender="",
            age_group=(age_groups or {}).get(title, ""),
            brand="",
        )
        for number, (title, price, shelf, description) in enumerate(rows, start=1)
    ]
    files = [str(write(tmp_path / "f.tsv", tsv(items)))]
    if stores:
        codes = {name: f"store-{number}" for number, name in enumerate(stores, start=1)}
        store_lines = ["store_code\tname"] + [f"{codes[name]}\t{name}" for name in stores]
        rows_of = {values["title"]: values["id"] for values in items}
        stock = ["store_code\tid\tavailability\tquantity"] + [
            f"{codes[name]}\t{rows_of[title]}\t"
            + ("in_stock\t5" if title in stocked else "out_of_stock\t0")
            for name, stocked in stores.items()
            for title in rows_of
        ]
        files += [
            "--stores",
            str(write(tmp_path / "s.tsv", "\n".join(store_lines) + "\n")),
            "--inventory",
            str(write(tmp_path / "i.tsv", "\n".join(stock) + "\n")),
        ]
    summary, failed = run_import(str(organization.id), *files)
    assert not failed, summary
    return shop_client(organization)


@pytest.fixture
def grocery(tmp_path):
    return _shop(tmp_path, GROCERY, "fr")


def test_a_word_of_a_shelf_that_names_products_shows_those_products(grocery):
    # "riz" is one of three things on its shelf: the cheapest rice, not the cheapest cereal.
    reply = ask(grocery, "le riz le moins cher")

    assert titles(reply)[0] == "Riz blanc"
    assert set(titles(reply)) == {"Riz blanc", "Riz complet"}


def test_a_part_of_a_shelf_name_that_names_no_product_is_that_shelf(grocery):
    reply = ask(grocery, "vous avez des condiments ?")

    assert set(titles(reply)) == {"Ketchup", "Moutarde forte"}


def test_a_shelf_is_found_by_what_it_sells(grocery):
    # "poisson" for "Poissonnerie", "sucré" for "Épicerie sucrée".
    assert set(titles(ask(grocery, "du poisson"))) == {"Truite", "Cabillaud"}
    assert set(titles(ask(grocery, "un truc sucré"))) == {"Beignet", "Miel"}


def test_a_ligature_matches_the_catalog_spelling_without_it(grocery):
    reply = ask(grocery, "je cherche des œufs")

    assert titles(reply) == ["Oeuf (blanc)"]


def test_an_english_shelf_shares_its_last_word_between_its_parts(tmp_path):
    shop = _shop(
        tmp_path,
        [
            ("Steel Bottle", "20.00", "Kitchen & Dining > Food & Beverage Carriers", "A bottle."),
            ("Lunch Box", "15.00", "Kitchen & Dining > Food & Beverage Carriers", "A box."),
            ("Oat Flakes", "3.00", "Groceries > Cereal", "Rolled oats, a breakfast food."),
        ],
        "en",
    )

    # "Food & Beverage Carriers" carry food: "food" is not that shelf; "kitchen" is its own.
    assert "Oat Flakes" in titles(ask(shop, "food"))
    assert set(titles(ask(shop, "kitchen"))) == {"Steel Bottle", "Lunch Box"}


def test_a_store_named_by_two_words_of_its_name_is_the_store_not_a_product_word(tmp_path):
    shop = _shop(
        tmp_path,
        [
            ("Nutella", "4.10", "Épicerie sucrée", "Pâte à tartiner."),
            ("Champignon de Paris", "3.10", "Fruits et légumes", "Champignon blanc."),
        ],
        "fr",
        stores={"Paris Bastille": ["Champignon de Paris"], "Lyon Croix-Rousse": ["Nutella"]},
    )

    reply = ask(shop, "est-ce que vous avez du Nutella à Paris Bastille ?")

    assert titles(reply) == ["Nutella"]
    assert "Paris Bastille" in reply["content"]


def test_the_catalog_age_groups_are_understood_like_its_genders(tmp_path):
    shop = _shop(
        tmp_path,
        [
            ("Rain Jacket Junior", "39.00", "Clothing > Jackets", "A light rain jacket."),
            ("Rain Jacket", "89.00", "Clothing > Jackets", "A light rain jacket."),
            ("Rain Jacket Mini", "29.00", "Clothing > Jackets", "A light rain jacket."),
        ],
        "en",
        age_groups={
            "Rain Jacket Junior": "kids",
            "Rain Jacket": "adult",
            "Rain Jacket Mini": "toddler",
        },
    )

    assert titles(ask(shop, "a rain jacket for kids")) == ["Rain Jacket Junior"]
    assert titles(ask(shop, "jackets for children")) == ["Rain Jacket Junior"]
    assert titles(ask(shop, "a jacket for my baby")) == ["Rain Jacket Mini"]
    assert set(titles(ask(shop, "rain jackets"))) == {
        "Rain Jacket Junior",
        "Rain Jacket",
        "Rain Jacket Mini",
    }


def test_an_adjective_in_y_finds_the_noun_the_catalog_has(tmp_path):
    shop = _shop(
        tmp_path,
        [
            ("Rain Jacket", "89.00", "Clothing > Jackets", "Keeps you dry."),
            ("Steel Bottle", "20.00", "Kitchen > Bottles", "Keeps water cold on a walk."),
            ("Sun Hat", "25.00", "Clothing > Hats", "A wide brim."),
        ],
        "en",
    )

    assert titles(ask(shop, "something for a rainy day"))[0] == "Rain Jacket"
    assert titles(ask(shop, "a hat for sunny days")) == ["Sun Hat"]
