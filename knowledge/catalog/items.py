"""Item by item catalog changes (the catalog API): upserts, partial updates, deletes, store stock.

Every item is checked by the feed import's own row checks (knowledge/feeds), so an item the
API refuses is one a feed would skip, with the same message, and written by the import's own
writes. A batch is one transaction: its valid items are all written, or none if the database
fails; each invalid item gets its own result and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from accounts.models import Organization
from infrastructure.db_statements import statements_unprepared
from knowledge.catalog.freshness import catalog_changed
from knowledge.catalog.import_inventory import inventory_write
from knowledge.catalog.import_products import (
    CREATED,
    TERM_FIELDS,
    UNCHANGED,
    products_write,
    row_terms,
)
from knowledge.feeds.inventory import inventory_row
from knowledge.feeds.products import ProductRow, product_row, product_values
from knowledge.feeds.records import RawRecord
from knowledge.models import Product, Store
from knowledge.search.vocabulary import search_terms_add

PUT, PATCH, DELETE = "PUT", "PATCH", "DELETE"
MAX_BATCH_ITEMS = 1000
PRODUCT_NOT_FOUND = "Product not found: {item_id}"
STORE_NOT_FOUND = "Store not found: {store_code}"
ID_DIFFERS = "id: differs from the item's id {item_id!r}"
DUPLICATE_ITEM = "id: duplicate of item {index}"
# Fields of the words the assistant recognizes in messages (knowledge/engines/catalog/
# vocabulary.py): a change of one of them, or a new or removed product, renews those words.
VOCABULARY_FIELDS = (
    "brand",
    "product_type",
    "google_product_category",
    "color",
    "size",
    "material",
    "gender",
    "currency",
)


@dataclass
class ItemChange:
    method: str  # PUT (the whole item), PATCH (the attributes given), DELETE
    item_id: str
    values: dict[str, str] = field(default_factory=dict)  # feed attributes, as a feed has them


@dataclass
class ItemResult:
    item_id: str
    status: int  # as the single-item request would answer: 200, 201, 204, 404 or 422
    message: str = ""
    errors: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def catalog_items_apply(
    *, organization: Organization, changes: list[ItemChange]
) -> list[ItemResult]:
    """Checks and writes the changes in one transaction; one result per change, in order."""
    # Batch statements planned for their values, as the import's (infrastructure/db_statements).
    with statements_unprepared(), transaction.atomic():
        return _apply(organization, changes)


def _apply(organization: Organization, changes: list[ItemChange]) -> list[ItemResult]:
    existing = {
        product.item_id: product
        for product in Product.objects.filter(
            organization=organization, item_id__in={change.item_id for change in changes}
        )
    }
    results, rows, deleted = _checked(changes, existing)
    pages: set[str] = set()
    outcomes = products_write(organization=organization, rows=[row for _, row in rows], pages=pages)
    for result, _row in rows:
        if outcomes[result.item_id] == CREATED:
            result.status = 201
    if deleted:
        Product.objects.filter(pk__in=[product.pk for product in deleted]).delete()
    written = [
        (existing.get(row.item_id), row)
        for result, row in rows
        if outcomes[result.item_id] != UNCHANGED
    ]
    _renew(organization, written, deleted=bool(deleted), pages=pages)
    return results


def _checked(
    changes: list[ItemChange], existing: dict[str, Product]
) -> tuple[list[ItemResult], list[tuple[ItemResult, ProductRow]], list[Product]]:
    """A result per change; the rows to write (with their results) and the products to delete."""
    results: list[ItemResult] = []
    rows: list[tuple[ItemResult, ProductRow]] = []
    deleted: list[Product] = []
    first_index: dict[str, int] = {}
    for index, change in enumerate(changes):
        result = ItemResult(item_id=change.item_id, status=200)
        results.append(result)
        first = first_index.setdefault(change.item_id, index)
        if first != index:
            _refuse(result, [DUPLICATE_ITEM.format(index=first)])
            continue
        product = existing.get(change.item_id)
        if product is None and change.method != PUT:
            result.status = 404
            result.message = PRODUCT_NOT_FOUND.format(item_id=change.item_id)
        elif product is not None and change.method == DELETE:
            result.status = 204
            deleted.append(product)
        elif (row := _checked_row(change, product)).problems:
            _refuse(result, row.problems)
        else:
            result.warnings = row.warnings
            rows.append((result, row))
    return results, rows, deleted


def _renew(
    organization: Organization,
    written: list[tuple[Product | None, ProductRow]],
    *,
    deleted: bool,
    pages: set[str],
) -> None:
    """What the written rows (with the products they replaced) change beyond themselves: the
    words search corrects to, and what workers keep (knowledge/catalog/freshness.py)."""

    def changed(old: Product | None, row: ProductRow, names: tuple[str, ...]) -> bool:
        return old is None or any(getattr(old, name) != row.fields[name] for name in names)

    terms: set[str] = set()
    for old, row in written:
        if changed(old, row, TERM_FIELDS):
            terms |= row_terms(row)
    if terms:
        search_terms_add(organization=organization, terms=terms)
    words = deleted or any(changed(old, row, VOCABULARY_FIELDS) for old, row in written)
    catalog_changed(organization=organization, words=words, urls=pages)


def _checked_row(change: ItemChange, product: Product | None) -> ProductRow:
    given_id = change.values.get("id", change.item_id)
    values = dict(change.values, id=change.item_id)
    if change.method == PATCH and product is not None:
        values = {**product_values(product), **values}
    row = product_row(RawRecord(line=0, values=values))
    if given_id != change.item_id:
        row.problems.insert(0, ID_DIFFERS.format(item_id=change.item_id))
    return row


def _refuse(result: ItemResult, problems: list[str]) -> None:
    """A 422 result with the feed import's problems by attribute ("price: ..." -> price)."""
    result.status = 422
    for problem in problems:
        attribute, _, message = problem.partition(": ")
        if not message:
            attribute, message = "body", problem
        result.errors.setdefault(attribute, []).append(message)
    result.message = problems[0]


