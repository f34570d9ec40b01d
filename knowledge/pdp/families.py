"""Which kind of product a catalog item is, read from its category path and title.

The question generator asks different things about shoes than about honey; this module only
decides the kind. Keywords are matched as whole words on the most specific category segment
first ("mobile accessories > electronics" is electronics, "Apparel & Accessories > Jewelry" is
an accessory), then on the title when the category says nothing.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Family(StrEnum):
    SHOES = "shoes"
    APPAREL = "apparel"
    ELECTRONICS = "electronics"
    APPLIANCES = "appliances"
    GROCERIES = "groceries"
    FURNITURE = "furniture"
    BEAUTY = "beauty"
    FRAGRANCE = "fragrance"
    ACCESSORIES = "accessories"
    KITCHEN = "kitchen"
    GENERAL = "general"


# Checked in this order within one segment; each matches as a whole word, plural or not.
_FAMILY_WORDS: list[tuple[Family, tuple[str, ...]]] = [
    (Family.GENERAL, ("household", "cleaning", "vehicle", "motorcycle")),
    (
        Family.SHOES,
        ("footwear", "shoe", "sneaker", "boot", "sandal", "slipper", "heel", "trainer", "cleat"),
    ),
    (
        Family.APPAREL,
        (
            "apparel",
            "clothing",
            "clothes",
            "dress",
            "shirt",
            "tshirt",
            "t-shirt",
            "top",
            "frock",
            "jacket",
            "coat",
            "trouser",
            "pants",
            "jeans",
            "skirt",
            "sweater",
            "hoodie",
            "gown",
            "suit",
            "legging",
        ),
    ),
    (Family.APPLIANCES, ("appliance", "microwave", "oven", "blender", "stove", "fridge", "kettle")),
    (
        Family.ELECTRONICS,
        (
            "electronic",
            "smartphone",
            "phone",
            "iphone",
            "ipad",
            "laptop",
            "notebook",
            "tablet",
            "computer",
            "headphone",
            "earphone",
            "earbud",
            "airpod",
            "charger",
            "camera",
            "speaker",
            "smartwatch",
            "tv",
            "monitor",
        ),
    ),
    (Family.FRAGRANCE, ("fragrance", "perfume", "parfum", "cologne")),
    (
        Family.BEAUTY,
        (
            "beauty",
            "skin",
            "cosmetic",
            "makeup",
            "mascara",
            "lipstick",
            "eyeshadow",
            "lotion",
            "soap",
            "shampoo",
            "nail",
            "personal care",
        ),
    ),
    (
        Family.GROCERIES,
        (
            "grocery",
            "groceries",
            "food",
            "beverage",
            "drink",
            "fruit",
            "vegetable",
            "meat",
            "dairy",
            "seafood",
            "snack",
            "grain",
            "condiment",
            "supplement",
            "dessert",
            "pet",
            "cooking essential",
        ),
    ),
    (
        Family.FURNITURE,
        (
            "furniture",
            "sofa",
            "bed",
            "chair",
            "table",
            "desk",
            "shelf",
            "shelves",
            "wardrobe",
            "cabinet",
            "mattress",
            "home decor",
            "lamp",
        ),
    ),
    (
        Family.ACCESSORIES,
        (
            "watch",
            "jewellery",
            "jewelry",
            "earring",
            "necklace",
            "bracelet",
            "ring",
            "bag",
            "handbag",
            "backpack",
            "wallet",
            "sunglasses",
            "eyewear",
            "glasses",
            "fashion accessories",
        ),
    ),
    (Family.KITCHEN, ("kitchen", "cookware", "drinkware", "dinnerware", "serveware", "utensil")),
]

_PATTERNS = [
    (
        family,
        re.compile(
            r"\b(?:" + "|".join(re.escape(word) for word in words) + r")(?:s|es)?\b",
            re.IGNORECASE,
        ),
    )
    for family, words in _FAMILY_WORDS
]

# Groceries eaten as they come: asking for their "ingredients" would sound silly.
FRESH_PRODUCE = re.compile(
    r"\b(?:fruit|vegetable|meat|seafood|fish|egg|produce|fresh)(?:s|es)?\b", re.IGNORECASE
)


def family_of(*, category: str, title: str) -> Family:
    """The product family, from the most specific category segment that names one."""
    segments = [part.strip() for part in re.split(r">|/|\|", category) if part.strip()]
    for text in [*reversed(segments), title]:
        for family, pattern in _PATTERNS:
            if pattern.search(text):
                return family
    return Family.GENERAL
