"""Admin pages of products, stores and inventory: search, filters, inline, roles."""

from __future__ import annotations

import pytest

from knowledge.admin_catalog import INVALID_PRODUCT_URL
from knowledge.models import Availability, Product, StoreInventory
from knowledge.search import product_search
from tests.factories import OrganizationFactory, ProductFactory, StoreFactory

pytestmark = pytest.mark.django_db
PRODUCTS = "/admin/knowledge/product/"


@pytest.fixture
def catalog():
    shop = OrganizationFactory(name="Admin Shop")
    berlin = StoreFactory(organization=shop, code="berlin", name="Berlin Mitte")
    runner = ProductFactory(
        organization=shop, title="Trail Runner", brand="Stride", product_type="shoes > running"
    )
    boot = ProductFactory(
        organization=shop,
        title="Winter Boot",
        brand="Alpine",
        product_type="shoes > boots",
        availability=Availability.OUT_OF_STOCK,
    )
    mug = ProductFactory(
        organization=shop, title="Camp Mug", brand="Alpine", product_type="kitchen"
    )
    StoreInventory.objects.create(
        product=runner,
        store=berlin,
        availability=Availability.IN_STOCK,
        quantity=4,
        location=[{"key": "aisle", "value": "12"}],
    )
    return {"shop": shop, "berlin": berlin, "runner": runner, "boot": boot, "mug": mug}


def listed(client, query: str = "") -> set[str]:
    page = client.get(PRODUCTS + query)
    assert page.status_code == 200
    titles = {"Trail Runner", "Winter Boot", "Camp Mug"}
    return {title for title in titles if f">{title}<" in page.content.decode()}


@pytest.mark.parametrize("client_name", ["superuser_client", "operator_client", "support_client"])
def test_product_list_search_and_filters(request, catalog, client_name):
    client = request.getfixturevalue(client_name)

    assert listed(client) == {"Trail Runner", "Winter Boot", "Camp Mug"}
    assert listed(client, "?q=runner") == {"Trail Runner"}
    assert listed(client, "?availability__exact=out_of_stock") == {"Winter Boot"}
    assert listed(client, "?brand__exact=Alpine") == {"Winter Boot", "Camp Mug"}
    assert listed(client, "?category=shoes") == {"Trail Runner", "Winter Boot"}
    assert listed(client, f"?store={catalog['berlin'].pk}") == {"Trail Runner"}


def test_product_page_shows_store_inventory_inline(superuser_client, catalog):
    page = superuser_client.get(f"{PRODUCTS}{catalog['runner'].pk}/change/").content.decode()

    assert "Berlin Mitte" in page
    assert "inventory-0-quantity" in page
    assert "aisle" in page


def test_operator_edit_stores_the_canonical_url_and_search_follows(operator_client, catalog):
    runner = catalog["runner"]
    response = operator_client.get(f"{PRODUCTS}{runner.pk}/change/")
    form = response.context["adminform"].form
    data = {name: form.initial.get(name, "") for name in form.fields}
    data.update(
        {
            "organization": catalog["shop"].pk,
            "title": "Trail Runner Samsonite",
            "url": "HTTPS://Shop.Example/p/runner/?utm_source=mail&b=1",
            "sale_price": "",
            "quantity": "",
            "inventory-TOTAL_FORMS": "1",
            "inventory-INITIAL_FORMS": "1",
            "inventory-0-id": runner.inventory.get().pk,
            "inventory-0-product": runner.pk,
            "inventory-0-store": catalog["berlin"].pk,
            "inventory-0-availability": "in_stock",
            "inventory-0-quantity": "3",
            "inventory-0-location": '[{"key": "aisle", "value": "12"}]',
        }
    )

    response = operator_client.post(f"{PRODUCTS}{runner.pk}/change/", data)

    assert response.status_code == 302, response.context["adminform"].form.errors
    runner.refresh_from_db()
    assert runner.url == "https://shop.example/p/runner?b=1"
    assert runner.inventory.get().quantity == 3
    # The new word is searchable at once, typos included.
    assert [
        p.pk for p in product_search(organization=catalog["shop"], query="samsonite").products
    ] == [runner.pk]
    assert [
        p.pk for p in product_search(organization=catalog["shop"], query="samsonte").products
    ] == [runner.pk]


def test_invalid_product_url_is_refused(operator_client, catalog):
    runner = catalog["runner"]
    form = operator_client.get(f"{PRODUCTS}{runner.pk}/change/").context["adminform"].form
    data = {name: form.initial.get(name, "") for name in form.fields}
    data.update(
        {
            "organization": catalog["shop"].pk,
            "url": "ftp://shop.example/x",
            "sale_price": "",
            "quantity": "",
            "inventory-TOTAL_FORMS": "0",
            "inventory-INITIAL_FORMS": "0",
        }
    )

    response = operator_client.post(f"{PRODUCTS}{runner.pk}/change/", data)

    assert response.status_code == 200
    assert INVALID_PRODUCT_URL in response.content.decode()
    runner.refresh_from_db()
    assert runner.url.startswith("https://shop.example/")


def test_support_may_only_view_products_stores_and_inventory(support_client, catalog):
    runner = catalog["runner"]
    change = f"{PRODUCTS}{runner.pk}/change/"

    page = support_client.get(change).content.decode()
    post = support_client.post(change, {"title": "Hacked"})

    assert "Trail Runner" in page and 'name="title"' not in page
    assert post.status_code == 403
    assert Product.objects.get(pk=runner.pk).title == "Trail Runner"
    assert support_client.get(f"{PRODUCTS}add/").status_code == 403
    assert support_client.get(f"{PRODUCTS}{runner.pk}/delete/").status_code == 403
    assert support_client.get("/admin/knowledge/store/").status_code == 200
    assert support_client.get("/admin/knowledge/storeinventory/").status_code == 200
    assert support_client.get("/admin/knowledge/store/add/").status_code == 403


def test_store_list_counts_products_listed(operator_client, catalog):
    page = operator_client.get("/admin/knowledge/store/").content.decode()

    assert "Berlin Mitte" in page
    assert '<td class="field-products_listed">1</td>' in page


def test_inline_offers_only_the_products_organizations_stores(superuser_client, catalog):
    StoreFactory(organization=OrganizationFactory(), code="elsewhere", name="Other Shop Store")

    page = superuser_client.get(f"{PRODUCTS}{catalog['runner'].pk}/change/").content.decode()

    assert "Berlin Mitte" in page
    assert "Other Shop Store" not in page


def test_product_list_heads_the_price_price_and_writes_it_with_the_currency(
    operator_client, catalog
):
    from decimal import Decimal

    Product = type(catalog["runner"])
    Product.objects.filter(pk=catalog["runner"].pk).update(
        price=Decimal("499"), sale_price=None, currency="EUR"
    )
    Product.objects.filter(pk=catalog["mug"].pk).update(
        price=Decimal("20"), sale_price=Decimal("12.5"), currency="USD"
    )

    page = operator_client.get(PRODUCTS).content.decode()

    assert "Price paid" not in page and ">Price</a>" in page
    assert "€499.00" in page
    assert "$12.50" in page  # the sale price is what the shopper pays now
