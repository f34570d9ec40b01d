"""`seed_demo` (docs/api.md#operators-command-line): the shipped demo catalog, and a re-run that
changes nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from accounts.models import ApiKey, Organization
from chats.models import Event
from knowledge.models import Availability, ImportRun, Product, Store, StoreInventory
from knowledge.search import SearchFilters, product_search


def seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_seed_demo_ships_a_catalog_with_variants_stores_and_inventory():
    result = json.loads(seed("--json").strip().splitlines()[-1])

    assert set(result) == {"organizationId", "chatbotId", "apiKey"}
    organization = Organization.objects.get(pk=result["organizationId"])
    products = Product.objects.filter(organization=organization)
    assert 30 <= products.count() <= 60
    assert set(Store.objects.filter(organization=organization).values_list("code", flat=True)) == {
        "demo-berlin",
        "demo-munich",
    }
    assert StoreInventory.objects.filter(store__organization=organization).exists()
    sneakers = products.filter(item_group_id="SNK-AIR")
    assert {p.color for p in sneakers} == {"White", "Black"}
    assert {p.size for p in sneakers} == {"40", "42", "44"}
    assert products.filter(sale_price__isnull=False).exists()
    assert products.filter(availability=Availability.OUT_OF_STOCK).exists()
    assert len({p.brand for p in products.filter(product_type__startswith="Electronics")}) >= 3
    # Every demo GTIN is valid: the import gave no warning at all.
    run = ImportRun.objects.get(organization=organization)
    assert (run.source, run.error_count, run.warning_count) == ("seed", 0, 0)
    found = product_search(
        organization=organization, query="headphones", filters=SearchFilters(on_sale=True)
    )
    assert [p.item_id for p in found.products] == ["AUD-NW-ANC"]


@pytest.mark.django_db
def test_seed_demo_again_keeps_the_catalog_and_issues_a_new_key():
    first = json.loads(seed("--json").strip().splitlines()[-1])
    product_ids = set(Product.objects.values_list("pk", flat=True))

    text = seed("--banner")

    assert "Catalog         : 0 products created, 0 updated, 0 removed; 44 in the catalog" in text
    assert first["organizationId"] in text
    assert set(Product.objects.values_list("pk", flat=True)) == product_ids
    assert ApiKey.objects.count() == 2


@pytest.mark.django_db
def test_search_tool_counts_variants_of_a_product_once_as_the_reply_does(client):
    # Given the demo shop, whose trail running shoe on sale comes in three sizes
    result = json.loads(seed("--json").strip().splitlines()[-1])
    headers = {"HTTP_X_API_KEY": result["apiKey"]}
    chat = client.post(
        "/v1/chats", {"chatbotId": result["chatbotId"]}, content_type="application/json", **headers
    ).json()

    # When a shopper asks for running shoes under 100
    reply = client.post(
        f"/v1/chats/{chat['id']}/messages",
        {"message": "show me running shoes under 100", "currentUrl": "https://demo.example/"},
        content_type="application/json",
        **headers,
    ).json()

    # Then the search's tool response counts one product, as the reply text and products do
    search = Event.objects.get(chat_id=chat["id"], tool_name="search_products", status="completed")
    assert len(reply["products"]) == 1 and "one match" in reply["content"]
    assert search.tool_response["total"] == len(search.tool_response["products"]) == 1
    shown = Product.objects.get(gtin=reply["products"][0]["gtin"])
    assert Product.objects.filter(item_group_id=shown.item_group_id).count() == 3
