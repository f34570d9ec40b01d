"""How many event streams each organization has open, capped by EVENT_STREAMS_PER_ORGANIZATION.

A stream costs its worker a greenlet and a socket for up to an hour, so without a cap one key
could open streams until the workers ran out of connections for everyone. With `REDIS_URL` the
count is the deployment's: each organization has a Redis hash of open streams per worker, and
each worker says it is alive in a sorted set (`sse:workers`, the Redis clock's time of its
last heartbeat, every third of `EVENT_STREAM_LEASE_SECONDS`). Taking a place first drops the
counts of workers not heard from within the lease, so the places of a worker that died without
closing its streams free themselves within that time. Without Redis the count is the process's.

If Redis fails, streams are opened without the deployment's count (fail open, as the rate
limits do) and the worker's own counts are written back by its next heartbeat.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections import Counter

import redis
from django.conf import settings

from infrastructure.cache_health import CacheHealth

logger = logging.getLogger("chats.stream")

TOO_MANY_STREAMS = "Too many open event streams"
# Streams last long; a client refused one should not come back at once.
RETRY_AFTER_SECONDS = 10
WORKERS_KEY = "sse:workers"
REDIS_CONNECTIONS = 8  # per worker process

# KEYS: the organization's hash, the workers' set; ARGV: worker, cap, lease seconds.
# Drops the counts of workers silent for a lease, then takes a place if one is left.
TAKE = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local lease = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], now, ARGV[1])
local counts = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #counts, 2 do
  local seen = redis.call('ZSCORE', KEYS[2], counts[i])
  if (not seen) or tonumber(seen) < now - lease then
    redis.call('HDEL', KEYS[1], counts[i])
  else
    total = total + tonumber(counts[i + 1])
  end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('EXPIRE', KEYS[1], math.ceil(2 * lease))
return 1
"""

# KEYS: the organization's hash; ARGV: worker.
GIVE_BACK = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1
"""

# KEYS: the workers' set, then the hashes of the organizations this worker has streams of;
# ARGV: worker, lease seconds, then each organization's count. A count Redis lost (dropped
# while the worker was silent, or not written while Redis was down) is written back.
HEARTBEAT = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 10 * lease)
for i = 2, #KEYS do
  redis.call('HSETNX', KEYS[i], ARGV[1], ARGV[i + 1])
  redis.call('EXPIRE', KEYS[i], math.ceil(2 * lease))
end
return 1
"""


def organization_key(organization_id: object) -> str:
    return f"sse:org:{organization_id}"


class StreamPlaces:
    """This process's open streams per organization, and the deployment's count in Redis."""

    def __init__(self, client: redis.Redis | None) -> None:
        self.client = client
        self.worker = uuid.uuid4().hex
        self.open: Counter[str] = Counter()
        self.health = CacheHealth("stream count unavailable, streams not capped across workers")
        self.heartbeat: threading.Thread | None = None
        if client is not None:
            self.take_script = client.register_script(TAKE)
            self.give_back_script = client.register_script(GIVE_BACK)
            self.heartbeat_script = client.register_script(HEARTBEAT)

    def take(self, organization_id: object) -> bool:
        """Takes a place for one more stream of the organization; False when none is left."""
        organization = str(organization_id)
        cap = settings.EVENT_STREAMS_PER_ORGANIZATION
        if self.client is None or not self.health.available():
            allowed = self.open[organization] < cap
        else:
            try:
                allowed = bool(
                    self.take_script(
                        keys=[organization_key(organization), WORKERS_KEY],
                        args=[self.worker, cap, settings.EVENT_STREAM_LEASE_SECONDS],
                    )
                )
            except redis.RedisError as exc:
                self.health.failed(exc)
                allowed = self.open[organization] < cap
            self._start_heartbeat()
        if allowed:
            self.open[organization] += 1
        return allowed

    def give_back(self, organization_id: object) -> None:
        """Frees the place of a stream that ended."""
        organization = str(organization_id)
        self.open[organization] -= 1
        if self.open[organization] <= 0:
            del self.open[organization]
        if self.client is None or not self.health.available():
            return
        try:
            self.give_back_script(keys=[organization_key(organization)], args=[self.worker])
        except redis.RedisError as exc:
            self.health.failed(exc)

    def beat(self) -> None:
        """Tells Redis this worker is alive, with its counts (one round trip)."""
        assert self.client is not None
        counts = list(self.open.items())
        self.heartbeat_script(
            keys=[WORKERS_KEY, *(organization_key(org) for org, _ in counts)],
            args=[self.worker, settings.EVENT_STREAM_LEASE_SECONDS, *(n for _, n in counts)],
        )

    def _start_heartbeat(self) -> None:
        if self.heartbeat is None:
            self.heartbeat = threading.Thread(target=self._run_heartbeat, daemon=True)
            self.heartbeat.start()

    def _run_heartbeat(self) -> None:
        stop = threading.Event()  # a greenlet-friendly sleep under the gevent worker
        while not stop.wait(settings.EVENT_STREAM_LEASE_SECONDS / 3):
            try:
                self.beat()
            except redis.RedisError as exc:
                self.health.failed(exc)


_places: StreamPlaces | None = None
_places_pid: int | None = None
_places_lock = threading.Lock()


def _redis_client(url: str) -> redis.Redis:
    # Thousands of streams end together when a worker stops: they queue for a few connections
    # instead of opening one each (a wait past the socket timeout fails open like any failure).
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=settings.REDIS_SOCKET_OPTIONS["socket_timeout"],
        **settings.REDIS_SOCKET_OPTIONS,
    )
    return redis.Redis(connection_pool=pool)


def stream_places() -> StreamPlaces:
    """This process's counts (built after the fork, like the hub)."""
    global _places, _places_pid
    with _places_lock:
        if _places is None or _places_pid != os.getpid():
            url = settings.REDIS_URL
            _places, _places_pid = StreamPlaces(_redis_client(url) if url else None), os.getpid()
        return _places
