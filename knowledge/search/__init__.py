"""Product search over one organization's catalog: the one interface the assistant calls.

    from knowledge.search import SearchFilters, product_search

    result = product_search(
        organization=org,
        query="red sneakers",              # free text; "" lists the catalog (filters still apply)
        filters=SearchFilters(max_price=Decimal("100"), in_stock=True, sizes=("42",)),
        sort="relevance",                  # or "price_asc", "price_desc", "title"
        limit=10,
        offset=0,
    )
    result.products  # list[Product], best first
    result.total     # how many products match in all (for paging)
    result.terms     # the words actually searched (after typo correction)

The backend (PostgreSQL full-text + pg_trgm, or SQLite FTS5) is chosen from the database in use;
both fold case and accents, stem plurals ("watches" finds "watch") and correct typos
("samsng" finds Samsung). Unknown `sort` raises ValueError.
"""

from __future__ import annotations

from knowledge.search.filters import SearchFilters
from knowledge.search.results import SORTS, SearchResult
from knowledge.search.service import product_search

__all__ = ["SORTS", "SearchFilters", "SearchResult", "product_search"]
