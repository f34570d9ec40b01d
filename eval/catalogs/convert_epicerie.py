"""Converts a French grocery catalog from Open-Food-Calories into the `epicerie-*.tsv` feeds.

The source is the food list of the PyPI package `open-food-calories` 1.1.1 (MIT, see
LICENSE-open-food-calories.txt): foods with French and English names, a category and their
nutrients per 100 g. `sources/open-food-calories-extract.json` keeps the entries this catalog
uses (a few per category, foods a grocer sells as they are: no cooked or fried dishes); the
extract is the selection below applied to the package's `open_food_calories/assets/snapshot.json`,
and applying it to the extract again gives the extract, so both inputs write the same feeds:

    .venv/bin/python eval/catalogs/convert_epicerie.py [snapshot.json]

The shop sells in French and in euros. Titles are the French names; descriptions state the
nutrients in French. The list has no prices, pack sizes, stock or stores: those are made up here,
derived from the food's id so that a re-run writes the same files.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
EXTRACT = HERE / "sources" / "open-food-calories-extract.json"
HOME = "https://epicerie.example"
STORES = [("epicerie-lyon", "Lyon Croix-Rousse"), ("epicerie-paris", "Paris Bastille")]
PRODUCT_COLUMNS = [
    "id", "title", "description", "link", "image_link", "availability", "quantity", "price",
    "sale_price", "brand", "gtin", "product_type", "google_product_category", "item_group_id",
    "color", "size", "material", "gender", "age_group",
]  # fmt: skip
# category: (how many foods the shop keeps, its shelf in French, Google taxonomy category,
# the price of a pack in cents before the made-up spread).
CATEGORIES: dict[str, tuple[int, str, str, int]] = {
    "fruits": (30, "Fruits et légumes > Fruits", "Food Items > Fruits & Vegetables", 250),
    "vegetables": (30, "Fruits et légumes > Légumes", "Food Items > Fruits & Vegetables", 200),
    "dairy_eggs": (30, "Crèmerie > Produits laitiers et œufs", "Food Items > Dairy Products", 300),
    "grains": (25, "Épicerie salée > Céréales, pâtes et riz", "Food Items > Grains, Rice & Cereal", 220),
    "beverages": (30, "Boissons", "Beverages", 280),
    "sweets": (25, "Épicerie sucrée", "Food Items > Candy & Chocolate", 320),
    "condiments": (20, "Épicerie salée > Sauces et condiments", "Food Items > Condiments & Sauces", 260),
    "seafood": (15, "Poissonnerie", "Food Items > Meat, Seafood & Eggs > Seafood", 990),
    "meat": (20, "Boucherie et charcuterie", "Food Items > Meat, Seafood & Eggs > Meat", 890),
    "nuts_seeds": (15, "Épicerie salée > Fruits secs et graines", "Food Items > Nuts & Seeds", 450),
    "legumes": (15, "Épicerie salée > Légumes secs", "Food Items > Grains, Rice & Cereal", 230),
    "prepared": (15, "Traiteur", "Food Items > Prepared Foods", 550),
    "fats_oils": (10, "Épicerie salée > Huiles et matières grasses", "Food Items > Cooking & Baking Ingredients", 480),
}  # fmt: skip
SKIPPED_STATES = {"cooked", "fried"}
SOURCES = {"CIQUAL", "USDA", "legacy"}
PACK = {"solid": "500 g", "liquid": "1 L", "unit": "à l'unité"}
NUTRIENTS = [
    ("protein_g", "protéines"),
    ("fat_g", "matières grasses"),
    ("carbs_g", "glucides"),
    ("sugars_g", "dont sucres"),
    ("fiber_g", "fibres"),
    ("salt_g", "sel"),
]


def _number(key: str, modulo: int) -> int:
    """A stable pseudo-random number for made-up figures (the same on every run)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % modulo


