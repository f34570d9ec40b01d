"""Builders of Merchant Center files for the catalog tests, and the import command runner."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from xml.sax.saxutils import escape

from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]
DEMO_CATALOGS = ROOT / "catalogs"

HEADER = [
    "id",
    "title",
    "description",
    "link",
    "image_link",
    "availability",
    "quantity",
    "price",
    "sale_price",
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
]


def item(number: int, **overrides: str) -> dict[str, str]:
    """A valid feed item; `overrides` replace attributes (an empty string blanks one)."""
    values = {
        "id": f"SKU-{number}",
        "title": f"Trail Runner {number}",
        "description": f"A light running shoe, model {number}.",
        "link": f"https://shop.example/products/trail-runner-{number}",
        "image_link": f"https://cdn.shop.example/trail-runner-{number}.jpg",
        "availability": "in_stock",
        "quantity": "5",
        "price": "89.90 EUR",
        "sale_price": "",
        "brand": "Stride",
        "gtin": "4006381333931",
        "product_type": "shoes > running",
        "google_product_category": "Apparel & Accessories > Shoes",
        "item_group_id": "TR",
        "color": "Blue",
        "size": "42",
        "material": "Mesh",
        "gender": "unisex",
        "age_group": "adult",
    }
    values.update(overrides)
    return values


def grocery_item(number: int, title: str, description: str, **overrides: str) -> dict[str, str]:
    """A feed item of a grocery: no brand, variants, colour, size, material nor people."""
    blank = ("google_product_category", "brand", "color", "size", "material", "item_group_id")
    values = {
        "title": title,
        "description": description,
        "link": f"https://shop.example/p/{number}",
        "product_type": "Épicerie",
        **{name: "" for name in (*blank, "gender", "age_group")},
    }
    return item(number, **{**values, **overrides})


def tsv(items: list[dict[str, str]], header: list[str] | None = None) -> str:
    columns = header or HEADER
    lines = ["\t".join(columns)]
    lines += ["\t".join(values.get(column, "") for column in columns) for values in items]
    return "\n".join(lines) + "\n"


def rss(items: list[dict[str, str]]) -> str:
    """An RSS 2.0 feed; title, link and description as plain RSS elements, the rest as g:."""
    plain = {"title", "link", "description"}
    entries = []
    for values in items:
        fields = [
            f"<{name}>{escape(value)}</{name}>"
            if name in plain
            else f"<g:{name}>{escape(value)}</g:{name}>"
            for name, value in values.items()
            if value
        ]
        entries.append("<item>\n" + "\n".join(fields) + "\n</item>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">\n<channel>\n'
        "<title>Shop</title>\n<link>https://shop.example</link>\n"
        + "\n".join(entries)
        + "\n</channel>\n</rss>\n"
    )


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def run_import(*args: str) -> tuple[dict, bool]:
    """Runs `import_catalog ... --json`; returns the JSON summary and whether it failed."""
    out = StringIO()
    failed = False
    try:
        call_command("import_catalog", *args, "--json", stdout=out)
    except CommandError:
        failed = True
    return json.loads(out.getvalue().strip().splitlines()[-1]), failed
