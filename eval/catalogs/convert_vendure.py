"""Converts Vendure's demo catalog (sources/vendure-products.csv) into the `vendure-*.tsv` feeds.

The source is `assets/products.csv` of the npm package `@vendure/create` 2.3.4 (MIT, see
LICENSE-vendure.txt): 54 products of electronics, cameras, sports gear, running shoes, plants
and furniture, 88 variants. Vendure's CSV has one row per variant; a product's own columns are
filled on its first row only. Each variant becomes one Merchant Center item; variants of one
product share `item_group_id` and a page URL that differs only in its variant parameters
(`?size=42`, `?color=mint`), as a real shop's variant links do.

Vendure's demo gives every variant 100 in stock and no stores or sale prices; the stock
figures, the two stores, their inventory and the few sale prices are made up here, derived from
the SKU so that a re-run writes the same files. Run from the repository root:

    .venv/bin/python eval/catalogs/convert_vendure.py
"""

from __future__ import annotations

import csv
import hashlib
import re
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "sources" / "vendure-products.csv"
HOME = "https://vendure-shop.example"
CURRENCY = "USD"
STORES = [("vendure-denver", "Denver Union Station"), ("vendure-portland", "Portland Pearl")]
PRODUCT_COLUMNS = [
    "id", "title", "description", "link", "image_link", "availability", "quantity", "price",
    "sale_price", "brand", "gtin", "product_type", "google_product_category", "item_group_id",
    "color", "size", "material", "gender", "age_group",
]  # fmt: skip
# Vendure's category facets and the Google product taxonomy category for each.
GOOGLE_CATEGORY = {
    "Computers": "Electronics > Computers",
    "Photo": "Cameras & Optics",
    "Equipment": "Sporting Goods",
    "Footwear": "Apparel & Accessories > Shoes",
    "Plants": "Home & Garden > Plants",
    "Furniture": "Furniture",
}
MATERIALS = {"Leather": "Leather", "Fabric": "Fabric", "Wooden": "Wood"}


def _number(sku: str, modulo: int) -> int:
    """A stable pseudo-random number for made-up figures (the same on every run)."""
    return int(hashlib.sha256(sku.encode()).hexdigest()[:8], 16) % modulo


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def read_variants(path: Path = SOURCE) -> list[dict[str, str]]:
    """One dict per variant, the product's columns copied onto each of its variants."""
    variants: list[dict[str, str]] = []
    product: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for raw in csv.DictReader(handle):
            row = {key.strip(): (value or "").strip() for key, value in raw.items()}
            if row["name"]:
                product = row
            variants.append(
                {**product, **{k: row[k] for k in ("optionValues", "sku", "price", "stockOnHand")}}
            )
    return variants


def _facets(text: str) -> dict[str, list[str]]:
    facets: dict[str, list[str]] = {}
    for facet in filter(None, text.split("|")):
        name, _, value = facet.partition(":")
        facets.setdefault(name.strip(), []).append(value.strip())
    return facets


def item(variant: dict[str, str]) -> dict[str, str]:
    facets = _facets(variant["facets"])
    groups = [g.split(":")[0].strip() for g in variant["optionGroups"].split("|") if g]
    values = [v.strip() for v in variant["optionValues"].split("|") if v]
    options = dict(zip(groups, values, strict=True))
    size = options.pop("size", "").removeprefix("Size ").strip()
    color = (options.pop("color", "") or "/".join(facets.get("color", []))).title()
    title = " ".join([variant["name"], *options.values()])
    parameters = {"color": color.lower()} if "color" in groups else {}
    parameters |= {"size": size} if size else {}
    parameters |= {_slug(k): _slug(v) for k, v in options.items()}
    link = f"{HOME}/products/{variant['slug']}"
    link += f"?{urlencode(parameters)}" if parameters else ""
    # Vendure gives the chair's three colours one SKU: the colour tells them apart.
    item_id = variant["sku"] + (f"-{_slug(color)}" if "color" in groups else "")
    categories = facets.get("category", [])
    quantity = _number(item_id, 40) if _number(item_id, 9) else 0
    price = Decimal(variant["price"])
    on_sale = _number(item_id + "sale", 8) == 0
    men = "Men's" in variant["description"]
    return {
        "id": item_id,
        "title": title,
        "description": variant["description"],
        "link": link,
        "image_link": f"https://cdn.vendure-shop.example/{variant['assets'].split('|')[0]}",
        "availability": "in_stock" if quantity else "out_of_stock",
        "quantity": str(quantity),
        "price": f"{price:.2f} {CURRENCY}",
        "sale_price": f"{price * Decimal('0.8'):.2f} {CURRENCY}" if on_sale else "",
        "brand": ", ".join(facets.get("brand", [])),
        "gtin": "",
        "product_type": " > ".join(categories),
        "google_product_category": GOOGLE_CATEGORY.get(categories[-1], "") if categories else "",
        "item_group_id": variant["slug"] if variant["optionGroups"] else "",
        "color": color,
        "size": size,
        "material": next((m for w, m in MATERIALS.items() if w in variant["name"]), ""),
        "gender": ("male" if men else "unisex") if "Footwear" in categories else "",
        "age_group": "adult" if "Footwear" in categories else "",
    }


def inventory(items: list[dict[str, str]]) -> list[dict[str, str]]:
    rows = []
    for code, _ in STORES:
        for product in items:
            if _number(code + product["id"], 3) == 0:
                continue  # not stocked in that store
            quantity = _number(product["id"] + code, 12)
            availability = "in_stock" if quantity else "out_of_stock"
            aisle = str(1 + _number(product["product_type"], 9))
            rows.append(
                {"store_code": code, "id": product["id"], "availability": availability,
                 "quantity": str(quantity), "aisle": aisle}
            )  # fmt: skip
    return rows


def write(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main(out: Path = HERE) -> None:
    items = [item(v) for v in read_variants()]
    write(out / "vendure-products.tsv", items, PRODUCT_COLUMNS)
    write(out / "vendure-stores.tsv", [{"store_code": c, "name": n} for c, n in STORES],
          ["store_code", "name"])  # fmt: skip
    write(out / "vendure-local-inventory.tsv", inventory(items),
          ["store_code", "id", "availability", "quantity", "aisle"])  # fmt: skip


if __name__ == "__main__":
    main()
