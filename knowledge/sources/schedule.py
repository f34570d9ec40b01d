"""When each feed source is fetched, and the claim that lets one run of `sync_catalogs` fetch it.

With `REDIS_URL` a source's schedule is one Redis key, `feed-source:<organization id>`, that
lives until the source's next fetch (`every_minutes` after the last one started). Taking it
(`SET` when absent) is the claim: runs on any number of instances never fetch one source at
once, nor twice within its schedule, and a feed that answers 304 costs the database no write.
The key says whether its fetch is still running, so a forced fetch (`--org`, `--all`, the
console's "Fetch now") may start before the schedule says, but never beside a running one. A
key Redis lost (evicted, restarted) makes one fetch come sooner, answered 304 if nothing
changed. If Redis cannot be reached, nothing is fetched: the next run tries again.

Without Redis the schedule is the source's `next_fetch_at` column and the claim one
conditional UPDATE of it, the one write an unchanged feed then costs.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db.models import QuerySet

from knowledge.models import FeedSource

RUNNING, DONE = "running", "done"

# KEYS: the source's key; ARGV: its value while fetching, milliseconds to the next fetch,
# 1 when forced. A scheduled claim needs the key absent; a forced one, no fetch running.
_CLAIM = """
local held = redis.call('GET', KEYS[1])
if held and (ARGV[3] == '0' or string.sub(held, 1, 7) == 'running') then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
# KEYS: the source's key; ARGV: the value the claim set, the value once done. The key keeps
# its expiry (the next fetch), unless a later claim replaced it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
end
return 1
"""


class ScheduleUnavailable(Exception):
    """The schedule (Redis) did not answer: the source is not fetched this time."""


@dataclass
class Claim:
    """A source this run may fetch; `release()` once its sync is over."""

    source: FeedSource
    started_at: dt.datetime

    def release(self) -> None:
        client = _client()
        if client is None:
            return
        started = _stamp(self.started_at)
        # If Redis fails here the key still ends at the next fetch; a forced fetch waits.
        with contextlib.suppress(redis.RedisError, OSError):
            _script(client, _RELEASE)(
                keys=[_key(self.source)], args=[f"{RUNNING} {started}", f"{DONE} {started}"]
            )


def sources_enabled() -> QuerySet[FeedSource]:
    return FeedSource.objects.filter(enabled=True).select_related("organization")


def sources_due(*, now: dt.datetime) -> QuerySet[FeedSource]:
    """The sources whose schedule may be due: with Redis every enabled one (its claim
    decides), without it those whose `next_fetch_at` has come."""
    if _client() is not None:
        return sources_enabled()
    return sources_enabled().filter(next_fetch_at__lte=now)


def source_claim(*, source: FeedSource, now: dt.datetime, forced: bool = False) -> Claim | None:
    """The claim on the source, unless another run holds it (or, not `forced`, it is not
    due); it moves the source's next fetch to `every_minutes` from `now`."""
    every = dt.timedelta(minutes=source.every_minutes)
    client = _client()
    if client is None:
        claimed = FeedSource.objects.filter(
            pk=source.pk, next_fetch_at=source.next_fetch_at
        ).update(next_fetch_at=now + every, checked_at=now)
        source.next_fetch_at, source.checked_at = now + every, now
        return Claim(source, now) if claimed == 1 else None
    args = [f"{RUNNING} {_stamp(now)}", int(every.total_seconds() * 1000), int(forced)]
    try:
        claimed = _script(client, _CLAIM)(keys=[_key(source)], args=args)
    except (redis.RedisError, OSError) as exc:
        raise ScheduleUnavailable(
            f"the schedule's Redis did not answer ({type(exc).__name__}); not fetched"
        ) from exc
    return Claim(source, now) if claimed == 1 else None


@dataclass
class ScheduleState:
    checked_at: dt.datetime | None
    next_fetch_at: dt.datetime | None  # None: due now
    running: bool = False


def source_schedule(source: FeedSource, *, now: dt.datetime) -> ScheduleState:
    """When the source was last fetched and is fetched next, for the console."""
    client = _client()
    if source.pk is None:
        return ScheduleState(None, None)
    if client is None:
        due = source.next_fetch_at <= now
        return ScheduleState(source.checked_at, None if due else source.next_fetch_at)
    try:
        with client.pipeline(transaction=False) as pipe:
            pipe.get(_key(source))
            pipe.pttl(_key(source))
            value, left_ms = pipe.execute()
    except (redis.RedisError, OSError):
        return ScheduleState(None, None)
    if value is None or left_ms < 0:
        return ScheduleState(None, None)
    state, _, started = value.decode().partition(" ")
    return ScheduleState(
        checked_at=dt.datetime.fromtimestamp(int(started) / 1000, tz=dt.UTC),
        next_fetch_at=now + dt.timedelta(milliseconds=left_ms),
        running=state == RUNNING,
    )


def _key(source: FeedSource) -> str:
    return f"feed-source:{source.pk}"


def _stamp(moment: dt.datetime) -> int:
    return int(moment.timestamp() * 1000)


def _client() -> redis.Redis | None:
    return _redis(settings.REDIS_URL) if settings.REDIS_URL else None


@functools.cache
def _redis(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, **settings.REDIS_SOCKET_OPTIONS)


@functools.cache
def _script(client: redis.Redis, source: str):
    return client.register_script(source)
