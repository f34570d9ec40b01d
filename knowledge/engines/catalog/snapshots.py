"""Product snapshots in the API's Product shape (docs/api.md#product), with the catalog's values
now.

A snapshot is stored with the reply, so history shows a product as it was recommended.
`product_snapshot` is a plain function the LLM engine reuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from knowledge.language import formatting
from knowledge.models import Availability, Product, Store, StoreInventory

LOW_STOCK = 5
NEW_FOR = timedelta(days=30)
DESCRIPTION_CHARS = 400


def money(amount: Decimal | float, currency: str) -> str:
    """ "$1,099.99", "€49.99", "120.00 CHF"; as the reply's language writes it."""
    return formatting.money(amount, currency)


def discount_percent(product: Product) -> int:
    if product.sale_price is None or not product.price or product.sale_price >= product.price:
        return 0
    return int(((product.price - product.sale_price) / product.price * 100).to_integral_value())


def is_on_sale(product: Product) -> bool:
    return discount_percent(product) > 0


def inventory_for(products: Iterable[Product], store: Store | None) -> dict[int, StoreInventory]:
    """The store's inventory rows of these products (one query), by product id."""
    ids = [p.pk for p in products]
    if store is None or not ids:
        return {}
    rows = StoreInventory.objects.filter(store=store, product_id__in=ids)
    return {row.product_id: row for row in rows}


def stock_of(
    product: Product, store: Store | None, row: StoreInventory | None
) -> tuple[str, int | None]:
    """(availability status, quantity) in the store when given, else online."""
    if store is not None:
        if row is None:
            return Availability.OUT_OF_STOCK, 0
        quantity = row.quantity
        if row.availability == Availability.OUT_OF_STOCK:
            quantity = 0
        return row.availability, quantity
    quantity = product.quantity
    if product.availability == Availability.OUT_OF_STOCK:
        quantity = 0
    return product.availability, quantity


def is_new(product: Product, first_created_at: datetime | None) -> bool:
    """Added recently, after the catalog's first import (a first import is not "new")."""
    if first_created_at is None:
        return False
    return (
        product.created_at >= timezone.now() - NEW_FOR
        and product.created_at >= first_created_at + timedelta(days=1)
    )


def product_flags(
    product: Product,
    *,
    store: Store | None = None,
    row: StoreInventory | None = None,
    first_created_at: datetime | None = None,
) -> list[dict[str, str]]:
    flags: list[dict[str, str]] = []
    percent = discount_percent(product)
    if percent:
        flags.append(
            {
                "type": "sale",
                "title": f"{percent}% off",
                "text": (
                    f"On sale: {money(product.current_price, product.currency)} instead of "
                    f"{money(product.price, product.currency)}."
                ),
            }
        )
    status, quantity = stock_of(product, store, row)
    where = f" at {store.name or store.code}" if store is not None else ""
    if status == Availability.OUT_OF_STOCK:
        flags.append(
            {"type": "out_of_stock", "title": "Out of stock", "text": f"Out of stock{where}."}
        )
    elif status == Availability.IN_STOCK and quantity is not None and 0 < quantity <= LOW_STOCK:
        flags.append(
            {"type": "low_stock", "title": "Low stock", "text": f"Only {quantity} left{where}."}
        )
    elif status in (Availability.PREORDER, Availability.BACKORDER):
        flags.append(
            {
                "type": status,
                "title": "Pre-order" if status == Availability.PREORDER else "Backorder",
                "text": "Can be ordered now, ships later.",
            }
        )
    if is_new(product, first_created_at):
        flags.append({"type": "new", "title": "New", "text": "Recently added to the catalog."})
    return flags


def _description(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= DESCRIPTION_CHARS:
        return text
    cut = text[:DESCRIPTION_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def product_snapshot(
    *,
    product: Product,
    store: Store | None = None,
    inventory_row: StoreInventory | None = None,
    query: str = "",
    recommendation: str = "",
    first_created_at: datetime | None = None,
) -> dict[str, Any]:
    """The API's Product dict (docs/api.md#product) for `product` with the catalog's values at this
    moment."""
    snapshot: dict[str, Any] = {
        "gtin": product.gtin or product.item_id,
        "brand": product.brand or "",
        "designation": product.title,
        "url": product.url,
        "image": product.image_url or "",
        "price": float(product.current_price),
        "currency": product.currency,
    }
    if product.price_info:
        snapshot["priceInfo"] = product.price_info
    elif is_on_sale(product):
        snapshot["priceInfo"] = (
            f"{discount_percent(product)}% off the regular {money(product.price, product.currency)}"
        )
    if store is not None and inventory_row is not None and inventory_row.location:
        snapshot["location"] = [
            {"key": str(item.get("key", "")), "value": str(item.get("value", ""))}
            for item in inventory_row.location
            if isinstance(item, dict)
        ]
    status, quantity = stock_of(product, store, inventory_row)
    if quantity is not None:
        snapshot["availability"] = {"status": status, "quantity": quantity}
    if product.category:
        snapshot["category"] = product.category
    if query:
        snapshot["query"] = query
    if product.description:
        snapshot["description"] = _description(product.description)
    if recommendation:
        snapshot["recommendationText"] = recommendation
    flags = product_flags(
        product, store=store, row=inventory_row, first_created_at=first_created_at
    )
    if flags:
        snapshot["flags"] = flags
    return snapshot
