"""Which other catalog product a shopper would weigh against this one ("how does it compare")."""

from __future__ import annotations

from decimal import Decimal

from knowledge.models import Product
from knowledge.pdp.clues import ACCESSORY, DEVICE, kind_words
from knowledge.pdp.families import Family

_CANDIDATES = 200
_BRAND_COMPARED = frozenset(
    {Family.APPAREL, Family.SHOES, Family.ACCESSORIES, Family.FRAGRANCE, Family.BEAUTY}
)


def is_device(product: Product) -> bool:
    """A phone, laptop, tablet or camera itself, not something that goes with one."""
    text = f"{product.title} {product.category}"
    return bool(DEVICE.search(text)) and not ACCESSORY.search(product.title)


def comparison_title(product: Product, family: Family) -> str:
    """The title of a product of the same category to compare with, or "".

    Same category is not enough ("mobile accessories" holds chargers and headphones): the
    other product must be the same kind of thing (same head noun: "Red Shoes" and "Pampi
    Shoes") or, where shoppers compare within a brand (phones, watches, shoes), the same brand.
    Among those, the most words in common, then the closest price.
    """
    if not product.category:
        return ""
    others = Product.objects.filter(organization_id=product.organization_id).exclude(pk=product.pk)
    if product.product_type:
        others = others.filter(product_type=product.product_type)
    else:
        others = others.filter(google_product_category=product.google_product_category)
    if product.item_group_id:
        others = others.exclude(item_group_id=product.item_group_id)
    rows = others.values_list("title", "brand", "price", "sale_price").order_by("item_id")
    price = product.current_price or Decimal(0)
    own_words = kind_words(product.title)
    own_head = own_words[-1] if own_words else ""
    brand = product.brand.strip().lower()
    brand_counts = bool(brand) and (family in _BRAND_COMPARED or is_device(product))
    best: tuple[int, Decimal, str] | None = None
    for title, other_brand, regular, sale in rows[:_CANDIDATES]:
        words = kind_words(title)
        if not words or title.strip().lower() == product.title.strip().lower():
            continue
        same_kind = words[-1] == own_head
        same_brand = brand_counts and other_brand.strip().lower() == brand
        if not (same_kind or same_brand):
            continue
        shared = len(set(words) & set(own_words))
        distance = abs((sale if sale is not None else regular) - price)
        if best is None or (-shared, distance) < (-best[0], best[1]):
            best = (shared, distance, title)
    return best[2] if best else ""
