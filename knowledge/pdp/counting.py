"""Counting the requests of each question set (docs/api.md#request-counts: exact under
concurrency).

Every count is an atomic `UPDATE ... SET requests = requests + n` in the database, so counts
from parallel requests, workers and instances never overwrite each other.

In a server worker (gunicorn with gevent) counts are buffered in memory and added once a
second (`PDP_COUNT_FLUSH_SECONDS`), one UPDATE per set, and at worker exit: the public GET is
called on every product page view, and a database write per view would cost more than the
rest of the request. The stored count is then at most a second
behind; a worker killed without a graceful exit loses at most its last second of counts.
Anywhere else (tests, shell, `PDP_COUNT_FLUSH_SECONDS=0`) each request is counted at once.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import connection

from accounts.usage import usage_add
from infrastructure.worker_tuning import in_gevent_worker
from knowledge.models import PdpQuestionSet

logger = logging.getLogger("knowledge.pdp")


@dataclass(frozen=True)
class Counted:
    requests: int  # the stored count after this update
    updated_at: datetime  # when the set was last edited (tells the serving cache it changed)
    organization_id: uuid.UUID


def count_add(*, set_id: uuid.UUID, requests: int = 1, record_usage: bool = True) -> Counted | None:
    """Adds to a set's stored count atomically; None when the set no longer exists.

    Also adds the requests to the organization's usage of the day unless the caller does it.
    """
    param: Any = set_id if connection.vendor == "postgresql" else set_id.hex
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {PdpQuestionSet._meta.db_table} SET requests = requests + %s "
            "WHERE id = %s RETURNING requests, updated_at, organization_id",
            [requests, param],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    counted = Counted(
        requests=row[0], updated_at=_aware(row[1]), organization_id=uuid.UUID(str(row[2]))
    )
    if record_usage:
        usage_add(organization_id=counted.organization_id, pdp_requests=requests)
    return counted


def count_read(*, set_id: uuid.UUID) -> Counted | None:
    """A set's stored count, adding nothing; None when the set no longer exists."""
    row = (
        PdpQuestionSet.objects.filter(pk=set_id)
        .values_list("requests", "updated_at", "organization_id")
        .first()
    )
    if row is None:
        return None
    return Counted(requests=row[0], updated_at=_aware(row[1]), organization_id=row[2])


def _aware(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    # SQLite returns naive UTC text, as Django writes it with USE_TZ.
    return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)


Written = Callable[[dict[uuid.UUID, Counted | None]], None]


class RequestBuffer:
    """Counts per set held in this process until the next flush; after each timed flush it
    tells `written` what the database now holds (the serving cache takes the new counts)."""

    def __init__(self, *, written: Written | None = None) -> None:
        self._written = written
        self._pending: Counter[uuid.UUID] = Counter()
        self._flushing: Counter[uuid.UUID] = Counter()  # taken by a flush, not yet written
        self._lock = threading.Lock()
        self._flusher_started = False

    def add(self, set_id: uuid.UUID) -> None:
        with self._lock:
            self._pending[set_id] += 1
            start = not self._flusher_started
            self._flusher_started = True
        if start:
            self._start_flusher()

    def writing(self, set_id: uuid.UUID) -> bool:
        """Whether a flush is writing the set's counts right now."""
        return set_id in self._flushing

    def unwritten(self, set_id: uuid.UUID) -> int:
        """This process's counts of the set that the database does not hold yet."""
        return self._pending.get(set_id, 0) + self._flushing.get(set_id, 0)

    def flush(self, written: Written | None = None) -> None:
        """Writes every buffered count, then tells `written` what the database now holds
        (None for a set deleted meanwhile: its counts go with it)."""
        with self._lock:
            self._flushing, self._pending = self._pending, Counter()
        stored: dict[uuid.UUID, Counted | None] = {}
        done: set[uuid.UUID] = set()
        try:
            for set_id, requests in list(self._flushing.items()):
                counted = count_add(set_id=set_id, requests=requests, record_usage=False)
                # The database holds these now: stop reporting them as unwritten before the
                # next statement yields, or a request loading the set would count them twice.
                with self._lock:
                    del self._flushing[set_id]
                stored[set_id] = counted
                done.add(set_id)
                if counted is not None:
                    # The day's usage record (GET /v1/usage) takes the same batch.
                    usage_add(organization_id=counted.organization_id, pdp_requests=requests)
        except Exception:
            # Database away: keep the counts for the next flush rather than lose them.
            with self._lock:
                for set_id, requests in self._flushing.items():
                    if set_id not in done:
                        self._pending[set_id] += requests
            logger.warning("could not write PDP request counts; will retry", exc_info=True)
        finally:
            connection.close()  # back to the pool: this may run outside any request
        if written is not None:
            written(stored)
        self._flushing = Counter()

    def _start_flusher(self) -> None:
        import gevent

        interval = float(settings.PDP_COUNT_FLUSH_SECONDS)

        def run() -> None:
            while True:
                gevent.sleep(interval)
                try:
                    self.flush(self._written)
                except Exception:  # never let the flusher die: counts would wait for exit
                    logger.exception("PDP request count flush failed")

        gevent.spawn(run)


def buffering() -> bool:
    """Whether this process buffers counts: a gevent server worker with a flush interval."""
    interval = float(settings.PDP_COUNT_FLUSH_SECONDS)
    known = _buffering.get(interval)
    if known is None:
        known = _buffering[interval] = interval > 0 and in_gevent_worker()
    return known


_buffering: dict[float, bool] = {}
