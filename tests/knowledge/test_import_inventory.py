"""Stores file and local inventory feed: upserts, location pairs from extra columns, errors."""

from __future__ import annotations

import pytest

from knowledge.models import Availability, Store, StoreInventory
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import DEMO_CATALOGS, item, run_import, tsv, write

STORES = "store_code\tname\nberlin\tBerlin Mitte\nhamburg\tHamburg Altona\n"


@pytest.fixture
def shop(db):
    return OrganizationFactory()


@pytest.fixture
def files(tmp_path):
    return {
        "feed": str(write(tmp_path / "feed.tsv", tsv([item(1), item(2), item(3)]))),
        "stores": str(write(tmp_path / "stores.tsv", STORES)),
    }


def inventory_file(tmp_path, rows: list[str], header="store_code\tid\tavailability\tquantity"):
    return str(write(tmp_path / "inventory.tsv", "\n".join([header, *rows]) + "\n"))


def test_stores_and_inventory_with_location_pairs(shop, files, tmp_path):
    inventory = inventory_file(
        tmp_path,
        [
            "berlin\tSKU-1\tin_stock\t3\t8\tF4\t",
            "berlin\tSKU-2\tout of stock\t0\t\tA1\t",
            "hamburg\tSKU-1\tlimited_availability\t\t2\t\tnear the till",
        ],
        header="store_code\tid\tavailability\tquantity\taisle\tshelf\tnote",
    )

    summary, failed = run_import(
        str(shop.id), files["feed"], "--stores", files["stores"], "--inventory", inventory
    )

    assert not failed
    assert summary["stores"] == {"created": 2, "updated": 0}
    assert summary["inventory"] == {"created": 3, "updated": 0, "removed": 0}
    assert dict(Store.objects.filter(organization=shop).values_list("code", "name")) == {
        "berlin": "Berlin Mitte",
        "hamburg": "Hamburg Altona",
    }
    berlin = StoreInventory.objects.get(store__code="berlin", product__item_id="SKU-1")
    assert (berlin.availability, berlin.quantity) == (Availability.IN_STOCK, 3)
    # Further columns become key/value pairs in file order; empty cells are left out.
    assert berlin.location == [{"key": "aisle", "value": "8"}, {"key": "shelf", "value": "F4"}]
    assert StoreInventory.objects.get(store__code="berlin", product__item_id="SKU-2").location == [
        {"key": "shelf", "value": "A1"}
    ]
    hamburg = StoreInventory.objects.get(store__code="hamburg")
    assert (hamburg.availability, hamburg.quantity) == (Availability.IN_STOCK, None)
    assert hamburg.location == [
        {"key": "aisle", "value": "2"},
        {"key": "note", "value": "near the till"},
    ]


def test_reimport_is_idempotent_and_updates_changes(shop, files, tmp_path):
    rows = ["berlin\tSKU-1\tin_stock\t3", "hamburg\tSKU-2\tin_stock\t1"]
    args = [str(shop.id), files["feed"], "--stores", files["stores"]]
    run_import(*args, "--inventory", inventory_file(tmp_path, rows))

    same, _ = run_import(*args, "--inventory", inventory_file(tmp_path, rows))
    changed, _ = run_import(
        *args, "--inventory", inventory_file(tmp_path, [rows[0], "hamburg\tSKU-2\tout_of_stock\t0"])
    )

    assert same["inventory"] == {"created": 0, "updated": 0, "removed": 0}
    assert same["stores"] == {"created": 0, "updated": 0}
    assert changed["inventory"] == {"created": 0, "updated": 1, "removed": 0}
    assert StoreInventory.objects.get(store__code="hamburg").availability == "out_of_stock"


def test_full_removes_inventory_rows_missing_from_the_file(shop, files, tmp_path):
    args = [str(shop.id), files["feed"], "--stores", files["stores"]]
    two = ["berlin\tSKU-1\tin_stock\t3", "hamburg\tSKU-2\tin_stock\t1"]
    run_import(*args, "--inventory", inventory_file(tmp_path, two))

    summary, _ = run_import(*args, "--full", "--inventory", inventory_file(tmp_path, two[:1]))

    assert summary["inventory"]["removed"] == 1
    assert list(StoreInventory.objects.values_list("store__code", flat=True)) == ["berlin"]


