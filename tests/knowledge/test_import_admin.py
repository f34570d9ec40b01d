"""Admin import form and import history: upload, summary, who imported, and role limits."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import ImportRun, ImportStatus, Product, StoreInventory
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import item, tsv

pytestmark = pytest.mark.django_db
ADD_URL = "/admin/knowledge/importrun/add/"
LIST_URL = "/admin/knowledge/importrun/"


def upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/tab-separated-values")


def test_operator_imports_feed_stores_and_inventory_and_sees_the_summary(operator_client):
    shop = OrganizationFactory(name="Upload Shop")
    feed = tsv([item(1), item(2, price="free"), item(3, gtin="4006381333932")])

    response = operator_client.post(
        ADD_URL,
        {
            "organization": shop.pk,
            "feed": upload("products.tsv", feed),
            "stores": upload("stores.tsv", "store_code\tname\nberlin\tBerlin\n"),
            "inventory": upload(
                "inventory.tsv",
                "store_code\tid\tavailability\tquantity\taisle\nberlin\tSKU-1\tin_stock\t2\t7\n",
            ),
        },
        follow=True,
    )

    assert response.status_code == 200
    page = response.content.decode()
    assert (
        "Imported products.tsv with 1 rejected row: 2 created, 0 updated, 0 removed; 1 warning."
        in page
    )
    assert 'class="warning"' in page and 'class="success"' not in page  # not a green banner
    assert "Imported with 1 rejected row" in page  # the run's outcome
    assert 'id="import-problems"' in page
    assert "price: &quot;free&quot; is not an amount" in page
    assert "has check digit 2, expected 1" in page
    assert "Inventory: 1 created" in page
    run = ImportRun.objects.get()
    assert (run.user.username, run.source, run.feed_name, run.status) == (
        "operators",
        "admin",
        "products.tsv",
        ImportStatus.SUCCEEDED,
    )
    assert (run.inventory_name, run.stores_name) == ("inventory.tsv", "stores.tsv")
    assert set(Product.objects.filter(organization=shop).values_list("item_id", flat=True)) == {
        "SKU-1",
        "SKU-3",
    }
    assert StoreInventory.objects.get().location == [{"key": "aisle", "value": "7"}]


def test_strict_import_from_the_form_changes_nothing(operator_client):
    shop = OrganizationFactory()

    response = operator_client.post(
        ADD_URL,
        {
            "organization": shop.pk,
            "feed": upload("f.tsv", tsv([item(1), item(2, link="")])),
            "strict": "on",
        },
        follow=True,
    )

    assert "Import aborted (strict): nothing was changed; 1 errors." in response.content.decode()
    assert not Product.objects.exists()
    assert ImportRun.objects.get().status == ImportStatus.FAILED


def test_full_import_from_the_form_removes_missing_items(superuser_client):
    shop = OrganizationFactory()
    superuser_client.post(
        ADD_URL, {"organization": shop.pk, "feed": upload("a.tsv", tsv([item(1), item(2)]))}
    )

    superuser_client.post(
        ADD_URL, {"organization": shop.pk, "feed": upload("b.tsv", tsv([item(1)])), "full": "on"}
    )

    assert list(Product.objects.values_list("item_id", flat=True)) == ["SKU-1"]
    assert ImportRun.objects.first().removed == 1


def test_form_without_a_feed_is_shown_again_with_the_error(operator_client):
    shop = OrganizationFactory()

    response = operator_client.post(ADD_URL, {"organization": shop.pk})

    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert not ImportRun.objects.exists()


def test_unreadable_upload_is_reported(operator_client):
    shop = OrganizationFactory()

    response = operator_client.post(
        ADD_URL,
        {"organization": shop.pk, "feed": SimpleUploadedFile("bad.xml", b"<rss><channel><item>")},
        follow=True,
    )

    page = response.content.decode()
    assert "A file could not be read and was not imported" in page
    assert "not well-formed XML" in page


def test_history_lists_who_imported_what(operator_client, superuser_client):
    shop = OrganizationFactory(name="History Shop")
    superuser_client.post(
        ADD_URL, {"organization": shop.pk, "feed": upload("first.tsv", tsv([item(1)]))}
    )
    operator_client.post(
        ADD_URL, {"organization": shop.pk, "feed": upload("second.tsv", tsv([item(2)]))}
    )

    page = operator_client.get(LIST_URL).content.decode()

    assert "first.tsv" in page and "second.tsv" in page
    assert "root" in page and "operators" in page
    assert page.index("second.tsv") < page.index("first.tsv")  # newest first
    assert "History Shop" in page


def test_history_is_read_only(operator_client):
    shop = OrganizationFactory()
    operator_client.post(
        ADD_URL, {"organization": shop.pk, "feed": upload("f.tsv", tsv([item(1)]))}
    )
    run = ImportRun.objects.get()

    page = operator_client.get(f"{LIST_URL}{run.pk}/change/").content.decode()
    operator_client.post(f"{LIST_URL}{run.pk}/change/", {"feed_name": "changed"})
    delete = operator_client.post(f"{LIST_URL}{run.pk}/delete/", {"post": "yes"})

    assert "f.tsv" in page and 'name="feed_name"' not in page
    run.refresh_from_db()
    assert run.feed_name == "f.tsv"
    assert delete.status_code == 403


def test_support_can_neither_import_nor_see_the_history(support_client):
    shop = OrganizationFactory()

    assert support_client.get(ADD_URL).status_code == 403
    assert support_client.get(LIST_URL).status_code == 403
    response = support_client.post(
        ADD_URL, {"organization": shop.pk, "feed": upload("f.tsv", tsv([item(1)]))}
    )
    assert response.status_code == 403
    assert not Product.objects.exists()


def test_import_form_page_renders_for_operators(operator_client):
    page = operator_client.get(ADD_URL).content.decode()

    assert 'id="catalog-import-form"' in page
    assert 'enctype="multipart/form-data"' in page
    for name in ("organization", "feed", "inventory", "stores", "full", "strict"):
        assert f'name="{name}"' in page
