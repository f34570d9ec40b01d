"""What a search shows of a shelf and in which order (knowledge/engines/catalog/finding.py),
through POST /v1/chats/{chatId}/messages on a small feed."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import item, run_import, tsv, write
from tests.knowledge.replies import ask, shop_client

pytestmark = pytest.mark.django_db

# One shelf, titles in alphabetical order unlike their prices.
FISH = [("Anchois", "10.70"), ("Cabillaud", "14.90"), ("Colin", "13.10"), ("Truite", "12.20")]


def _client(tmp_path, rows: list[tuple[str, str, str, str]], language: str) -> APIClient:
    """A shop of (title, price, shelf, description) rows with a chat key."""
    shop = OrganizationFactory(language=language)
    items = [
        item(
            number,
            title=title,
            price=f"{price} EUR",
            description=description,
            link=f"https://shop.example/p/{number}",
            product_type=shelf,
            google_product_category="",
            brand="",
            color="",
            size="",
            material="",
            item_group_id="",
            gender="",
            age_group="",
        )
        for number, (title, price, shelf, description) in enumerate(rows, start=1)
    ]
    _, failed = run_import(str(shop.id), str(write(tmp_path / "f.tsv", tsv(items))))
    assert not failed
    return shop_client(shop)


@pytest.fixture
def client(tmp_path):
    return _client(
        tmp_path, [(title, price, "Poissonnerie", f"{title} frais.") for title, price in FISH], "fr"
    )


def _titles(client: APIClient, message: str) -> list[str]:
    return [product["designation"] for product in ask(client, message)["products"]]


def test_a_price_band_lists_its_products_up_from_its_low_end(client):
    assert _titles(client, "du poisson entre 12 et 15 euros") == ["Truite", "Colin", "Cabillaud"]


def test_a_budget_lists_the_most_it_buys_first(client):
    assert _titles(client, "du poisson à moins de 14 euros") == ["Colin", "Truite", "Anchois"]


def test_a_shelf_named_with_words_none_of_its_products_has_shows_the_shelf(client):
    reply = ask(client, "du poisson pour un pique-nique, moins de 14 euros")

    assert [product["designation"] for product in reply["products"]] == [
        "Colin",
        "Truite",
        "Anchois",
    ]
    assert "pique nique" in reply["content"]  # named as the words no product matches


def test_among_closest_matches_the_one_sharing_the_rarer_word_comes_first(tmp_path):
    shop = _client(
        tmp_path,
        [
            ("Basketball", "28.00", "Sports", "Made for playing basketball on courts."),
            ("Football", "57.00", "Sports", "Play on grass or turf."),
            ("Tennis Ball", "12.00", "Sports", "Our dog loves these tennis balls."),
        ],
        "en",
    )

    # Each shares one word; "dog" is in one product, "play" in two.
    assert _titles(shop, "something for my dog to play fetch with")[0] == "Tennis Ball"


def test_a_two_letter_word_of_a_need_is_shared_only_as_a_whole_word(tmp_path):
    shop = _client(
        tmp_path,
        [
            ("Gaming PC", "900.00", "Computers", "Optimised for gaming, and VR ready."),
            ("Chevron Rug", "90.00", "Home", "A chevron pattern for any room to run across."),
            ("Trail Shoe", "80.00", "Sport", "Made to run on trails."),
        ],
        "en",
    )

    # "vr" inside "chevron" would have made the rug share two words.
    assert _titles(shop, "I need something that can run VR games")[0] == "Gaming PC"


def test_a_use_word_finds_products_whose_descriptions_say_it_in_other_words(tmp_path):
    shop = _client(
        tmp_path,
        [
            ("Aloe Vera", "7.00", "Garden > Plants", "A lovely house plant, easy to care for."),
            ("Indoor Fern", "9.00", "Garden > Plants", "A lush green fern."),
            ("Tulip Pot", "6.00", "Garden > Plants", "Flowers in full sun, for borders."),
        ],
        "en",
    )

    assert set(_titles(shop, "indoor plants")) == {"Aloe Vera", "Indoor Fern"}