def test_store_names_are_updated_and_stores_never_removed(shop, files, tmp_path):
    run_import(str(shop.id), files["feed"], "--stores", files["stores"])
    renamed = str(write(tmp_path / "stores2.tsv", "store_code\tbusiness_name\nberlin\tBerlin\n"))

    summary, _ = run_import(str(shop.id), files["feed"], "--stores", renamed, "--full")

    assert summary["stores"] == {"created": 0, "updated": 1}
    assert dict(Store.objects.values_list("code", "name")) == {
        "berlin": "Berlin",
        "hamburg": "Hamburg Altona",
    }


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("paris\tSKU-1\tin_stock\t1", 'store_code: unknown store "paris"'),
        ("berlin\tSKU-404\tin_stock\t1", "id: not in the catalog"),
        ("berlin\tSKU-1\tsoon\t1", 'availability: "soon" is not one of'),
        ("berlin\tSKU-1\t\t1", "availability: missing"),
        ("berlin\tSKU-1\tin_stock\tmany", 'quantity: "many" is not a whole number'),
        ("\tSKU-1\tin_stock\t1", "store_code: missing"),
        ("berlin\t\tin_stock\t1", "id: missing"),
        ("berlin\tSKU-2\tin_stock\t1", "duplicate of line 2"),
    ],
)
def test_bad_inventory_rows_are_listed_with_their_line(shop, files, tmp_path, row, message):
    inventory = inventory_file(
        tmp_path, ["berlin\tSKU-2\tin_stock\t2", row, "hamburg\tSKU-3\tin_stock\t1"]
    )

    summary, failed = run_import(
        str(shop.id), files["feed"], "--stores", files["stores"], "--inventory", inventory
    )

    assert not failed
    assert [(e["file"], e["line"]) for e in summary["errors"]] == [("inventory.tsv", 3)]
    assert summary["errors"][0]["message"].startswith(message)
    assert summary["inventory"]["created"] == 2


def test_bad_stores_rows_are_listed(shop, files, tmp_path):
    stores = str(
        write(tmp_path / "stores.tsv", "store_code\tname\n\tNowhere\nberlin\tB\nberlin\tC\n")
    )

    summary, _ = run_import(str(shop.id), files["feed"], "--stores", stores)

    assert [(e["line"], e["message"]) for e in summary["errors"]] == [
        (2, "store_code: missing"),
        (4, "store_code: duplicate of line 3"),
    ]
    assert summary["stores"]["created"] == 1


def test_unreadable_inventory_file_is_rolled_back_but_the_feed_imported(shop, files, tmp_path):
    inventory = str(write(tmp_path / "inventory.tsv", b"store_code\tid\nberlin\tSKU-1\xff\n"))

    summary, failed = run_import(
        str(shop.id), files["feed"], "--stores", files["stores"], "--inventory", inventory
    )

    assert failed
    assert summary["created"] == 3
    assert summary["inventory"]["created"] == 0
    assert summary["errors"][-1]["file"] == "inventory.tsv"
    assert not StoreInventory.objects.exists()


def test_strict_rolls_back_every_file_when_the_inventory_has_a_bad_row(shop, files, tmp_path):
    inventory = inventory_file(tmp_path, ["berlin\tSKU-1\tin_stock\t1", "mars\tSKU-1\tin_stock\t1"])

    summary, failed = run_import(
        str(shop.id),
        files["feed"],
        "--stores",
        files["stores"],
        "--inventory",
        inventory,
        "--strict",
    )

    assert failed and summary["aborted"]
    assert not shop.products.exists()
    assert not Store.objects.filter(organization=shop).exists()


def test_inventory_feed_in_xml(shop, files, tmp_path):
    xml = """<?xml version="1.0"?>
<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel>
<item><g:store_code>berlin</g:store_code><g:id>SKU-3</g:id>
<g:availability>in_stock</g:availability><g:quantity>7</g:quantity><g:aisle>12</g:aisle></item>
</channel></rss>"""
    inventory = str(write(tmp_path / "inventory.xml", xml))

    run_import(str(shop.id), files["feed"], "--stores", files["stores"], "--inventory", inventory)

    row = StoreInventory.objects.get()
    assert (row.product.item_id, row.quantity, row.location) == (
        "SKU-3",
        7,
        [{"key": "aisle", "value": "12"}],
    )


def test_the_demo_shop_files_import_cleanly(shop):
    summary, failed = run_import(
        str(shop.id),
        str(DEMO_CATALOGS / "demo-shop-products.tsv"),
        "--stores",
        str(DEMO_CATALOGS / "demo-shop-stores.tsv"),
        "--inventory",
        str(DEMO_CATALOGS / "demo-shop-local-inventory.tsv"),
        "--strict",
    )

    assert not failed
    assert (summary["created"], summary["errors"]) == (194, [])
    assert summary["stores"] == {"created": 3, "updated": 0}
    assert summary["inventory"]["created"] == 384
    # Most GTINs of that feed have a wrong check digit: imported, with a warning each.
    assert summary["warningCount"] > 100
    assert all(w["message"].startswith("gtin: ") for w in summary["warnings"])
