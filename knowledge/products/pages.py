"""A product page's product: one variant's page, or a product family's page.

Variants of one product often share a page and differ by query parameters
(`/products/stride-air-sneaker?color=white&size=40`); the page without them
(`/products/stride-air-sneaker`) is the family's. Read by the assistant's page context and by
the PDP questions alike, on canonical URLs (knowledge/canonical.py).
"""

from __future__ import annotations

import uuid

from knowledge.models import Availability, Product

# Variants read for one family page: more than any product has.
FAMILY_VARIANTS_READ = 100


def family_product_find(*, organization_id: uuid.UUID, url: str) -> Product | None:
    """The product that stands for the family whose variants' pages are `url` with variant
    parameters: an in-stock one first, then the lowest price. None when there is none.

    `url` is canonical and without a query. A prefix match within the organization's rows
    (a range on the url index would depend on the database's collation), read only when no
    product has the page itself; SQLite's LIKE ignores case, so the prefix is checked again.
    """
    if "?" in url:
        return None
    variants = [
        product
        for product in Product.objects.filter(
            organization_id=organization_id, url__startswith=f"{url}?"
        ).order_by("url")[:FAMILY_VARIANTS_READ]
        if product.url.startswith(f"{url}?")
    ]
    if not variants:
        return None
    return min(
        variants,
        key=lambda p: (p.availability != Availability.IN_STOCK, p.current_price, p.item_id),
    )
