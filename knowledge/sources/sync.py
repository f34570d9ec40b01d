"""`catalog_sources_sync`: fetches the feeds of each source that is due and imports what changed.

Each source is claimed first (knowledge/sources/schedule.py), so overlapping runs (a cron job
that ran long, a scheduler on each instance) never fetch the same source at once. A feed
answering 304 costs that one request; when every feed of a source is unchanged, the sync writes
nothing to the database (with Redis keeping the schedule). Otherwise the changed files are
imported by the feed import itself (`catalog_import`: each file all-or-nothing, a full product
feed with no importable row removes nothing) and the run is recorded in the import history, as
is a fetch that failed (then nothing is imported, and the next run fetches everything again).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import IO

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Organization
from knowledge.catalog.report import ImportReport
from knowledge.catalog.services import ImportFile, catalog_import, import_run_record
from knowledge.models import FeedAuth, FeedSource
from knowledge.sources.credentials import UnreadableSecret, secret_decrypt
from knowledge.sources.fetch import Credentials, Fetched, FetchError, feed_fetch
from knowledge.sources.schedule import ScheduleUnavailable, source_claim, sources_due

SOURCE = "sync"
# Stores first, products, then inventory (which needs both), as catalog_import runs them.
FEEDS = (("stores", "stores_url"), ("products", "products_url"), ("inventory", "inventory_url"))
UNCHANGED, SUCCEEDED, FAILED = "unchanged", "succeeded", "failed"


@dataclass
class SyncOutcome:
    organization: Organization
    status: str  # unchanged, succeeded or failed
    message: str = ""
    import_run_id: int | None = None

    def as_json(self) -> dict:
        return {
            "organizationId": str(self.organization.pk),
            "status": self.status,
            "message": self.message,
            "importRunId": self.import_run_id,
        }


def catalog_sources_sync(
    *, now: dt.datetime | None = None, sources: QuerySet[FeedSource] | None = None
) -> list[SyncOutcome]:
    """Syncs the sources that are due, or `sources` now whatever their schedule; each one
    only if this run claims it (no other run is fetching it)."""
    now = now or timezone.now()
    forced = sources is not None
    outcomes = []
    for source in sources if sources is not None else sources_due(now=now):
        try:
            claim = source_claim(source=source, now=now, forced=forced)
        except ScheduleUnavailable as exc:
            outcomes.append(SyncOutcome(source.organization, FAILED, str(exc)))
            continue
        if claim is None:
            continue
        try:
            outcomes.append(source_sync(source=source))
        finally:
            claim.release()
    return outcomes


def source_sync(*, source: FeedSource) -> SyncOutcome:
    """Fetches the source's feeds (conditionally) and imports those that changed."""
    organization = source.organization
    started_at = timezone.now()
    report = ImportReport()  # the fetches' retries, kept if the run fails
    try:
        fetched = _fetch_all(source, report)
    except (FetchError, UnreadableSecret) as exc:
        return _fetch_failed(source, started_at, exc, report)

    changed = {kind: result for kind, result in fetched.items() if result.body is not None}
    if not changed:
        return SyncOutcome(organization, UNCHANGED, "every feed is unchanged")
    try:
        files = {
            kind: ImportFile(stream=changed[kind].body, name=getattr(source, attribute))  # type: ignore[arg-type]
            for kind, attribute in FEEDS
            if kind in changed
        }
        report, run = catalog_import(
            organization=organization,
            feed=files.get("products"),
            inventory=files.get("inventory"),
            stores=files.get("stores"),
            full=source.full,
            source=SOURCE,
        )
    finally:
        for result in changed.values():
            _close(result.body)
    if not report.succeeded:
        # The validators stay those of the last import, so the next run fetches it all again.
        return SyncOutcome(organization, FAILED, _first_error(report), run.pk)
    _validators_save(source, changed)
    return SyncOutcome(organization, SUCCEEDED, report.as_text().splitlines()[0], run.pk)


def _fetch_all(source: FeedSource, report: ImportReport) -> dict[str, Fetched]:
    """Each configured feed, its body None when unchanged; on a failure none stays open."""
    fetched: dict[str, Fetched] = {}
    try:
        credentials = source_credentials(source)
        for kind, attribute in FEEDS:
            url = getattr(source, attribute)
            if url:
                fetched[kind] = _fetch(source, kind, url, credentials, report)
    except BaseException:
        for result in fetched.values():
            _close(result.body)
        raise
    return fetched


def _fetch_failed(
    source: FeedSource, started_at: dt.datetime, exc: Exception, report: ImportReport
) -> SyncOutcome:
    """A failed run, recorded in the import history like any import."""
    report.error(file=source.products_url, line=None, message=str(exc))
    report.failed_files.append(source.products_url)
    run = import_run_record(
        organization=source.organization,
        report=report,
        source=SOURCE,
        started_at=started_at,
        feed_name=source.products_url,
        inventory_name=source.inventory_url,
        stores_name=source.stores_url,
        full=source.full,
    )
    return SyncOutcome(source.organization, FAILED, str(exc), run.pk)


def _validators_save(source: FeedSource, changed: dict[str, Fetched]) -> None:
    """The ETag and Last-Modified of each feed imported, for the next run's conditional GET."""
    validators = dict(source.cache_validators)
    for kind, result in changed.items():
        validators[kind] = {
            "url": getattr(source, dict(FEEDS)[kind]),
            "etag": result.etag,
            "last_modified": result.last_modified,
        }
    FeedSource.objects.filter(pk=source.pk).update(cache_validators=validators)
    source.cache_validators = validators


def source_credentials(source: FeedSource) -> Credentials:
    secret = secret_decrypt(source.secret_encrypted)
    if source.auth == FeedAuth.BASIC:
        return Credentials(username=source.username, password=secret)
    if source.auth == FeedAuth.HEADER and source.header_name:
        return Credentials(header_name=source.header_name, header_value=secret)
    return Credentials()


def _fetch(
    source: FeedSource, kind: str, url: str, credentials: Credentials, report: ImportReport
) -> Fetched:
    known = source.cache_validators.get(kind) or {}
    same_url = known.get("url") == url
    try:
        result = feed_fetch(
            url,
            etag=known.get("etag", "") if same_url else "",
            last_modified=known.get("last_modified", "") if same_url else "",
            credentials=credentials,
        )
    except FetchError as exc:
        raise FetchError(f"{kind} feed {url[:200]}: {exc.message}; nothing was imported") from exc
    for failure in result.attempts:
        report.warning(file=url, line=None, message=f"retried after: {failure}")
    return result


def _first_error(report: ImportReport) -> str:
    return report.errors[0]["message"] if report.errors else "the import failed"


def _close(body: IO[bytes] | None) -> None:
    if body is not None:
        body.close()
