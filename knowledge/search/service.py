"""`product_search`: filters as ORM conditions, then text matching by the database's backend.

Matching is strict first and relaxes only when nothing matches: every word must match; then
each word that matches nothing in the catalog is replaced by near catalog words (typos, see
`spelling`) or dropped; then any word may match. Relevance order is the backend's weighted rank.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import connection
from django.db.models import Count, QuerySet, Window

from accounts.models import Organization
from infrastructure.prepared import CompiledQueries
from knowledge.language.vocabulary import language_data
from knowledge.models import Product, SearchTerm
from knowledge.search.backend import TextBackend
from knowledge.search.filters import SearchFilters, apply_filters, with_paid_price
from knowledge.search.postgres import PostgresBackend
from knowledge.search.results import SORTS, SearchResult
from knowledge.search.spelling import alternatives
from knowledge.search.sqlite import SqliteBackend
from knowledge.search.text import query_words

MAX_LIMIT = 100
MAX_KEPT_SPELLINGS = 5000
# Shoppers ask the same searches again and again ("headphones under 100"); building and
# compiling one is most of a search's CPU in the worker (BENCHMARKS.md), so each
# worker keeps the SQL of the pages it searched. The rows are read anew every time.
MAX_COMPILED_PAGES = 1000
_compiled_pages = CompiledQueries(Product, max_entries=MAX_COMPILED_PAGES)
_ORDERINGS = {
    "relevance": ("-rank", "title", "pk"),
    "price_asc": ("paid_price", "title", "pk"),
    "price_desc": ("-paid_price", "title", "pk"),
    "title": ("title", "pk"),
}


def text_backend() -> TextBackend:
    """The text backend of the database in use."""
    if connection.vendor == "postgresql":
        return PostgresBackend()
    if connection.vendor == "sqlite":
        return SqliteBackend()
    raise NotImplementedError(f"no catalog search backend for {connection.vendor}")


def product_search(
    *,
    organization: Organization,
    query: str = "",
    filters: SearchFilters | None = None,
    sort: str = "relevance",
    limit: int = 10,
    offset: int = 0,
    spellings: dict[str, list[str]] | None = None,
    synonyms: Mapping[str, Sequence[str]] | None = None,
) -> SearchResult:
    """The organization's products matching `query` and `filters`, best first.

    `spellings`: what each query word became in `_corrected`, kept by a caller that reads the
    same catalog again (the assistant, per catalog version): those words cost no query again.
    `synonyms`: other words any of which a product may have instead of a query word ("house"
    for "indoor").
    """
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r}; expected one of {', '.join(SORTS)}")
    limit = max(0, min(limit, MAX_LIMIT))
    offset = max(0, offset)
    filters = filters or SearchFilters()
    terms = query_words(query)
    if organization.language != "en":
        # The catalog language's stop words too ("chaussures pour femme").
        stop_words = language_data(organization.language).stop_words
        terms = [term for term in terms if term not in stop_words]
    if not terms:
        ordering = _ORDERINGS["title" if sort == "relevance" else sort]
        products, total = _page(organization, filters, None, ordering, limit, offset)
        return SearchResult(products=products, total=total, terms=[])

    backend = text_backend()
    ordering = _ORDERINGS[sort]
    groups = [[term, *(synonyms or {}).get(term, ())] for term in terms]
    products, total = _page(organization, filters, (groups, True), ordering, limit, offset)
    if total == 0:
        catalog = Product.objects.filter(organization=organization)
        corrected = _corrected(
            backend, organization, catalog, terms, {} if spellings is None else spellings
        )
        if corrected and corrected != groups:
            matched = (corrected, True)
            products, total = _page(organization, filters, matched, ordering, limit, offset)
        if total == 0 and len(corrected) > 1:
            matched = (corrected, False)
            products, total = _page(organization, filters, matched, ordering, limit, offset)
        groups = corrected
    searched = list(dict.fromkeys(word for group in groups for word in group))
    return SearchResult(products=products, total=total, terms=searched)


Words = tuple[Sequence[Sequence[str]], bool]  # word groups, and whether every group must match


def _page(
    organization: Organization,
    filters: SearchFilters,
    words: Words | None,
    ordering: tuple[str, ...],
    limit: int,
    offset: int,
) -> tuple[list[Product], int]:
    """One page and the total in one query: the total rides along as a window count."""

    def matching() -> QuerySet[Product]:
        catalog = Product.objects.filter(organization=organization)
        filtered = apply_filters(with_paid_price(catalog), filters)
        if words is None:
            return filtered
        groups, every = words
        return text_backend().match(filtered, groups, every=every, language=organization.language)

    if limit == 0:
        return [], matching().count()
    key = (
        organization.pk,
        organization.language,
        filters,
        _hashable(words),
        ordering,
        limit,
        offset,
    )
    page: list[Product] = _compiled_pages.fetch(
        key,
        lambda: (
            matching()
            .annotate(search_total=Window(Count("pk")))
            .order_by(*ordering)[offset : offset + limit]
        ),
    )
    if page:
        return page, page[0].search_total  # type: ignore[attr-defined]
    return [], matching().count() if offset else 0


def _hashable(words: Words | None) -> tuple | None:
    if words is None:
        return None
    groups, every = words
    return tuple(tuple(group) for group in groups), every


def _corrected(
    backend: TextBackend,
    organization: Organization,
    catalog: QuerySet[Product],
    terms: list[str],
    spellings: dict[str, list[str]],
) -> list[list[str]]:
    """Each word kept if the catalog has it, else replaced by its alternatives, else dropped
    (an empty list in `spellings`)."""
    unknown = [term for term in terms if term not in spellings]
    known = set(
        SearchTerm.objects.filter(organization=organization, term__in=unknown).values_list(
            "term", flat=True
        )
        if unknown
        else ()
    )
    found: dict[str, list[str]] = {}
    for term in unknown:
        # Not a catalog name word: it may still match a description or another form of a word
        # ("watches"). count(), not exists(): with LIMIT 1 PostgreSQL scans the whole table for
        # a word that is nowhere (it expects an early hit); without, it uses the index.
        if (
            term in known
            or backend.match(catalog, [[term]], every=True, language=organization.language).count()
        ):
            found[term] = [term]
        else:
            found[term] = alternatives(backend, organization, term)
    if len(spellings) < MAX_KEPT_SPELLINGS:  # bounded, whatever words shoppers type
        spellings.update(found)
    return [group for term in terms if (group := found.get(term, spellings.get(term)))]
