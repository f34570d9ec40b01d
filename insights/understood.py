"""What a shopper's request was, as the assistant understood it: the category, brands and
price of its product searches (the `search_products` tool's arguments) and the language of
the shopper's words."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings

from knowledge.language.detect import language_of

# Upper bounds of the price bands, in the catalog's currency.
PRICE_BANDS = (25, 50, 100, 250, 500, 1000)
FILTER_NAMES = (
    "category",
    "brands",
    "colors",
    "sizes",
    "materials",
    "genders",
    "minPrice",
    "maxPrice",
    "around",
    "inStock",
    "onSale",
)


def price_band(args: dict[str, Any]) -> str:
    """The band of the price the shopper named ("50-100"): the most they would pay, else the
    price they were around, else the least; "" when they named none."""
    for name in ("maxPrice", "around", "minPrice"):
        value = _number(args.get(name))
        if value is not None:
            return _band_of(value)
    return ""


def _band_of(value: Decimal) -> str:
    lower = 0
    for upper in PRICE_BANDS:
        if value <= upper:
            return f"{lower}-{upper}"
        lower = upper
    return f"over {PRICE_BANDS[-1]}"


def _number(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() and number >= 0 else None


def brands(args: dict[str, Any]) -> list[str]:
    found = args.get("brands")
    return [str(b).strip() for b in found if str(b).strip()] if isinstance(found, list) else []


def category(args: dict[str, Any]) -> str:
    value = args.get("category")
    return value.strip() if isinstance(value, str) else ""


def filters_text(args: dict[str, Any]) -> str:
    """The search's filters in one line ("category: Shoes, maxPrice: 100"), words left out."""
    parts = []
    for name in FILTER_NAMES:
        value = args.get(name)
        if value in (None, "", []):
            continue
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts.append(f"{name}: {shown}")
    return "; ".join(parts)


def language(text: str) -> str:
    """The language code of a shopper's message among INSIGHTS_LANGUAGES; "" when it cannot be
    told (too short, or no language clearly ahead): the assistant's own detector."""
    return language_of(text, tuple(settings.INSIGHTS_LANGUAGES))
