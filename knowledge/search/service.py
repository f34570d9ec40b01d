"""`product_search`: filters, then text matching by the backend of the database in use."""

from __future__ import annotations

from functools import reduce
from operator import and_

from django.db.models import Q

from accounts.models import Organization
from knowledge.models import Product
from knowledge.search.filters import SearchFilters, apply_filters, with_paid_price
from knowledge.search.results import SORTS, SearchResult
from knowledge.search.text import query_words

MAX_LIMIT = 100


def product_search(
    *,
    organization: Organization,
    query: str = "",
    filters: SearchFilters | None = None,
    sort: str = "relevance",
    limit: int = 10,
    offset: int = 0,
) -> SearchResult:
    """The organization's products matching `query` and `filters`, best first."""
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r}; expected one of {', '.join(SORTS)}")
    limit = max(0, min(limit, MAX_LIMIT))
    offset = max(0, offset)
    queryset = with_paid_price(Product.objects.filter(organization=organization))
    queryset = apply_filters(queryset, filters or SearchFilters())
    terms = query_words(query)
    if terms:
        # First version: every word must appear in one of the text fields.
        queryset = queryset.filter(
            reduce(
                and_,
                (
                    Q(title__icontains=term)
                    | Q(brand__icontains=term)
                    | Q(product_type__icontains=term)
                    | Q(description__icontains=term)
                    for term in terms
                ),
            )
        )
    ordering = {
        "relevance": ["title", "pk"],
        "price_asc": ["paid_price", "title", "pk"],
        "price_desc": ["-paid_price", "title", "pk"],
        "title": ["title", "pk"],
    }[sort]
    total = queryset.count()
    products = list(queryset.order_by(*ordering)[offset : offset + limit])
    return SearchResult(products=products, total=total, terms=terms)
