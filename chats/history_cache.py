"""History pages kept in Redis until the chat's next message.

A chat's messages are only ever added, never edited or removed one by one, so a page of its
history stays right until the chat's next message. Integrators read the same pages again and
again (the chat panel of every page a shopper opens); a page read from Redis costs the worker
a third of one read from PostgreSQL, and PostgreSQL nothing.

Each chat has one Redis hash: its pages by `page:size`, and `gen`, a random token that every
new message replaces, dropping the pages (`history_changed`, once the message is committed).
A reader that finds no token sets one. A reader that missed stores its page only if `gen` is
still the token it saw before reading the database; so a page read before a message was
committed is never stored after it, even if Redis lost the hash in between. The token is
replaced before the request that wrote the message answers, so a read that starts after that
answer has the message.

Only with `REDIS_URL`: a per-process cache could not hear of other workers' messages. A hash
lives `HISTORY_CACHE_SECONDS` from its creation, never longer (`0` turns the cache off). If
Redis fails, pages are read from the database. Replacing the token is tried up to three more
times after a connection error or timeout (once while Redis is known to be failing); a
message whose invalidation still could not reach Redis may be missing from cached pages
until they expire.
"""

from __future__ import annotations

import functools
import uuid
from typing import cast

import redis
from django.conf import settings
from django.db import transaction
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from infrastructure.cache_health import CacheHealth

# Pages kept per chat: a client asking for every size of every page cannot fill Redis.
MAX_PAGES_PER_CHAT = 32

# KEYS: the chat's hash; ARGV: the page's field, a new token, the seconds a new hash lives.
# Returns the token and the page (nil on a miss); a chat without a token gets the new one.
_READ = """
local found = redis.call('HMGET', KEYS[1], 'gen', ARGV[1])
if not found[1] then
  redis.call('HSET', KEYS[1], 'gen', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  found[1] = ARGV[2]
end
return found
"""
# KEYS: the chat's hash; ARGV: the token the reader saw, the page's field, the body, the most
# pages a chat keeps. A hash without that token (replaced, or lost with the hash) takes nothing.
_STORE = """
if redis.call('HGET', KEYS[1], 'gen') ~= ARGV[1] then return 0 end
if redis.call('HLEN', KEYS[1]) - 1 >= tonumber(ARGV[4]) then return 0 end
return redis.call('HSETNX', KEYS[1], ARGV[2], ARGV[3])
"""
# KEYS: the chat's hash; ARGV: a new token, the seconds the hash lives.
_REPLACE = """
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'gen', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
"""

_health = CacheHealth(
    "history cache unavailable: history is read from the database, and pages cached before "
    "may miss messages written meanwhile until they expire (HISTORY_CACHE_SECONDS)"
)


class CachedPage:
    """A page as the cache holds it: `body` when it was kept, else what storing it needs."""

    __slots__ = ("body", "chat_id", "field", "gen")

    def __init__(self, chat_id: uuid.UUID, field: str, gen: bytes, body: bytes | None):
        self.chat_id, self.field, self.gen, self.body = chat_id, field, gen, body


def cached_page(chat_id: uuid.UUID, *, page: int, size: int) -> CachedPage | None:
    """The chat's page from the cache (`body` None on a miss); None when there is no cache
    to use, now."""
    client = _client()
    if client is None or not _health.available():
        return None
    field, key = f"{page}:{size}", _key(chat_id)
    try:
        gen, body = cast(list[bytes | None], client.hmget(key, ["gen", field]))
        if gen is None:
            # Only a chat without a token takes the script, which sets one unless another
            # reader did meanwhile; a plain HMGET costs Redis and the worker less.
            found = _script(client, _READ)(keys=[key], args=[field, uuid.uuid4().hex, _seconds()])
            gen, body = cast(list[bytes | None], found)
    except (redis.RedisError, OSError) as exc:
        _health.failed(exc)
        return None
    assert gen is not None  # found by HMGET, or set by the script where there was none
    return CachedPage(chat_id, field, gen, body)


def page_store(missed: CachedPage, body: bytes) -> None:
    """Keeps the page read after `missed`, unless the chat has had a message since."""
    client = _client()
    if client is None:
        return
    try:
        _script(client, _STORE)(
            keys=[_key(missed.chat_id)],
            args=[missed.gen, missed.field, body, MAX_PAGES_PER_CHAT],
        )
    except (redis.RedisError, OSError) as exc:
        _health.failed(exc)


def history_changed(chat_id: uuid.UUID) -> None:
    """Drops the chat's cached pages once the message just written is committed."""
    if _client() is not None:
        transaction.on_commit(functools.partial(history_maybe_changed, chat_id))


def history_maybe_changed(chat_id: uuid.UUID) -> None:
    """Drops the chat's cached pages now: after a write whose commit may or may not have
    happened (the database connection failed during it), or once it is committed."""
    # Retried, except while Redis is known to be failing: then a message waits on it once.
    client = _client(retries=3 if _health.available() else 0)
    if client is None:
        return
    try:
        _script(client, _REPLACE)(keys=[_key(chat_id)], args=[uuid.uuid4().hex, _seconds()])
    except (redis.RedisError, OSError) as exc:
        # Tried even while reads skip a failing Redis: this write is what keeps pages right.
        _health.failed(exc)


def history_forget(chat_ids: list[uuid.UUID]) -> None:
    """Drops deleted chats' cached pages once the deletion is committed (erasure, retention):
    no page of them is served from Redis afterwards."""
    if _client() is not None and chat_ids:
        transaction.on_commit(functools.partial(_forget_now, list(chat_ids)))


def _forget_now(chat_ids: list[uuid.UUID]) -> None:
    client = _client(retries=3)
    if client is None:
        return
    try:
        client.delete(*[_key(chat_id) for chat_id in chat_ids])
    except (redis.RedisError, OSError) as exc:
        _health.failed(exc)


def _key(chat_id: uuid.UUID) -> str:
    return f"history:{chat_id}"


def _seconds() -> int:
    return settings.HISTORY_CACHE_SECONDS


@functools.cache
def _redis(url: str, retries: int) -> redis.Redis:
    # Retried: a command cut by a connection error or timeout (a restart, a failover).
    retry = Retry(ExponentialBackoff(cap=0.2, base=0.02), retries)
    return redis.Redis.from_url(
        url,
        retry=retry,
        retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        **settings.REDIS_SOCKET_OPTIONS,
    )


def _client(*, retries: int = 0) -> redis.Redis | None:
    """The deployment's Redis when the cache is on, else None. Reads do not retry: a page
    Redis cannot give at once is read from the database."""
    if not settings.REDIS_URL or settings.HISTORY_CACHE_SECONDS <= 0:
        return None
    return _redis(settings.REDIS_URL, retries)


@functools.cache
def _script(client: redis.Redis, source: str):
    return client.register_script(source)
