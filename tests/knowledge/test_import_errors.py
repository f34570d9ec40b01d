"""Bad rows and unreadable files: listed with line numbers; each file all-or-nothing; --strict."""

from __future__ import annotations

import pytest

from knowledge.models import ImportRun, ImportStatus, Product
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import HEADER, item, rss, run_import, tsv, write


@pytest.fixture
def shop(db):
    return OrganizationFactory(name="Stride Shop")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"id": ""}, "id: missing"),
        ({"title": ""}, "title: missing"),
        ({"link": ""}, "link: missing"),
        ({"price": ""}, "price: missing"),
        ({"price": "cheap"}, 'price: "cheap" is not an amount and a currency, like "49.99 EUR"'),
        ({"price": "12.5"}, 'price: "12.5" is not an amount and a currency, like "49.99 EUR"'),
        ({"price": "abc EUR"}, 'price: "abc EUR" has no readable amount'),
        ({"price": "-3 EUR"}, 'price: "-3 EUR" has no readable amount'),
        ({"price": "5 EURO"}, 'price: "5 EURO" has no three-letter currency code'),
        ({"sale_price": "4,00,0 EUR"}, 'sale_price: "4,00,0 EUR" has no readable amount'),
        ({"sale_price": "10 USD"}, "sale_price: currency USD differs from price's EUR"),
        ({"link": "not a url"}, 'link: "not a url" is not an absolute http(s) URL'),
        ({"link": "ftp://shop.example/x"}, 'link: "ftp://shop.example/x" is not an absolute'),
        ({"link": "https://shop.example:99999/x"}, "link: "),
        ({"image_link": "/images/1.jpg"}, 'image_link: "/images/1.jpg" is not an absolute'),
        ({"availability": "maybe"}, 'availability: "maybe" is not one of in_stock, out_of_stock'),
        ({"quantity": "lots"}, 'quantity: "lots" is not a whole number >= 0'),
        ({"quantity": "-1"}, 'quantity: "-1" is not a whole number >= 0'),
        ({"title": "x" * 501}, "title: longer than 500 characters"),
        ({"id": "x" * 151}, "id: longer than 150 characters"),
    ],
)
def test_a_bad_row_is_listed_with_its_line_and_the_rest_imported(
    shop, tmp_path, overrides, message
):
    feed = write(tmp_path / "feed.tsv", tsv([item(1), item(2, **overrides), item(3)]))

    summary, failed = run_import(str(shop.id), str(feed))

    assert not failed
    assert summary["created"] == 2
    assert len(summary["errors"]) == 1
    error = summary["errors"][0]
    assert (error["file"], error["line"]) == ("feed.tsv", 3)
    assert error["message"].startswith(message)
    assert set(Product.objects.values_list("item_id", flat=True)) == {"SKU-1", "SKU-3"}


def test_one_row_with_several_problems_lists_them_all(shop, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(1, title="", price="x", availability="?")]))

    summary, _ = run_import(str(shop.id), str(feed))

    message = summary["errors"][0]["message"]
    assert "title: missing" in message
    assert "price:" in message
    assert "availability:" in message


def test_duplicate_ids_keep_the_first_row(shop, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(1), item(2), item(1, title="Other")]))

    summary, _ = run_import(str(shop.id), str(feed))

    assert summary["errors"] == [
        {"file": "feed.tsv", "line": 4, "id": "SKU-1", "message": "id: duplicate of line 2"}
    ]
    assert Product.objects.get(item_id="SKU-1").title == "Trail Runner 1"


def test_a_row_with_more_cells_than_the_header_is_bad(shop, tmp_path):
    text = tsv([item(1)]) + "\t".join(item(2).get(c, "") for c in HEADER) + "\textra\n"
    feed = write(tmp_path / "feed.tsv", text)

    summary, _ = run_import(str(shop.id), str(feed))

    assert summary["errors"][0]["line"] == 3
    assert summary["errors"][0]["message"].startswith(f"{len(HEADER) + 1} columns, but the header")


def test_line_numbers_count_blank_lines_and_quoted_line_breaks(shop, tmp_path):
    lines = tsv([item(1)]).splitlines()
    header, first = lines[0], lines[1]
    quoted = first.replace("SKU-1", "SKU-2").replace(
        "A light running shoe, model 1.", '"Two\nlines"'
    )
    bad = first.replace("SKU-1", "SKU-3").replace("89.90 EUR", "nope")
    feed = write(tmp_path / "feed.tsv", "\n".join([header, first, "", quoted, bad]) + "\n")

    summary, _ = run_import(str(shop.id), str(feed))

    assert summary["created"] == 2
    assert Product.objects.get(item_id="SKU-2").description == "Two\nlines"
    assert [error["line"] for error in summary["errors"]] == [6]


