"""The catalog API: scoped keys, item upserts, partial updates, deletes, batches, store stock."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.scopes import SCOPE_FORBIDDEN
from accounts.services import api_key_issue
from knowledge.catalog.items import DUPLICATE_ITEM, PRODUCT_NOT_FOUND, STORE_NOT_FOUND
from knowledge.models import Product, SearchTerm, StoreInventory
from tests.factories import StoreFactory
from tests.knowledge.catalog_files import item, run_import, tsv, write

pytestmark = pytest.mark.django_db

ITEM_URL = "/v1/catalog/products/{}"
BATCH_URL = "/v1/catalog/products/batch"


@pytest.fixture
def catalog(tenant) -> APIClient:
    """A client with a catalog key of the tenant's organization."""
    issued = api_key_issue(organization=tenant.organization, scope="catalog")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issued.key)
    return client


def body(number: int, **overrides: str) -> dict[str, str]:
    """A product as JSON: the feed item's non-empty attributes."""
    return {name: value for name, value in item(number, **overrides).items() if value}


def put(client: APIClient, item_id: str, data) -> tuple[int, dict]:
    response = client.put(ITEM_URL.format(item_id), data, format="json")
    return response.status_code, response.json()


def patch(client: APIClient, item_id: str, data) -> tuple[int, dict]:
    response = client.patch(ITEM_URL.format(item_id), data, format="json")
    return response.status_code, response.json()


def feed_error(tmp_path, tenant, **overrides: str) -> str:
    """The message the feed import gives the same item."""
    feed = write(tmp_path / "feed.tsv", tsv([item(1, **overrides)]))
    summary, _ = run_import(str(tenant.organization.pk), str(feed))
    return summary["errors"][0]["message"]


# --- scopes ----------------------------------------------------------------------------------


def test_the_command_line_issues_a_catalog_key_that_only_the_catalog_api_accepts(tenant):
    out = StringIO()
    call_command(
        "issue_api_key", str(tenant.organization.pk), "--scope", "catalog", "--json", stdout=out
    )
    issued = json.loads(out.getvalue().splitlines()[-1])
    assert issued["scope"] == "catalog"
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issued["apiKey"])

    assert put(client, "SKU-1", body(1))[0] == 201
    chat_id = tenant.client.post(
        "/v1/chats", {"chatbotId": str(tenant.chatbot.pk)}, format="json"
    ).json()["id"]
    for response in (
        client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.pk)}, format="json"),
        client.get(f"/v1/chats/{chat_id}"),
        client.get(f"/v1/chats/{chat_id}/messages"),
        client.post(
            f"/v1/chats/{chat_id}/messages",
            {"message": "hi", "currentUrl": "https://shop.example/"},
            format="json",
        ),
        client.get(f"/v1/chats/{chat_id}/messages/events"),
    ):
        assert response.status_code == 403
        assert json.loads(response.content) == {"message": SCOPE_FORBIDDEN}


def test_a_chat_key_gets_403_on_every_catalog_operation(tenant):
    store = StoreFactory(organization=tenant.organization, code="berlin")
    client = tenant.client  # the default scope: chat
    for response in (
        client.put(ITEM_URL.format("SKU-1"), body(1), format="json"),
        client.patch(ITEM_URL.format("SKU-1"), {"price": "1.00 EUR"}, format="json"),
        client.delete(ITEM_URL.format("SKU-1")),
        client.post(BATCH_URL, {"items": [{"method": "DELETE", "id": "x"}]}, format="json"),
        client.put(f"/v1/catalog/inventory/{store.code}/SKU-1", {}, format="json"),
    ):
        assert response.status_code == 403
        assert response.json() == {"message": SCOPE_FORBIDDEN}
    assert not Product.objects.exists()


def test_without_a_key_the_catalog_api_answers_401(anonymous):
    response = anonymous.put(ITEM_URL.format("SKU-1"), body(1), format="json")
    assert response.status_code == 401