@dataclass
class StockResult:
    status: int  # 200 updated or unchanged, 201 created, 404, 422
    message: str = ""
    errors: dict[str, list[str]] = field(default_factory=dict)


@transaction.atomic
def store_stock_put(
    *, organization: Organization, store_code: str, item_id: str, values: dict[str, str]
) -> StockResult:
    """Sets one product's stock in one store, checked as a local inventory feed row.

    `values`: `availability`, `quantity` and any further attributes (the store's `location`
    details), as the local inventory feed has them.
    """
    store = Store.objects.filter(organization=organization, code=store_code).first()
    if store is None:
        return StockResult(404, STORE_NOT_FOUND.format(store_code=store_code))
    product = Product.objects.filter(organization=organization, item_id=item_id).first()
    if product is None:
        return StockResult(404, PRODUCT_NOT_FOUND.format(item_id=item_id))
    given = {name: value for name, value in values.items() if name not in ("store_code", "id")}
    record = RawRecord(
        line=0,
        values={**given, "store_code": store_code, "id": item_id},
        columns=["store_code", "id", *given],
    )
    row = inventory_row(record)
    if row.problems:
        refused = ItemResult(item_id=item_id, status=422)
        _refuse(refused, row.problems)
        return StockResult(422, refused.message, refused.errors)
    restocked: set[int] = set()
    (outcome,) = inventory_write(
        stores={store_code: store}, products={item_id: product.pk}, rows=[row], restocked=restocked
    )
    if restocked:
        # The questions ask which stores have it while one does (knowledge/pdp/generation.py).
        catalog_changed(organization=organization, words=False, urls={product.url})
    return StockResult(201 if outcome == CREATED else 200)
