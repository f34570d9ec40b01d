"""What kind of thing a product is, read from its own title: the head noun of the name.

Catalog categories are often broader than a kind ("Electronics > Computers" holds tablets,
keyboards and cables), so alternatives and comparisons keep to products whose title ends in
the same noun: a tablet's cheaper alternative is a tablet, a camera's is not a camera lens.
"""

from __future__ import annotations

import re

from knowledge.engines.catalog.understanding import singular
from knowledge.models import Product
from knowledge.search.text import words

# Measures written after a product's name ("128 GB", "750 ml"): never its kind.
_UNITS = frozenset(
    {"gb", "tb", "mb", "ml", "cl", "kg", "mm", "cm", "inch", "inches", "pack", "pcs", "set"}
)
_SPEC = re.compile(r"\d")


def product_kind(product: Product) -> str:
    """The head noun of the product's title, singular ("tablet" for "Tablet 32GB", "camera"
    for "Compact Digital Camera"); its own colour, size and material words are skipped."""
    own = set(words(f"{product.color} {product.size} {product.material} {product.brand}"))
    for word in reversed(words(product.title)):
        if len(word) < 3 or _SPEC.search(word) or word in _UNITS or word in own:
            continue
        return singular(word)
    return ""


def same_kind(products: list[Product], kind: str) -> list[Product]:
    """The products of `kind`; all of them when the kind is unknown."""
    if not kind:
        return products
    return [p for p in products if product_kind(p) == kind]


def _google_branch(product: Product) -> tuple[str, ...]:
    levels = [level.strip().lower() for level in product.google_product_category.split(">")]
    return tuple(level for level in levels if level)[:2]


def same_google_category(products: list[Product], base: Product) -> list[Product]:
    """The products in the base's branch of the Google product taxonomy (its first two
    levels: "Electronics > Computers"); all of them when the base has none."""
    branch = _google_branch(base)
    if len(branch) < 2:
        return products
    return [p for p in products if _google_branch(p) == branch]