def test_the_console_issues_a_catalog_key(operator_client, tenant):
    response = operator_client.post(
        "/admin/accounts/apikey/add/",
        {"organization": tenant.organization.pk, "environment": "staging", "scope": "catalog"},
    )
    key = response.content.decode().split('id="full-api-key"')[1].split(">")[1].split("<")[0]
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key)
    assert put(client, "SKU-1", body(1))[0] == 201
    assert client.get("/v1/chats/x").status_code == 403


# --- single items ----------------------------------------------------------------------------


def test_put_creates_then_replaces_an_item(catalog, tenant):
    status, created = put(catalog, "SKU-1", body(1, sale_price="79.90 EUR"))
    assert status == 201
    assert created["product"]["price"] == "89.90 EUR"
    assert created["product"]["sale_price"] == "79.90 EUR"
    assert created["warnings"] == []

    replacement = body(1, title="Trail Runner Pro", price="99.00 EUR")
    status, replaced = put(catalog, "SKU-1", replacement)
    assert status == 200
    product = Product.objects.get(organization=tenant.organization, item_id="SKU-1")
    assert (product.title, product.price, product.sale_price) == (
        "Trail Runner Pro",
        Decimal("99.00"),
        None,  # a PUT replaces the whole item: no sale price given, none kept
    )
    assert replaced["product"]["title"] == "Trail Runner Pro"
    assert SearchTerm.objects.filter(organization=tenant.organization, term="pro").exists()


def test_put_reports_what_the_feed_import_would_with_the_same_message(catalog, tenant, tmp_path):
    bad = {"price": "89,90 euros", "sale_price": "79.90 USD", "link": "not a url"}
    expected = feed_error(tmp_path, tenant, **bad)

    status, answer = put(catalog, "SKU-2", body(2, **bad))

    assert status == 422
    assert "; ".join(
        f"{name}: {problem}" for name, problems in answer["errors"].items() for problem in problems
    ) == expected.replace("SKU-1", "SKU-2")
    assert answer["message"] == expected.split("; ")[0]
    assert not Product.objects.filter(item_id="SKU-2").exists()


def test_required_attributes_missing_are_named(catalog):
    status, answer = put(catalog, "SKU-1", {"title": "Shoe"})
    assert status == 422
    assert answer["errors"] == {"link": ["missing"], "price": ["missing"]}


def test_unknown_attributes_and_wrong_types_are_refused(catalog):
    status, answer = put(catalog, "SKU-1", {**body(1), "sale_prise": "1.00 EUR"})
    assert status == 422
    assert answer["errors"] == {"sale_prise": ["not a product attribute the catalog reads"]}
    status, answer = put(catalog, "SKU-1", {**body(1), "title": ["a", "list"]})
    assert status == 422 and "title" in answer["errors"]
    status, answer = put(catalog, "SKU-1", ["not", "an", "object"])
    assert status == 422


def test_an_id_in_the_body_must_be_the_items(catalog):
    status, answer = put(catalog, "SKU-1", body(2))
    assert status == 422
    assert answer["errors"]["id"] == ["differs from the item's id 'SKU-1'"]


def test_patch_changes_only_the_attributes_given(catalog, tenant):
    put(catalog, "SKU-1", body(1))

    status, answer = patch(
        catalog, "SKU-1", {"sale_price": "59.90 EUR", "availability": "out_of_stock", "quantity": 0}
    )

    assert status == 200
    product = Product.objects.get(organization=tenant.organization, item_id="SKU-1")
    assert (product.price, product.sale_price, product.availability, product.quantity) == (
        Decimal("89.90"),
        Decimal("59.90"),
        "out_of_stock",
        0,
    )
    assert (product.title, product.brand, product.color) == ("Trail Runner 1", "Stride", "Blue")
    assert answer["product"]["sale_price"] == "59.90 EUR"

    # An empty value clears an optional attribute, as an empty feed cell does.
    patch(catalog, "SKU-1", {"sale_price": ""})
    product.refresh_from_db()
    assert product.sale_price is None


