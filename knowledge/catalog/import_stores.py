"""Upsert of the organization's stores from a stores file (never removes a store)."""

from __future__ import annotations

from typing import BinaryIO

from accounts.models import Organization
from knowledge.catalog.report import ImportReport
from knowledge.feeds.reading import read_records
from knowledge.feeds.stores import store_row
from knowledge.models import Store


def stores_import(
    *, organization: Organization, stream: BinaryIO, file_name: str, report: ImportReport
) -> None:
    existing = {store.code: store for store in Store.objects.filter(organization=organization)}
    seen: dict[str, int] = {}
    for record in read_records(stream):
        row = store_row(record)
        if row.code:
            first_line = seen.setdefault(row.code, row.line)
            if first_line != row.line:
                row.problems.append(f"store_code: duplicate of line {first_line}")
        if row.problems:
            report.error(
                file=file_name, line=row.line, item_id=row.code, message="; ".join(row.problems)
            )
            continue
        store = existing.get(row.code)
        if store is None:
            existing[row.code] = Store.objects.create(
                organization=organization, code=row.code, name=row.name
            )
            report.stores.created += 1
        elif store.name != row.name:
            store.name = row.name
            store.save(update_fields=["name"])
            report.stores.updated += 1
