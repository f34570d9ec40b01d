"""`product_search`: filters as ORM conditions, then text matching by the database's backend.

Matching is strict first and relaxes only when nothing matches: every word must match; then
each word that matches nothing in the catalog is replaced by near catalog words (typos, see
`spelling`) or dropped; then any word may match. Relevance order is the backend's weighted rank.
"""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import Organization
from knowledge.models import Product
from knowledge.search.backend import TextBackend, text_backend
from knowledge.search.filters import SearchFilters, apply_filters, with_paid_price
from knowledge.search.results import SORTS, SearchResult
from knowledge.search.spelling import alternatives
from knowledge.search.text import query_words

MAX_LIMIT = 100
_ORDERINGS = {
    "relevance": ("-rank", "title", "pk"),
    "price_asc": ("paid_price", "title", "pk"),
    "price_desc": ("-paid_price", "title", "pk"),
    "title": ("title", "pk"),
}


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
    catalog = Product.objects.filter(organization=organization)
    filtered = apply_filters(with_paid_price(catalog), filters or SearchFilters())
    terms = query_words(query)
    if not terms:
        ordering = _ORDERINGS["title" if sort == "relevance" else sort]
        return _page(filtered.order_by(*ordering), terms, limit, offset)

    backend = text_backend()
    groups = [[term] for term in terms]
    matched = backend.match(filtered, groups, every=True)
    total = matched.count()
    if total == 0:
        groups = _corrected(backend, organization, catalog, terms)
        if groups:
            matched = backend.match(filtered, groups, every=True)
            total = matched.count()
            if total == 0 and len(groups) > 1:
                matched = backend.match(filtered, groups, every=False)
                total = matched.count()
    searched = list(dict.fromkeys(word for group in groups for word in group))
    if total == 0:
        return SearchResult(products=[], total=0, terms=searched)
    return _page(matched.order_by(*_ORDERINGS[sort]), searched, limit, offset, total=total)


def _page(
    queryset: QuerySet[Product],
    terms: list[str],
    limit: int,
    offset: int,
    *,
    total: int | None = None,
) -> SearchResult:
    products = list(queryset[offset : offset + limit]) if limit else []
    if total is None:
        total = offset + len(products) if len(products) < limit and products else queryset.count()
    return SearchResult(products=products, total=total, terms=terms)


def _corrected(
    backend: TextBackend,
    organization: Organization,
    catalog: QuerySet[Product],
    terms: list[str],
) -> list[list[str]]:
    """Each word kept if the catalog has it, else replaced by its alternatives, else dropped."""
    groups: list[list[str]] = []
    for term in terms:
        if backend.match(catalog, [[term]], every=True).exists():
            groups.append([term])
        elif found := alternatives(backend, organization, term):
            groups.append(found)
    return groups