def test_patch_is_checked_against_the_stored_item(catalog, tenant, tmp_path):
    put(catalog, "SKU-1", body(1))
    expected = feed_error(tmp_path, tenant, sale_price="10.00 USD")
    status, answer = patch(catalog, "SKU-1", {"sale_price": "10.00 USD"})
    assert status == 422
    assert f"sale_price: {answer['errors']['sale_price'][0]}" == expected


def test_patch_and_delete_of_an_unknown_item_are_404(catalog):
    status, answer = patch(catalog, "SKU-404", {"price": "1.00 EUR"})
    assert (status, answer) == (404, {"message": PRODUCT_NOT_FOUND.format(item_id="SKU-404")})
    response = catalog.delete(ITEM_URL.format("SKU-404"))
    assert response.status_code == 404


def test_delete_removes_the_item_and_its_stock(catalog, tenant):
    put(catalog, "SKU-1", body(1))
    store = StoreFactory(organization=tenant.organization, code="berlin")
    stock = catalog.put(
        f"/v1/catalog/inventory/{store.code}/SKU-1", {"availability": "in_stock"}, format="json"
    )
    assert stock.status_code == 201

    response = catalog.delete(ITEM_URL.format("SKU-1"))

    assert response.status_code == 204
    assert not Product.objects.filter(item_id="SKU-1").exists()
    assert not StoreInventory.objects.exists()


def test_one_organization_cannot_touch_anothers_items(catalog, other_tenant):
    other = api_key_issue(organization=other_tenant.organization, scope="catalog")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=other.key)
    put(client, "SKU-1", body(1))

    assert patch(catalog, "SKU-1", {"price": "1.00 EUR"})[0] == 404
    assert catalog.delete(ITEM_URL.format("SKU-1")).status_code == 404
    assert Product.objects.get(item_id="SKU-1").price == Decimal("89.90")


# --- batches ---------------------------------------------------------------------------------


def test_a_batch_answers_each_item_as_its_single_request_would(catalog, tenant):
    put(catalog, "SKU-1", body(1))
    put(catalog, "SKU-2", body(2))
    items = [
        {"method": "PUT", "id": "SKU-3", "product": body(3)},
        {"method": "PATCH", "id": "SKU-1", "product": {"price": "79.00 EUR"}},
        {"method": "DELETE", "id": "SKU-2"},
        {"method": "PATCH", "id": "SKU-9", "product": {"price": "1.00 EUR"}},
        {"method": "PATCH", "id": "SKU-1", "product": {"price": "1.00 EUR"}},
        {"method": "PUT", "id": "SKU-4", "product": body(4, price="cheap")},
        {"method": "PUT", "id": "SKU-5", "product": body(5, availability="")},
    ]

    response = catalog.post(BATCH_URL, {"items": items}, format="json")

    assert response.status_code == 200
    results = response.json()["results"]
    assert [(result["id"], result["status"]) for result in results] == [
        ("SKU-3", 201),
        ("SKU-1", 200),
        ("SKU-2", 204),
        ("SKU-9", 404),
        ("SKU-1", 422),
        ("SKU-4", 422),
        ("SKU-5", 201),
    ]
    assert results[3]["message"] == PRODUCT_NOT_FOUND.format(item_id="SKU-9")
    assert results[4]["message"] == DUPLICATE_ITEM.format(index=1)
    assert results[5]["errors"] == {
        "price": ['"cheap" is not an amount and a currency, like "49.99 EUR"']
    }
    assert results[6]["warnings"] == ["availability: missing, taken as in_stock"]
    stored = dict(
        Product.objects.filter(organization=tenant.organization).values_list("item_id", "price")
    )
    assert stored == {
        "SKU-1": Decimal("79.00"),
        "SKU-3": Decimal("89.90"),
        "SKU-5": Decimal("89.90"),
    }


