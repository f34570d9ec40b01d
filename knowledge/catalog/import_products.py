"""Upsert of a product feed in batches; `full` removes the organization's items not in it."""

from __future__ import annotations

from typing import BinaryIO

from django.db import connection
from django.utils import timezone

from accounts.models import Organization
from knowledge.catalog.report import ImportReport
from knowledge.feeds.products import IMPORTED_FIELDS, ProductRow, missing_columns, product_row
from knowledge.feeds.reading import read_records
from knowledge.feeds.records import FeedFileError
from knowledge.models import Product
from knowledge.pdp.generation import questions_inputs_differ
from knowledge.search.schema_postgres import SEARCH_VECTOR_INDEX
from knowledge.search.vocabulary import product_terms, search_terms_add, search_terms_replace

BATCH_SIZE = 1000
# After this many changed rows PostgreSQL's search index and planner statistics are brought up
# to date at once: with stale statistics it scans a whole organization instead of using the
# full-text index.
ANALYZE_AFTER_CHANGES = 1000


def products_import(
    *,
    organization: Organization,
    stream: BinaryIO,
    file_name: str,
    full: bool,
    report: ImportReport,
) -> None:
    """Reads the feed and writes it; raises FeedFileError (the caller rolls back)."""
    seen: dict[str, int] = {}  # item id -> first line; also the ids a full import keeps
    terms: set[str] = set()
    batch: list[ProductRow] = []
    rows = imported = 0
    for record in read_records(stream):
        rows += 1
        if rows == 1 and (missing := missing_columns(record)):
            # Every row would fail, and a full import would then remove the whole catalog.
            raise FeedFileError(f"the header has no {', '.join(missing)} column", line=1)
        row = product_row(record)
        if row.item_id:
            first_line = seen.setdefault(row.item_id, row.line)
            if first_line != row.line:
                row.problems.append(f"id: duplicate of line {first_line}")
        if row.problems:
            # A bad row keeps the item's previous version (a full import does not remove it).
            report.error(
                file=file_name, line=row.line, item_id=row.item_id, message="; ".join(row.problems)
            )
            continue
        for warning in row.warnings:
            report.warning(file=file_name, line=row.line, item_id=row.item_id, message=warning)
        terms |= row_terms(row)
        batch.append(row)
        imported += 1
        if len(batch) >= BATCH_SIZE:
            _write(organization, batch, report)
            batch = []
    _write(organization, batch, report)
    if full and not imported:
        # A feed that suddenly has no rows (a broken export) must not empty the catalog.
        reason = "no row could be imported" if rows else "the feed has no items"
        raise FeedFileError(f"{reason}: a full import would have removed every product")
    if full:
        report.products.removed += _remove_missing(organization, seen)
        search_terms_replace(organization=organization, terms=terms)
    else:
        search_terms_add(organization=organization, terms=terms)
    counts = report.products
    if counts.created + counts.updated + counts.removed >= ANALYZE_AFTER_CHANGES:
        _refresh_statistics()


TERM_FIELDS = ("title", "brand", "product_type", "google_product_category", "color", "material")


def _write(organization: Organization, rows: list[ProductRow], report: ImportReport) -> None:
    outcomes = products_write(organization=organization, rows=rows, pages=report.changed_urls)
    for outcome in outcomes.values():
        if outcome == CREATED:
            report.products.created += 1
        elif outcome == UPDATED:
            report.products.updated += 1


CREATED, UPDATED, UNCHANGED = "created", "updated", "unchanged"


def products_write(
    *, organization: Organization, rows: list[ProductRow], pages: set[str] | None = None
) -> dict[str, str]:
    """Upserts checked rows (unique item ids): item id -> created, updated or unchanged.

    The one write of product rows, for the feed import and the catalog API alike. `pages`
    receives the URLs of the products whose PDP questions may change (new ones, and changes
    the questions read: knowledge/pdp/generation.py).
    """
    if not rows:
        return {}
    existing = {
        values["item_id"]: values
        for values in Product.objects.filter(
            organization=organization, item_id__in=[row.item_id for row in rows]
        ).values("item_id", *IMPORTED_FIELDS)
    }
    now = timezone.now()
    outcomes: dict[str, str] = {}
    changed: list[Product] = []
    for row in rows:
        old = existing.get(row.item_id)
        if old is None:
            outcomes[row.item_id] = CREATED
        elif any(old[name] != row.fields[name] for name in IMPORTED_FIELDS):
            outcomes[row.item_id] = UPDATED
        else:
            outcomes[row.item_id] = UNCHANGED  # re-importing the same feed changes nothing
            continue
        if pages is not None and (old is None or questions_inputs_differ(old, row.fields)):
            pages.add(row.fields["url"])
        changed.append(
            Product(
                organization=organization,
                item_id=row.item_id,
                created_at=now,
                updated_at=now,
                **row.fields,
            )
        )
    if changed:
        # Rows locked in item id order: concurrent batches (catalog API clients, an import)
        # touching the same items wait for each other instead of deadlocking.
        changed.sort(key=lambda product: product.item_id)
        # One INSERT .. ON CONFLICT per batch; created_at is kept on update.
        Product.objects.bulk_create(
            changed,
            update_conflicts=True,
            unique_fields=["organization", "item_id"],
            update_fields=[*IMPORTED_FIELDS, "updated_at"],
        )
    return outcomes


def row_terms(row: ProductRow) -> set[str]:
    """The searchable words of a checked row (for typo correction)."""
    return product_terms(**{name: row.fields[name] for name in TERM_FIELDS})


def _remove_missing(organization: Organization, seen: dict[str, int]) -> int:
    missing = [
        pk
        for pk, item_id in Product.objects.filter(organization=organization)
        .values_list("pk", "item_id")
        .iterator(chunk_size=5000)
        if item_id not in seen
    ]
    removed = 0
    for start in range(0, len(missing), BATCH_SIZE):
        chunk = missing[start : start + BATCH_SIZE]
        _, per_model = Product.objects.filter(pk__in=chunk).delete()
        removed += per_model.get(Product._meta.label, 0)
    return removed


def _refresh_statistics() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # New index entries wait in the GIN pending list, which every search scans
            # linearly until a vacuum; after a big import, merging it halves search latency.
            cursor.execute(f"SELECT gin_clean_pending_list('{SEARCH_VECTOR_INDEX}')")
            cursor.execute("ANALYZE knowledge_product")
            cursor.execute("ANALYZE knowledge_searchterm")
