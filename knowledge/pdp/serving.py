"""Serving a stored set to the public endpoints: a per-process cache in front of one query.

A set changes rarely (an operator edits it) and is read on every product page view, so each
worker keeps the sets it served, by (organization, canonical URL), and counts the request
(counting.py). An edit is seen at once where the count is written per request, else at the
worker's next flush (at most `PDP_COUNT_FLUSH_SECONDS` later): both return the set's
`updated_at`, which every admin edit and regeneration moves. Entries expire after a minute
(the `max-age` browsers are told anyway), which bounds what an edit made outside the admin,
or a change of the organization's allowed origins, takes to show.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from knowledge.models import PdpQuestionSet
from knowledge.pdp.counting import Counted, RequestBuffer, buffering, count_add, count_read
from knowledge.pdp.selectors import FoundQuestionSet

ENTRY_SECONDS = 60.0
MAX_ENTRIES = 10_000

_COLUMNS = (
    "id",
    "organization_id",
    "product_title",
    "url",
    "requests",
    "created_at",
    "updated_at",
    "organization__allowed_origins",
    "questions__id",
    "questions__text",
    "questions__rank",
)

Key = tuple[uuid.UUID, str]


@dataclass
class _Entry:
    found: FoundQuestionSet  # `requests` as the database last told this process
    updated_at: datetime
    expires: float
    counted_at: float  # when the database told it (time.monotonic())


class ServedSets:
    """The sets this process served, least recently used dropped first."""

    def __init__(self) -> None:
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        self._keys: dict[uuid.UUID, Key] = {}
        self._lock = threading.Lock()

    def get(self, key: Key) -> _Entry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.expires < time.monotonic():
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return entry

    def put(self, key: Key, entry: _Entry) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            self._keys[entry.found.id] = key
            while len(self._entries) > MAX_ENTRIES:
                self._drop(next(iter(self._entries)))

    def evict(self, set_id: uuid.UUID) -> None:
        with self._lock:
            key = self._keys.get(set_id)
            if key is not None:
                self._drop(key)

    def refresh(self, stored: dict[uuid.UUID, Counted | None]) -> None:
        """After a flush: new counts for unchanged sets; edited or deleted sets dropped."""
        with self._lock:
            for set_id, counted in stored.items():
                key = self._keys.get(set_id)
                if key is None:
                    continue
                entry = self._entries.get(key)
                if entry is None:
                    continue
                if counted is None or counted.updated_at != entry.updated_at:
                    self._drop(key)
                else:
                    entry.found = dataclasses.replace(entry.found, requests=counted.requests)
                    entry.counted_at = time.monotonic()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._keys.clear()

    def _drop(self, key: Key) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._keys.pop(entry.found.id, None)


served_sets = ServedSets()
# This process's buffered counts (counting.py); each timed flush refreshes the served sets.
buffer = RequestBuffer(written=served_sets.refresh)


def flush_pending() -> None:
    """Writes buffered counts now (gunicorn's worker_exit hook calls it)."""
    buffer.flush()


def question_set_serve(*, organization_id: uuid.UUID, url: str) -> FoundQuestionSet | None:
    """The set stored for (organization, canonical url) with this request counted, or None."""
    key = (organization_id, url)
    entry = served_sets.get(key) or _load(key)
    if entry is None:
        return None
    if buffering():
        if time.monotonic() - entry.counted_at > float(settings.PDP_COUNT_FLUSH_SECONDS):
            entry = _recounted(key, entry)
            if entry is None:
                return None
        buffer.add(entry.found.id)
        requests = entry.found.requests + buffer.unwritten(entry.found.id)
        return dataclasses.replace(entry.found, requests=requests)

    counted = count_add(set_id=entry.found.id)
    if counted is None or counted.updated_at != entry.updated_at:
        # Deleted (perhaps created again) or edited since cached: read it again.
        served_sets.evict(entry.found.id)
        entry = _load(key)
        if entry is None:
            return None
        if counted is None:
            counted = count_add(set_id=entry.found.id)
            if counted is None:
                return None
    return dataclasses.replace(entry.found, requests=counted.requests)


def _recounted(key: Key, entry: _Entry) -> _Entry | None:
    """The entry with its stored count read again.

    A flush refreshes the counts of the sets it wrote. A set this worker served no request of
    for a while kept the count of its last flush, behind every other worker's counts since:
    its next response would say fewer requests than responses of other workers had (for as
    long as the entry lived, a minute). Read once a flush interval at most per set.
    """
    if buffer.writing(entry.found.id):
        return entry  # the flush refreshes it as soon as its count is written
    served_sets.refresh({entry.found.id: count_read(set_id=entry.found.id)})
    return served_sets.get(key) or _load(key)


def _load(key: Key) -> _Entry | None:
    """The set and its questions by rank, with the organization's origins, in one query."""
    organization_id, url = key
    rows = list(
        PdpQuestionSet.objects.filter(organization_id=organization_id, url=url)
        .order_by("questions__rank", "questions__id")
        .values_list(*_COLUMNS)
    )
    if not rows:
        return None
    set_id, org_id, title, set_url, requests, created_at, updated_at, origins = rows[0][:8]
    questions = [
        {"id": str(question_id), "text": text, "rank": rank}
        for *_, question_id, text, rank in rows
        if question_id is not None
    ]
    found = FoundQuestionSet.build(
        id=set_id,
        requests=requests,
        allowed_origins=list(origins or []),
        fields={
            "id": str(set_id),
            "organizationId": str(org_id),
            "productTitle": title,
            "url": set_url,
            "createdAt": created_at,
            "questions": questions,
        },
    )
    now = time.monotonic()
    entry = _Entry(found=found, updated_at=updated_at, expires=now + ENTRY_SECONDS, counted_at=now)
    served_sets.put(key, entry)
    return entry