def test_a_batch_of_1000_items_larger_than_64_kib_is_one_bounded_set_of_queries(
    catalog, tenant, django_assert_max_num_queries
):
    items = [{"method": "PUT", "id": f"SKU-{n}", "product": body(n)} for n in range(1000)]
    payload = json.dumps({"items": items})
    assert len(payload) > 64 * 1024

    with django_assert_max_num_queries(60):
        response = catalog.post(BATCH_URL, payload, content_type="application/json")

    assert response.status_code == 200
    assert {result["status"] for result in response.json()["results"]} == {201}
    assert Product.objects.filter(organization=tenant.organization).count() == 1000

    prices = [
        {"method": "PATCH", "id": f"SKU-{n}", "product": {"price": "10.00 EUR", "quantity": n}}
        for n in range(1000)
    ]
    with django_assert_max_num_queries(60):
        response = catalog.post(BATCH_URL, {"items": prices}, format="json")
    assert {result["status"] for result in response.json()["results"]} == {200}
    assert set(Product.objects.values_list("price", flat=True)) == {Decimal("10.00")}


def test_a_batch_over_1000_items_or_empty_is_refused_whole(catalog):
    items = [{"method": "DELETE", "id": f"SKU-{n}"} for n in range(1001)]
    response = catalog.post(BATCH_URL, {"items": items}, format="json")
    assert response.status_code == 422
    assert "items" in response.json()["errors"]
    assert catalog.post(BATCH_URL, {"items": []}, format="json").status_code == 422
    response = catalog.post(BATCH_URL, {"items": [{"method": "POST", "id": "x"}]}, format="json")
    assert response.status_code == 422
    assert "items.0.method" in response.json()["errors"]


# --- store stock -----------------------------------------------------------------------------


def test_store_stock_is_set_checked_as_a_local_inventory_row(catalog, tenant, tmp_path):
    put(catalog, "SKU-1", body(1))
    StoreFactory(organization=tenant.organization, code="berlin")
    url = "/v1/catalog/inventory/berlin/SKU-1"

    response = catalog.put(
        url, {"availability": "limited_availability", "quantity": 3, "aisle": "B4"}, format="json"
    )
    assert response.status_code == 201
    assert response.json() == {
        "storeCode": "berlin",
        "id": "SKU-1",
        "availability": "in_stock",
        "quantity": 3,
        "location": [{"key": "aisle", "value": "B4"}],
    }
    response = catalog.put(url, {"availability": "out_of_stock"}, format="json")
    assert response.status_code == 200
    stock = StoreInventory.objects.get()
    assert (stock.availability, stock.quantity) == ("out_of_stock", None)

    response = catalog.put(url, {"availability": "sold out", "quantity": -1}, format="json")
    assert response.status_code == 422
    assert response.json()["errors"] == {
        "availability": ['"sold out" is not one of in_stock, out_of_stock, preorder, backorder'],
        "quantity": ['"-1" is not a whole number >= 0'],
    }
    response = catalog.put(url, {}, format="json")
    assert response.json()["errors"] == {"availability": ["missing"]}


def test_store_stock_of_an_unknown_store_or_item_is_404(catalog, tenant):
    put(catalog, "SKU-1", body(1))
    StoreFactory(organization=tenant.organization, code="berlin")
    response = catalog.put(
        "/v1/catalog/inventory/paris/SKU-1", {"availability": "in_stock"}, format="json"
    )
    assert response.json() == {"message": STORE_NOT_FOUND.format(store_code="paris")}
    response = catalog.put(
        "/v1/catalog/inventory/berlin/SKU-2", {"availability": "in_stock"}, format="json"
    )
    assert (response.status_code, response.json()) == (
        404,
        {"message": PRODUCT_NOT_FOUND.format(item_id="SKU-2")},
    )


def test_a_numeric_google_product_category_is_read_as_its_taxonomy_path(catalog):
    status, created = put(catalog, "SKU-1", body(1, google_product_category="2271"))
    assert status == 201
    assert created["product"]["google_product_category"] == (
        "Apparel & Accessories > Clothing > Dresses"
    )

    status, unknown = put(catalog, "SKU-2", body(2, google_product_category="99999999"))
    assert status == 201
    assert unknown["warnings"] == [
        'google_product_category: "99999999" is not a category id of Google\'s product'
        " taxonomy (2021-09-21), ignored"
    ]
    assert "google_product_category" not in unknown["product"]
