"""`import_catalog` with a tab-separated product feed: fields, upserts, --full, idempotence."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from knowledge.models import Availability, ImportRun, ImportStatus, Product
from knowledge.search import product_search
from tests.factories import OrganizationFactory, StoreFactory
from tests.knowledge.catalog_files import item, run_import, tsv, write


@pytest.fixture
def shop(db):
    return OrganizationFactory(name="Stride Shop")


def test_imports_every_feed_attribute(shop, tmp_path):
    feed = write(
        tmp_path / "feed.tsv",
        tsv(
            [
                item(
                    1,
                    link="HTTPS://Shop.Example:443/products/runner/?utm_source=feed&b=2&a=1#top",
                    price="1,299.00 USD",
                    sale_price="999.50 USD",
                    availability="out of stock",
                    quantity="0",
                    color="Blau",
                )
            ]
        ),
    )

    summary, failed = run_import("Stride Shop", str(feed))

    assert not failed
    assert summary["created"] == 1
    assert (summary["updated"], summary["removed"], summary["errors"]) == (0, 0, [])
    product = Product.objects.get(organization=shop, item_id="SKU-1")
    # Stored canonical (docs/api.md#url-canonical-form): lowercase host, no default port, no
    # tracking parameters, sorted query, no trailing slash, no fragment.
    assert product.url == "https://shop.example/products/runner?a=1&b=2"
    assert product.image_url == "https://cdn.shop.example/trail-runner-1.jpg"
    assert (product.price, product.sale_price, product.currency) == (
        Decimal("1299.00"),
        Decimal("999.50"),
        "USD",
    )
    assert product.availability == Availability.OUT_OF_STOCK
    assert product.quantity == 0
    assert (product.title, product.brand, product.gtin) == (
        "Trail Runner 1",
        "Stride",
        "4006381333931",
    )
    assert product.description == "A light running shoe, model 1."
    assert product.product_type == "shoes > running"
    assert product.google_product_category == "Apparel & Accessories > Shoes"
    assert (product.item_group_id, product.color, product.size, product.material) == (
        "TR",
        "Blau",
        "42",
        "Mesh",
    )
    assert (product.gender, product.age_group) == ("unisex", "adult")


@pytest.mark.parametrize(
    ("spelling", "status"),
    [
        ("in_stock", Availability.IN_STOCK),
        ("in stock", Availability.IN_STOCK),
        ("In Stock", Availability.IN_STOCK),
        ("out_of_stock", Availability.OUT_OF_STOCK),
        ("out of stock", Availability.OUT_OF_STOCK),
        ("preorder", Availability.PREORDER),
        ("pre-order", Availability.PREORDER),
        ("backorder", Availability.BACKORDER),
        ("available for order", Availability.IN_STOCK),
    ],
)
def test_availability_spellings(shop, tmp_path, spelling, status):
    feed = write(tmp_path / "feed.tsv", tsv([item(1, availability=spelling)]))

    summary, _ = run_import(str(shop.id), str(feed))

    assert summary["errors"] == []
    assert Product.objects.get(item_id="SKU-1").availability == status


@pytest.mark.parametrize(
    ("price", "amount", "currency"),
    [
        ("49.99 EUR", "49.99", "EUR"),
        ("1,299.00 USD", "1299.00", "USD"),
        ("1.299,00 EUR", "1299.00", "EUR"),
        ("12,50 EUR", "12.50", "EUR"),
        ("EUR 7", "7.00", "EUR"),
        ("15 gbp", "15.00", "GBP"),
    ],
)
def test_price_formats(shop, tmp_path, price, amount, currency):
    feed = write(tmp_path / "feed.tsv", tsv([item(1, price=price)]))

    run_import(str(shop.id), str(feed))

    product = Product.objects.get(item_id="SKU-1")
    assert (product.price, product.currency) == (Decimal(amount), currency)


def test_second_identical_import_changes_nothing(shop, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(n) for n in range(1, 6)]))
    first, _ = run_import(str(shop.id), str(feed))
    stamps = dict(Product.objects.values_list("item_id", "updated_at"))

    second, _ = run_import(str(shop.id), str(feed), "--full")

    assert (first["created"], first["updated"]) == (5, 0)
    assert (second["created"], second["updated"], second["removed"]) == (0, 0, 0)
    assert dict(Product.objects.values_list("item_id", "updated_at")) == stamps


def test_changed_items_are_updated_in_place(shop, tmp_path):
    run_import(str(shop.id), str(write(tmp_path / "a.tsv", tsv([item(1), item(2)]))))
    before = Product.objects.get(item_id="SKU-1")

    summary, _ = run_import(
        str(shop.id),
        str(write(tmp_path / "b.tsv", tsv([item(1, price="79.90 EUR", sale_price=""), item(2)]))),
    )

    after = Product.objects.get(item_id="SKU-1")
    assert (summary["created"], summary["updated"]) == (0, 1)
    assert after.pk == before.pk
    assert after.price == Decimal("79.90")
    assert after.created_at == before.created_at
    assert after.updated_at > before.updated_at


def test_full_removes_items_missing_from_the_feed_and_their_inventory(shop, tmp_path):
    run_import(str(shop.id), str(write(tmp_path / "a.tsv", tsv([item(n) for n in (1, 2, 3)]))))
    store = StoreFactory(organization=shop)
    gone = Product.objects.get(item_id="SKU-3")
    gone.inventory.create(store=store, availability=Availability.IN_STOCK, quantity=1)
    smaller = write(tmp_path / "b.tsv", tsv([item(1), item(2)]))

    partial, _ = run_import(str(shop.id), str(smaller))
    assert partial["removed"] == 0
    assert Product.objects.filter(organization=shop).count() == 3

    full, _ = run_import(str(shop.id), str(smaller), "--full")

    assert full["removed"] == 1
    assert set(Product.objects.values_list("item_id", flat=True)) == {"SKU-1", "SKU-2"}
    assert store.inventory.count() == 0


def test_full_import_keeps_items_of_other_organizations(shop, tmp_path):
    other = OrganizationFactory()
    run_import(str(other.id), str(write(tmp_path / "o.tsv", tsv([item(9)]))))

    run_import(str(shop.id), str(write(tmp_path / "s.tsv", tsv([item(1)]))), "--full")

    assert Product.objects.filter(organization=other, item_id="SKU-9").exists()


def test_same_item_ids_in_two_organizations_are_separate(shop, tmp_path):
    other = OrganizationFactory()
    feed = write(tmp_path / "feed.tsv", tsv([item(1)]))

    run_import(str(shop.id), str(feed))
    summary, _ = run_import(str(other.id), str(feed))

    assert summary["created"] == 1
    assert Product.objects.filter(item_id="SKU-1").count() == 2


def test_wrong_gtin_check_digit_is_imported_with_a_warning(shop, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(1), item(2, gtin="4006381333932")]))

    summary, failed = run_import(str(shop.id), str(feed), "--strict")

    assert not failed
    assert summary["created"] == 2
    assert summary["errors"] == []
    assert summary["warnings"] == [
        {
            "file": "feed.tsv",
            "line": 3,
            "id": "SKU-2",
            "message": 'gtin: "4006381333932" has check digit 2, expected 1',
        }
    ]
    assert Product.objects.get(item_id="SKU-2").gtin == "4006381333932"


def test_header_names_are_read_loosely_and_unknown_columns_ignored(shop, tmp_path):
    header = ["ID", "G:Title", "link", "Price", "Image Link", "mpn", "custom_label_0"]
    text = "\t".join(header) + "\nA1\tMug\thttps://shop.example/mug\t5 EUR\t\t123\tx\n"
    feed = write(tmp_path / "feed.txt", "\ufeff" + text)  # with a byte order mark

    summary, _ = run_import(str(shop.id), str(feed))

    assert (summary["created"], summary["errors"]) == (1, [])
    assert Product.objects.get(item_id="A1").title == "Mug"


def test_each_import_is_recorded_in_the_history(shop, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(1), item(2, price="free")]))

    run_import(str(shop.id), str(feed), "--full")

    run = ImportRun.objects.get(organization=shop)
    assert (run.feed_name, run.source, run.full, run.user) == ("feed.tsv", "cli", True, None)
    assert (run.status, run.created, run.updated, run.removed, run.error_count) == (
        ImportStatus.SUCCEEDED,
        1,
        0,
        0,
        1,
    )
    assert run.summary["errors"][0]["line"] == 3
    assert run.finished_at >= run.started_at


def test_text_output_lists_counts_and_problems(shop, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(1), item(2, price="free")]))
    out = StringIO()
    call_command("import_catalog", "Stride Shop", str(feed), stdout=out)

    text = out.getvalue()
    assert "Products: 1 created, 0 updated, 0 removed." in text
    assert 'Error   feed.tsv line 3 (id SKU-2): price: "free" is not an amount' in text


def test_unknown_organization_and_missing_file_are_clear_errors(shop, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(1)]))
    with pytest.raises(CommandError, match="rganization"):
        call_command("import_catalog", "No Such Shop", str(feed), "--json")
    with pytest.raises(CommandError, match="feed file not found"):
        call_command("import_catalog", "Stride Shop", str(tmp_path / "missing.tsv"))


def test_a_large_import_refreshes_the_search_index_and_statistics(shop, tmp_path, monkeypatch):
    # On PostgreSQL this merges the GIN pending list and runs ANALYZE inside the import's
    # transaction; a smaller threshold makes this small feed count as large.
    monkeypatch.setattr("knowledge.catalog.import_products.ANALYZE_AFTER_CHANGES", 2)
    feed = write(tmp_path / "feed.tsv", tsv([item(1), item(2, title="Summit Boot")]))

    summary, failed = run_import(str(shop.id), str(feed))

    assert (failed, summary["created"]) == (False, 2)
    assert [p.item_id for p in product_search(organization=shop, query="summit").products] == [
        "SKU-2"
    ]
