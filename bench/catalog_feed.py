"""A generated Merchant Center feed (TSV) of any size for the catalog benchmarks.

Titles combine a brand, an adjective, a colour and a product noun; descriptions reuse the same
words, so two-word queries ("waterproof jacket") match a realistic share of the catalog.
Deterministic for a given size and seed; GTINs are valid, so the import warns about nothing.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

COLUMNS = [
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
    "item_group_id",
    "color",
    "size",
    "material",
    "gender",
    "age_group",
]
# noun -> (category path, typical price)
NOUNS = {
    "sneaker": ("Shoes > Sneakers", 90),
    "boot": ("Shoes > Boots", 140),
    "sandal": ("Shoes > Sandals", 50),
    "jacket": ("Clothing > Jackets", 160),
    "coat": ("Clothing > Coats", 220),
    "shirt": ("Clothing > Shirts", 45),
    "hoodie": ("Clothing > Hoodies", 60),
    "dress": ("Clothing > Dresses", 80),
    "jeans": ("Clothing > Trousers", 70),
    "skirt": ("Clothing > Skirts", 50),
    "watch": ("Accessories > Watches", 250),
    "backpack": ("Accessories > Bags", 85),
    "wallet": ("Accessories > Wallets", 40),
    "belt": ("Accessories > Belts", 35),
    "sunglasses": ("Accessories > Sunglasses", 90),
    "headphones": ("Electronics > Audio", 180),
    "earbuds": ("Electronics > Audio", 110),
    "speaker": ("Electronics > Audio", 95),
    "smartphone": ("Electronics > Phones", 600),
    "tablet": ("Electronics > Tablets", 450),
    "laptop": ("Electronics > Computers", 1100),
    "charger": ("Electronics > Accessories", 30),
    "keyboard": ("Electronics > Accessories", 80),
    "monitor": ("Electronics > Computers", 300),
    "camera": ("Electronics > Cameras", 700),
    "lamp": ("Home > Lighting", 60),
    "chair": ("Home > Furniture", 180),
    "table": ("Home > Furniture", 300),
    "sofa": ("Home > Furniture", 900),
    "mug": ("Kitchen > Drinkware", 15),
    "kettle": ("Kitchen > Appliances", 55),
    "pan": ("Kitchen > Cookware", 45),
    "knife": ("Kitchen > Cutlery", 40),
    "bottle": ("Kitchen > Drinkware", 25),
    "tent": ("Outdoor > Camping", 260),
    "bicycle": ("Outdoor > Cycling", 800),
    "helmet": ("Outdoor > Cycling", 70),
    "racket": ("Sports > Tennis", 120),
    "ball": ("Sports > Balls", 25),
    "mat": ("Sports > Yoga", 35),
}
ADJECTIVES = [
    "waterproof",
    "lightweight",
    "wireless",
    "classic",
    "vintage",
    "slim",
    "premium",
    "organic",
    "ergonomic",
    "compact",
    "portable",
    "insulated",
    "breathable",
    "foldable",
    "rugged",
    "elegant",
    "minimalist",
    "padded",
    "adjustable",
    "rechargeable",
]
COLORS = ["Black", "White", "Red", "Blue", "Green", "Grey", "Navy", "Beige", "Pink", "Olive"]
SIZES = ["XS", "S", "M", "L", "XL", "38", "40", "42", "44", "One size"]
MATERIALS = ["Cotton", "Leather", "Steel", "Plastic", "Wool", "Glass", "Aluminium", "Wood"]
SYLLABLES = [
    "nor",
    "kes",
    "vol",
    "tra",
    "pix",
    "lon",
    "wave",
    "sum",
    "ber",
    "dal",
    "fin",
    "gro",
    "hel",
    "ix",
    "jun",
    "kor",
    "lum",
    "mar",
]
AVAILABILITY = ["in_stock"] * 8 + ["out_of_stock", "preorder"]


def brands(count: int = 80, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    names: set[str] = set()
    while len(names) < count:
        names.add("".join(rng.sample(SYLLABLES, 2)).capitalize())
    return sorted(names)


def gtin13(number: int) -> str:
    body = f"{400_000_000_000 + number:012d}"
    total = sum(int(digit) * (3 if index % 2 else 1) for index, digit in enumerate(body))
    return body + str((10 - total % 10) % 10)


def write_feed(path: Path, size: int, *, seed: int = 11) -> Path:
    """Writes `size` items to `path` (kept when a file of that size is already there)."""
    marker = path.with_suffix(".size")
    if path.exists() and marker.exists() and marker.read_text() == str(size):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    names = brands()
    nouns = list(NOUNS)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(COLUMNS)
        for number in range(size):
            writer.writerow(_row(number, rng, names, nouns))
    marker.write_text(str(size))
    return path


def _row(number: int, rng: random.Random, names: list[str], nouns: list[str]) -> list[str]:
    noun, adjective, other = rng.choice(nouns), rng.choice(ADJECTIVES), rng.choice(ADJECTIVES)
    brand, color = rng.choice(names), rng.choice(COLORS)
    category, typical = NOUNS[noun]
    price = round(typical * rng.uniform(0.5, 1.8), 2)
    sale = round(price * 0.8, 2) if rng.random() < 0.15 else None
    material = rng.choice(MATERIALS)
    values = {
        "id": f"GEN-{number:07d}",
        "title": f"{brand} {adjective.capitalize()} {color} {noun.capitalize()} {number % 997}",
        "description": (
            f"A {adjective} and {other} {noun} by {brand}, made of {material.lower()}. "
            f"Designed for everyday use, in {color.lower()}, with a two-year warranty."
        ),
        "link": f"https://big-shop.example/p/{number:07d}?utm_source=feed",
        "image_link": f"https://cdn.big-shop.example/i/{number:07d}.jpg",
        "availability": rng.choice(AVAILABILITY),
        "quantity": str(rng.randint(0, 200)),
        "price": f"{price:,.2f} EUR",
        "sale_price": f"{sale:.2f} EUR" if sale else "",
        "brand": brand,
        "gtin": gtin13(number),
        "product_type": category,
        "item_group_id": f"G{number // 4:07d}",
        "color": color,
        "size": rng.choice(SIZES),
        "material": material,
        "gender": rng.choice(["female", "male", "unisex"]),
        "age_group": "adult",
    }
    return [values[column] for column in COLUMNS]


PLURALS = {"dress": "dresses", "watch": "watches", "knife": "knives", "bottle": "bottles"}
UNCOUNTED = {"jeans", "sunglasses", "headphones", "earbuds"}


def plural(noun: str) -> str:
    if noun in UNCOUNTED:
        return noun
    return PLURALS.get(noun, noun + "s")


def two_word_queries(count: int, *, seed: int = 5) -> list[tuple[str, int]]:
    """(query, max price) pairs: an adjective or colour and a noun (a third of them plural)."""
    rng = random.Random(seed)
    queries = []
    for _ in range(count):
        noun = rng.choice(list(NOUNS))
        first = rng.choice(ADJECTIVES + [color.lower() for color in COLORS])
        word = plural(noun) if rng.random() < 0.3 else noun
        queries.append((f"{first} {word}", int(NOUNS[noun][1] * rng.uniform(0.8, 1.5))))
    return queries


def misspelt_queries(count: int, *, seed: int = 6) -> list[tuple[str, int]]:
    """Like two_word_queries, with one letter of the noun dropped or two letters swapped."""
    rng = random.Random(seed)
    queries = []
    for query, price in two_word_queries(count, seed=seed):
        first, noun = query.split()
        index = rng.randrange(1, len(noun) - 1)
        if rng.random() < 0.5:
            noun = noun[:index] + noun[index + 1 :]
        else:
            noun = noun[: index - 1] + noun[index] + noun[index - 1] + noun[index + 1 :]
        queries.append((f"{first} {noun}", price))
    return queries
