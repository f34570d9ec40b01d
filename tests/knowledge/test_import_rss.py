"""`import_catalog` with an RSS 2.0 XML feed in the `g:` namespace."""

from __future__ import annotations

from decimal import Decimal

import pytest

from knowledge.models import Product
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import item, rss, run_import, tsv, write

IMPORTED = (
    "item_id",
    "title",
    "description",
    "url",
    "image_url",
    "price",
    "sale_price",
    "currency",
    "availability",
    "quantity",
    "brand",
    "gtin",
    "product_type",
    "google_product_category",
    "item_group_id",
    "color",
    "size",
    "material",
    "gender",
    "age_group",
)


@pytest.fixture
def shop(db):
    return OrganizationFactory()


def test_rss_and_tsv_feeds_give_the_same_catalog(shop, tmp_path):
    items = [
        item(1, sale_price="79.90 EUR", link="https://Shop.example/p/1?utm_medium=x"),
        item(2, availability="out of stock", description="Fits <wide> feet & more"),
        item(3, price="1,299.00 EUR", color="Crème"),
    ]
    other = OrganizationFactory()

    xml_summary, _ = run_import(str(shop.id), str(write(tmp_path / "feed.xml", rss(items))))
    tsv_summary, _ = run_import(str(other.id), str(write(tmp_path / "feed.tsv", tsv(items))))

    assert xml_summary["created"] == tsv_summary["created"] == 3
    assert xml_summary["errors"] == []
    from_xml = list(Product.objects.filter(organization=shop).order_by("item_id").values(*IMPORTED))
    from_tsv = list(
        Product.objects.filter(organization=other).order_by("item_id").values(*IMPORTED)
    )
    assert from_xml == from_tsv
    assert from_xml[0]["url"] == "https://shop.example/p/1"
    assert from_xml[1]["description"] == "Fits <wide> feet & more"


def test_nested_elements_and_other_namespaces_are_not_item_attributes(shop, tmp_path):
    feed = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0" xmlns:x="urn:other">
<channel>
  <title>Shop</title>
  <item>
    <g:id>A1</g:id>
    <g:title><![CDATA[Kettle & Co "Steel"]]></g:title>
    <link>https://shop.example/kettle</link>
    <g:image_link>https://cdn.shop.example/kettle.jpg</g:image_link>
    <g:additional_image_link>https://cdn.shop.example/kettle-2.jpg</g:additional_image_link>
    <g:shipping><g:country>DE</g:country><g:price>4.95 EUR</g:price></g:shipping>
    <g:price>39.00 EUR</g:price>
    <x:price>1.00 EUR</x:price>
    <g:availability>in stock</g:availability>
  </item>
</channel>
</rss>
"""
    summary, _ = run_import(str(shop.id), str(write(tmp_path / "feed.xml", feed)))

    assert (summary["created"], summary["errors"]) == (1, [])
    product = Product.objects.get(item_id="A1")
    assert product.title == 'Kettle & Co "Steel"'
    assert (product.price, product.currency) == (Decimal("39.00"), "EUR")


def test_bad_items_are_reported_with_the_line_of_their_item_element(shop, tmp_path):
    text = rss([item(1), item(2, price="n/a"), item(3)])
    line_of_second = text.count("\n", 0, text.index("<g:id>SKU-2</g:id>"))  # the <item> line

    summary, _ = run_import(str(shop.id), str(write(tmp_path / "feed.xml", text)))

    assert summary["created"] == 2
    assert [(error["line"], error["id"]) for error in summary["errors"]] == [
        (line_of_second, "SKU-2")
    ]


def test_latin1_declared_feed_is_decoded(shop, tmp_path):
    text = rss([item(1, title="Café Mug")]).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')

    run_import(str(shop.id), str(write(tmp_path / "feed.xml", text.encode("latin-1"))))

    assert Product.objects.get(item_id="SKU-1").title == "Café Mug"
