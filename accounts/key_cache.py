"""A per-process cache of API key rows, so most requests do not query their key.

A revoked key is refused by every worker within 1 second (docs/api.md#authentication).
An entry is fresh for
`API_KEY_CACHE_SECONDS` (0.5 s by default, never above 1; 0 turns the cache off), and a
revocation made in this process drops its entry at once. When an entry goes stale, one
request reads the row again while the worker's other requests keep the stale entry, never
past `MAX_AGE_SECONDS`: without that, every request in flight at that moment queried the
same row at once, waiting on each other for pool connections (the p99 of a cached GET chat
was 15-20 times its p50 under load). Past it, or with no entry yet, the requests that arrive
while one of them reads the row wait for that read instead of each reading it: a burst after
a quiet second (100 replies starting at once) costs one query, not one per request. Only
column values are kept: each
request gets fresh model instances, and the secret is still checked against the stored hash
on every request. Unknown prefixes are never cached, so made-up keys cannot grow it.
"""

from __future__ import annotations

import copy
import threading
import time
from typing import Any

from django.conf import settings

from accounts.models import ApiKey, Organization
from infrastructure.model_rows import instance_from_values

# More distinct keys than this in one process is not a real deployment: start again.
MAX_ENTRIES = 10_000
# The documented bound (docs/api.md#authentication) on serving a key row that may have been
# revoked since it was read.
MAX_AGE_SECONDS = 1.0
# A request waits this long at most for another's read of its key row, then reads it itself.
READ_WAIT_SECONDS = 5.0

_Values = dict[str, Any]
_entries: dict[str, tuple[float, _Values, _Values]] = {}
# Prefixes whose row a request of this worker is reading -> set when that read ends.
_reading: dict[str, threading.Event] = {}
_missing: dict[str, float] = {}  # prefixes that matched no key -> when that was read


def api_key_lookup(*, prefix: str) -> ApiKey | None:
    """The key row with `prefix` and its organization, from the cache when fresh enough."""
    ttl = settings.API_KEY_CACHE_SECONDS
    if ttl <= 0:
        return _query(prefix)
    now = time.monotonic()
    reading = _reading.get(prefix)
    # While a request of this worker reads the row again, its entry is served up to
    # MAX_AGE_SECONDS old.
    entry_age = MAX_AGE_SECONDS if reading is not None else ttl
    found = _cached(prefix, now, missing_age=ttl, entry_age=entry_age)
    if found is _NOT_READ and reading is not None and reading.wait(READ_WAIT_SECONDS):
        # Served only if that read started under MAX_AGE_SECONDS ago, as a cached entry is.
        found = _cached(
            prefix, time.monotonic(), missing_age=MAX_AGE_SECONDS, entry_age=MAX_AGE_SECONDS
        )
    if found is not _NOT_READ:
        return found
    reading = _reading[prefix] = threading.Event()
    try:
        return _read(prefix, now)
    finally:
        if _reading.get(prefix) is reading:
            del _reading[prefix]
        reading.set()


def _read(prefix: str, now: float) -> ApiKey | None:
    """Queries the row and caches what it found, stamped with `now` (when the read began)."""
    api_key = _query(prefix)
    if api_key is None:
        _entries.pop(prefix, None)
        if len(_missing) >= MAX_ENTRIES:
            _missing.clear()
        _missing[prefix] = now
        return None
    _missing.pop(prefix, None)
    if len(_entries) >= MAX_ENTRIES:
        _entries.clear()
    _entries[prefix] = (now, _values(api_key), _values(api_key.organization))
    return api_key


_NOT_READ = object()


def _cached(prefix: str, now: float, *, missing_age: float, entry_age: float) -> Any:
    """The cached answer for `prefix` (a key, or None for no key) if its read started under
    the given age ago, else _NOT_READ."""
    missing_since = _missing.get(prefix)
    if missing_since is not None and now - missing_since < missing_age:
        return None
    entry = _entries.get(prefix)
    if entry is not None and now - entry[0] < entry_age:
        return _instances(entry[1], entry[2])
    return _NOT_READ


def api_key_forget(*, prefix: str) -> None:
    """Drops the entry (a revocation in this process takes effect on the next request)."""
    _entries.pop(prefix, None)
    _missing.pop(prefix, None)


def api_key_remember_use(*, prefix: str, last_used_at) -> None:
    """Keeps the cached `last_used_at` current, so the next requests skip the write too."""
    entry = _entries.get(prefix)
    if entry is not None:
        entry[1]["last_used_at"] = last_used_at


def _query(prefix: str) -> ApiKey | None:
    # get() rather than first(): a unique column needs no ORDER BY (cheaper to compile).
    try:
        return ApiKey.objects.select_related("organization").get(prefix=prefix)
    except ApiKey.DoesNotExist:
        return None


def _values(instance: ApiKey | Organization) -> _Values:
    return {
        field.attname: _copied(getattr(instance, field.attname))
        for field in instance._meta.concrete_fields
    }


def _copied(value: Any) -> Any:
    # JSON values (allowed origins) are mutable: no request may change another's.
    return copy.deepcopy(value) if isinstance(value, list | dict) else value


def _instances(key_values: _Values, organization_values: _Values) -> ApiKey:
    api_key = instance_from_values(ApiKey, key_values, db="default")
    values = {name: _copied(value) for name, value in organization_values.items()}
    # As select_related("organization") leaves it.
    api_key._state.fields_cache["organization"] = instance_from_values(
        Organization, values, db="default"
    )
    return api_key
