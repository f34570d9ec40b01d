"""`catalog_import`: stores, product feed and local inventory, each file all-or-nothing.

Each file runs in its own savepoint inside one transaction: an unreadable file is rolled back
alone (the others still import), and with `strict` any bad row or unreadable file rolls back
the whole import. Bad rows are otherwise skipped and listed with their line numbers.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from accounts.models import Organization
from infrastructure.db_statements import statements_unprepared
from knowledge.catalog.freshness import catalog_changed
from knowledge.catalog.import_inventory import inventory_import
from knowledge.catalog.import_products import products_import
from knowledge.catalog.import_stores import stores_import
from knowledge.catalog.report import Counts, ImportReport
from knowledge.feeds.records import CountingReader, FeedFileError
from knowledge.models import ImportRun, ImportStatus


@dataclass
class ImportFile:
    stream: BinaryIO
    name: str


READ_BUFFER = 256 * 1024


class _StrictAbort(Exception):
    pass


def catalog_import(
    *,
    organization: Organization,
    feed: ImportFile | None,
    inventory: ImportFile | None = None,
    stores: ImportFile | None = None,
    full: bool = False,
    strict: bool = False,
    user: User | None = None,
    source: str = "cli",
    on_read: Callable[[int], object] | None = None,
) -> tuple[ImportReport, ImportRun]:
    """Imports the files (stores first, inventory last) and records the run in the history.

    `feed` None: no product feed this time (a scheduled sync whose product feed is unchanged).
    """
    report = ImportReport()
    started_at = timezone.now()
    steps: list[tuple[ImportFile, Callable[..., None], dict]] = []
    if stores is not None:
        steps.append((stores, stores_import, {}))
    if feed is not None:
        steps.append((feed, products_import, {"full": full}))
    if inventory is not None:
        steps.append((inventory, inventory_import, {"full": full}))
    try:
        with statements_unprepared(), transaction.atomic():
            for file, step, options in steps:
                _run_step(organization, file, step, options, report, on_read)
            if strict and (report.error_count or report.failed_files):
                raise _StrictAbort
            catalog_changed(organization=organization, words=True, urls=report.changed_urls)
    except _StrictAbort:
        report.aborted = True
        report.products, report.inventory, report.stores = Counts(), Counts(), Counts()
    run = import_run_record(
        organization=organization,
        report=report,
        user=user,
        source=source,
        feed_name=feed.name if feed else "",
        inventory_name=inventory.name if inventory else "",
        stores_name=stores.name if stores else "",
        full=full,
        strict=strict,
        started_at=started_at,
    )
    return report, run


def import_run_record(
    *,
    organization: Organization,
    report: ImportReport,
    source: str,
    started_at: datetime,
    user: User | None = None,
    feed_name: str = "",
    inventory_name: str = "",
    stores_name: str = "",
    full: bool = False,
    strict: bool = False,
) -> ImportRun:
    """The run in the import history, with its outcome and summary."""
    return ImportRun.objects.create(
        organization=organization,
        user=user,
        source=source,
        feed_name=feed_name[:255],
        inventory_name=inventory_name[:255],
        stores_name=stores_name[:255],
        full=full,
        strict=strict,
        status=ImportStatus.SUCCEEDED if report.succeeded else ImportStatus.FAILED,
        created=report.products.created,
        updated=report.products.updated,
        removed=report.products.removed,
        error_count=report.error_count,
        warning_count=report.warning_count,
        summary=report.as_json(),
        started_at=started_at,
        finished_at=timezone.now(),
    )


def _run_step(organization, file, step, options, report, on_read) -> None:
    stream: BinaryIO = file.stream
    if on_read is not None:
        stream = io.BufferedReader(CountingReader(file.stream, on_read), READ_BUFFER)
    counts_before = (copy(report.products), copy(report.inventory), copy(report.stores))
    try:
        with transaction.atomic():
            step(
                organization=organization,
                stream=stream,
                file_name=file.name,
                report=report,
                **options,
            )
    except FeedFileError as exc:
        report.failed_files.append(file.name)
        report.error(
            file=file.name,
            line=exc.line,
            message=f"{exc.message}; nothing of this file was imported",
        )
        report.products, report.inventory, report.stores = counts_before
