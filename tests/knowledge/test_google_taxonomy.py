"""A `google_product_category` given as a Google product taxonomy id is read as its category
path (knowledge/feeds/taxonomy.py): stored, searched and understood as that path."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import api_key_issue
from knowledge.models import Product
from tests.factories import ChatbotFactory, OrganizationFactory
from tests.knowledge.catalog_files import item, run_import, tsv, write

pytestmark = pytest.mark.django_db

CHEESE_ID, DRESSES_ID = "429", "2271"


def _feed(tmp_path, categories: dict[str, str]):
    """A feed of one item per title, with nothing but the category saying what it is."""
    items = [
        item(
            number,
            title=title,
            google_product_category=category,
            product_type="",
            description="From our own farm.",
            brand="",
            color="",
            material="",
            size="",
            item_group_id="",
            gender="",
            age_group="",
        )
        for number, (title, category) in enumerate(categories.items(), start=1)
    ]
    return write(tmp_path / "feed.tsv", tsv(items))


def test_a_numeric_category_is_stored_as_its_taxonomy_path(tmp_path):
    shop = OrganizationFactory()
    feed = _feed(tmp_path, {"Tomme": CHEESE_ID, "Summer Blossom": f" {DRESSES_ID} "})

    summary, failed = run_import(str(shop.id), str(feed))

    assert not failed and summary["warnings"] == []
    categories = dict(Product.objects.values_list("title", "google_product_category"))
    assert categories == {
        "Tomme": "Food, Beverages & Tobacco > Food Items > Dairy Products > Cheese",
        "Summer Blossom": "Apparel & Accessories > Clothing > Dresses",
    }


def test_an_unknown_category_id_is_ignored_with_a_warning(tmp_path):
    shop = OrganizationFactory()
    feed = _feed(tmp_path, {"Tomme": "99999999", "Brie": "Dairy > Cheese"})

    summary, failed = run_import(str(shop.id), str(feed), "--strict")

    # --strict refuses an import with errors, not one with warnings.
    assert not failed and summary["created"] == 2
    assert summary["warnings"] == [
        {
            "file": "feed.tsv",
            "line": 2,
            "id": "SKU-1",
            "message": 'google_product_category: "99999999" is not a category id of'
            " Google's product taxonomy (2021-09-21), ignored",
        }
    ]
    categories = dict(Product.objects.values_list("title", "google_product_category"))
    assert categories == {"Tomme": "", "Brie": "Dairy > Cheese"}


def test_a_shopper_finds_products_by_a_word_only_their_taxonomy_path_says(tmp_path):
    shop = OrganizationFactory(language="en")
    feed = _feed(tmp_path, {"Tomme": CHEESE_ID, "Comté": CHEESE_ID, "Summer Blossom": DRESSES_ID})
    _, failed = run_import(str(shop.id), str(feed))
    assert not failed
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_issue(organization=shop).key)
    chat = client.post(
        "/v1/chats", {"chatbotId": str(ChatbotFactory(organization=shop).id)}, format="json"
    )

    reply = client.post(
        f"/v1/chats/{chat.json()['id']}/messages",
        {"message": "do you have cheese?", "currentUrl": "https://shop.example/"},
        format="json",
    )

    assert reply.status_code == 201, reply.content
    titles = {product["designation"] for product in reply.json()["products"]}
    assert titles == {"Tomme", "Comté"}