def _sellable(food: dict[str, Any]) -> bool:
    """A food a grocer sells as it is, from the list's checked sources (the entries without a
    source are often filed under the wrong category), not a second entry of the same name."""
    return (
        food.get("source") in SOURCES
        and food.get("state") not in SKIPPED_STATES
        and "cuit" not in food["name"]["fr"]
        and food.get("kcal_per_100g") is not None
        and not re.search(r"-\d+$", food["id"])
    )


def select(foods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A spread of each kept category: its sellable foods in a stable shuffled order."""
    chosen: list[dict[str, Any]] = []
    names: set[str] = set()
    for category, (count, *_) in CATEGORIES.items():
        eligible = [f for f in foods if f["category"] == category and _sellable(f)]
        kept = 0
        for food in sorted(eligible, key=lambda f: hashlib.sha256(f["id"].encode()).hexdigest()):
            if kept < count and food["name"]["fr"].lower() not in names:
                names.add(food["name"]["fr"].lower())
                chosen.append(food)
                kept += 1
    return chosen


def _grams(value: float) -> str:
    return f"{value:g}".replace(".", ",") + " g"


def description(food: dict[str, Any]) -> str:
    per = "100 ml" if food["type"] == "liquid" else "100 g"
    facts = [f"{food['kcal_per_100g']:g} kcal"]
    facts += [
        f"{label} {_grams(food[key])}" for key, label in NUTRIENTS if food.get(key) is not None
    ]
    text = f"{food['name']['fr']}. Valeurs nutritionnelles pour {per} : {', '.join(facts)}."
    if food.get("alcohol_g"):
        text += f" Contient de l'alcool ({_grams(food['alcohol_g'])} pour {per})."
    if food.get("weight_per_unit"):
        text += f" Poids moyen d'une pièce : {food['weight_per_unit']:g} g."
    return text


def item(food: dict[str, Any]) -> dict[str, str]:
    _, shelf, google, cents = CATEGORIES[food["category"]]
    price = Decimal(cents + _number(food["id"], cents)) / 100
    quantity = _number(food["id"] + "stock", 60) if _number(food["id"], 10) else 0
    on_sale = _number(food["id"] + "promo", 7) == 0
    return {
        "id": food["id"],
        "title": food["name"]["fr"],
        "description": description(food),
        "link": f"{HOME}/produits/{food['id']}",
        "image_link": f"https://cdn.epicerie.example/{food['id']}.jpg",
        "availability": "in_stock" if quantity else "out_of_stock",
        "quantity": str(quantity),
        "price": f"{price:.2f} EUR",
        "sale_price": f"{price * Decimal('0.85'):.2f} EUR" if on_sale else "",
        "brand": "",
        "gtin": "",
        "product_type": shelf,
        "google_product_category": f"Food, Beverages & Tobacco > {google}",
        "item_group_id": "",
        "color": "",
        "size": PACK[food["type"]],
        "material": "",
        "gender": "",
        "age_group": "",
    }


def inventory(items: list[dict[str, str]]) -> list[dict[str, str]]:
    rows = []
    for code, _ in STORES:
        for product in items:
            if _number(code + product["id"], 4) == 0:
                continue  # not sold in that store
            quantity = _number(product["id"] + code, 25)
            availability = "in_stock" if quantity else "out_of_stock"
            rows.append(
                {"store_code": code, "id": product["id"], "availability": availability,
                 "quantity": str(quantity), "rayon": product["product_type"].split(" > ")[0]}
            )  # fmt: skip
    return rows


def write(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str], out: Path = HERE) -> None:
    source = Path(argv[0]) if argv else EXTRACT
    foods = select(json.loads(source.read_text(encoding="utf-8")))
    if source != EXTRACT:
        EXTRACT.write_text(json.dumps(foods, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    items = [item(f) for f in foods]
    write(out / "epicerie-products.tsv", items, PRODUCT_COLUMNS)
    write(out / "epicerie-stores.tsv", [{"store_code": c, "name": n} for c, n in STORES],
          ["store_code", "name"])  # fmt: skip
    write(out / "epicerie-local-inventory.tsv", inventory(items),
          ["store_code", "id", "availability", "quantity", "rayon"])  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
