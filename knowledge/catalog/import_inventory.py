"""Upsert of a local inventory feed; `full` removes inventory rows missing from it.

A product whose stock in some store came or went (IN_STORE_STOCK) has its URL in the report's
`changed_urls`: whether a PDP asks "Which stores have it in stock?" depends on it. A new
quantity of stock that stays in stock changes no question, so it regenerates nothing.
"""

from __future__ import annotations

from typing import BinaryIO

from accounts.models import Organization
from knowledge.catalog.report import ImportReport
from knowledge.feeds.inventory import InventoryRow, inventory_row
from knowledge.feeds.reading import read_records
from knowledge.models import Product, Store, StoreInventory, in_store_stock

BATCH_SIZE = 1000
_FIELDS = ("availability", "quantity", "location")


def inventory_import(
    *,
    organization: Organization,
    stream: BinaryIO,
    file_name: str,
    full: bool,
    report: ImportReport,
) -> None:
    stores = {store.code: store for store in Store.objects.filter(organization=organization)}
    seen: dict[tuple[str, str], int] = {}  # (store code, item id) -> first line
    batch: list[InventoryRow] = []
    kept: set[tuple[int, int]] = set()  # (store pk, product pk) written or unchanged
    restocked: set[int] = set()  # pks of products whose store stock came or went
    skipped: set[tuple[str, str]] = set()  # (store code, item id) of bad rows
    for record in read_records(stream):
        row = inventory_row(record)
        if row.store_code and row.store_code not in stores:
            row.problems.append(f'store_code: unknown store "{row.store_code}"')
        key = (row.store_code, row.item_id)
        if all(key):
            first_line = seen.setdefault(key, row.line)
            if first_line != row.line:
                row.problems.append(f"duplicate of line {first_line}")
        if row.problems:
            skipped.add(key)  # its previous entry is kept, even by a full import
            report.error(
                file=file_name, line=row.line, item_id=row.item_id, message="; ".join(row.problems)
            )
            continue
        batch.append(row)
        if len(batch) >= BATCH_SIZE:
            _write(organization, stores, batch, report, file_name, kept, restocked)
            batch = []
    _write(organization, stores, batch, report, file_name, kept, restocked)
    if full:
        report.inventory.removed += _remove_missing(organization, kept, skipped, restocked)
    restocked_list = sorted(restocked)
    for start in range(0, len(restocked_list), BATCH_SIZE):
        chunk = restocked_list[start : start + BATCH_SIZE]
        report.changed_urls.update(
            Product.objects.filter(pk__in=chunk).values_list("url", flat=True)
        )


def _write(
    organization: Organization,
    stores: dict[str, Store],
    rows: list[InventoryRow],
    report: ImportReport,
    file_name: str,
    kept: set[tuple[int, int]],
    restocked: set[int],
) -> None:
    if not rows:
        return
    products = dict(
        Product.objects.filter(
            organization=organization, item_id__in={row.item_id for row in rows}
        ).values_list("item_id", "pk")
    )
    known: list[InventoryRow] = []
    for row in rows:
        if row.item_id in products:
            known.append(row)
            kept.add((stores[row.store_code].pk, products[row.item_id]))
        else:
            report.error(file=file_name, line=row.line, item_id=row.item_id, message=NOT_IN_CATALOG)
    written = inventory_write(stores=stores, products=products, rows=known, restocked=restocked)
    for outcome in written:
        if outcome == CREATED:
            report.inventory.created += 1
        elif outcome == UPDATED:
            report.inventory.updated += 1


NOT_IN_CATALOG = "id: not in the catalog"
CREATED, UPDATED, UNCHANGED = "created", "updated", "unchanged"


def inventory_write(
    *,
    stores: dict[str, Store],
    products: dict[str, int],
    rows: list[InventoryRow],
    restocked: set[int],
) -> list[str]:
    """Upserts checked rows of known stores and products: created, updated or unchanged each.
    Adds to `restocked` the pks of products whose stock in a store came or went.

    The one write of store stock, for the feed import and the catalog API alike.
    """
    existing = {
        (values["store_id"], values["product_id"]): values
        for values in StoreInventory.objects.filter(
            product_id__in={products[row.item_id] for row in rows}
        ).values("store_id", "product_id", *_FIELDS)
    }
    outcomes: list[str] = []
    changed: list[StoreInventory] = []
    for row in rows:
        store, product_pk = stores[row.store_code], products[row.item_id]
        new = {"availability": row.availability, "quantity": row.quantity, "location": row.location}
        old = existing.get((store.pk, product_pk))
        was_in_stock = old is not None and in_store_stock(old["availability"], old["quantity"])
        if was_in_stock != in_store_stock(row.availability, row.quantity):
            restocked.add(product_pk)
        if old is None:
            outcomes.append(CREATED)
        elif any(old[name] != new[name] for name in _FIELDS):
            outcomes.append(UPDATED)
        else:
            outcomes.append(UNCHANGED)
            continue
        changed.append(StoreInventory(store=store, product_id=product_pk, **new))
    if changed:
        StoreInventory.objects.bulk_create(
            changed,
            update_conflicts=True,
            unique_fields=["product", "store"],
            update_fields=list(_FIELDS),
        )
    return outcomes


def _remove_missing(
    organization: Organization,
    kept: set[tuple[int, int]],
    skipped: set[tuple[str, str]],
    restocked: set[int],
) -> int:
    rows = StoreInventory.objects.filter(store__organization=organization).values_list(
        "pk",
        "store_id",
        "product_id",
        "store__code",
        "product__item_id",
        "availability",
        "quantity",
    )
    missing = []
    for pk, store_pk, product_pk, store_code, item_id, availability, quantity in rows:
        if (store_pk, product_pk) in kept or (store_code, item_id) in skipped:
            continue
        missing.append(pk)
        if in_store_stock(availability, quantity):
            restocked.add(product_pk)
    removed = 0
    for start in range(0, len(missing), BATCH_SIZE):
        chunk = missing[start : start + BATCH_SIZE]
        removed += StoreInventory.objects.filter(pk__in=chunk).delete()[0]
    return removed
