"""What a product search returns, and the sort orders it accepts."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.models import Product

# relevance: best text match first (title order when there is no text); prices: the price paid.
SORTS = ("relevance", "price_asc", "price_desc", "title")


@dataclass
class SearchResult:
    products: list[Product]
    total: int
    terms: list[str] = field(default_factory=list)