def test_bad_row_keeps_the_previous_version_even_with_full(shop, tmp_path):
    run_import(str(shop.id), str(write(tmp_path / "a.tsv", tsv([item(1), item(2)]))))

    summary, _ = run_import(
        str(shop.id),
        str(write(tmp_path / "b.tsv", tsv([item(1), item(2, price="broken")]))),
        "--full",
    )

    assert (summary["removed"], len(summary["errors"])) == (0, 1)
    assert Product.objects.filter(item_id="SKU-2").exists()


def test_strict_aborts_the_whole_import_on_a_bad_row(shop, tmp_path):
    run_import(str(shop.id), str(write(tmp_path / "a.tsv", tsv([item(1)]))))
    feed = write(tmp_path / "b.tsv", tsv([item(1, title="Renamed"), item(2), item(3, link="nope")]))

    summary, failed = run_import(str(shop.id), str(feed), "--strict", "--full")

    assert failed
    assert summary["aborted"] is True
    assert (summary["created"], summary["updated"], summary["removed"]) == (0, 0, 0)
    assert summary["errors"][0]["line"] == 4
    assert list(Product.objects.values_list("item_id", "title")) == [("SKU-1", "Trail Runner 1")]
    assert ImportRun.objects.filter(status=ImportStatus.FAILED, strict=True).count() == 1


def test_an_unreadable_tsv_is_rolled_back_entirely(shop, tmp_path, monkeypatch):
    # More rows than one write batch, so that rows were already written when reading fails.
    monkeypatch.setattr("knowledge.catalog.import_products.BATCH_SIZE", 10)
    good = tsv([item(n) for n in range(1, 40)]).encode()
    feed = write(tmp_path / "feed.tsv", good + b"SKU-99\tBad \xff\xfe bytes\n")

    summary, failed = run_import(str(shop.id), str(feed))

    assert failed
    assert summary["created"] == 0
    assert "not UTF-8" in summary["errors"][-1]["message"]
    assert "nothing of this file was imported" in summary["errors"][-1]["message"]
    assert not Product.objects.exists()


def test_malformed_xml_is_rolled_back_entirely_with_the_line(shop, tmp_path, monkeypatch):
    monkeypatch.setattr("knowledge.catalog.import_products.BATCH_SIZE", 10)
    text = rss([item(n) for n in range(1, 40)]).replace("</channel>", "<item><g:id>x</item>")
    feed = write(tmp_path / "feed.xml", text)

    summary, failed = run_import(str(shop.id), str(feed))

    assert failed
    error = summary["errors"][-1]
    assert "not well-formed XML" in error["message"]
    assert error["line"] == text.count("\n", 0, text.index("<g:id>x</item>")) + 1
    assert not Product.objects.exists()


def test_xml_entities_are_refused(shop, tmp_path):
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        '<rss xmlns:g="http://base.google.com/ns/1.0"><channel><item><g:id>1</g:id>'
        "<title>&b;</title></item></channel></rss>"
    )
    summary, failed = run_import(str(shop.id), str(write(tmp_path / "feed.xml", bomb)))

    assert failed
    assert "entities" in summary["errors"][0]["message"]
    assert not Product.objects.exists()


@pytest.mark.parametrize("content", ["", "   \n\n", "\t\t\n"])
def test_empty_files_are_refused(shop, tmp_path, content):
    summary, failed = run_import(str(shop.id), str(write(tmp_path / "feed.tsv", content)))

    assert failed
    assert summary["errors"][0]["message"].startswith(
        ("the file is empty", "the file has no header")
    )


def test_a_header_without_the_required_columns_is_refused_and_removes_nothing(shop, tmp_path):
    run_import(str(shop.id), str(write(tmp_path / "a.tsv", tsv([item(1), item(2)]))))
    feed = write(tmp_path / "b.tsv", "hello\tworld\nfoo\tbar\n")

    summary, failed = run_import(str(shop.id), str(feed), "--full")

    assert failed
    assert summary["errors"][0]["message"].startswith(
        "the header has no id, title, link, price column"
    )
    assert summary["errors"][0]["line"] == 1
    assert (summary["created"], summary["removed"]) == (0, 0)
    assert Product.objects.count() == 2


def test_a_full_import_where_no_row_can_be_imported_removes_nothing(shop, tmp_path):
    run_import(str(shop.id), str(write(tmp_path / "a.tsv", tsv([item(1), item(2)]))))
    feed = write(tmp_path / "b.tsv", tsv([item(3, price="broken"), item(4, link="nope")]))

    summary, failed = run_import(str(shop.id), str(feed), "--full")

    assert failed
    assert "would have removed every product" in summary["errors"][-1]["message"]
    assert summary["removed"] == 0
    assert Product.objects.count() == 2
