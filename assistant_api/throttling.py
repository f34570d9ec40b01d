"""Rate limits (docs/api.md#rate-limits): per API key, and per client address on the public
endpoints.

Fixed one-window counters: with Redis (`REDIS_URL`) shared by every worker and instance
(infrastructure/rate_counter.py: one atomic round trip, shared by the requests of the same
moment); without it the process's cache, so the limits hold per process.
If Redis fails, requests are served (fail open), a warning is logged at most once a minute,
and Redis is tried again a few seconds later.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import time
from dataclasses import dataclass

import redis
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from assistant_api.errors import TooManyRequestsError
from infrastructure.cache_health import CacheHealth
from infrastructure.rate_counter import WindowCounter

RATE_LIMITED = "Rate limit exceeded"
_RATE = re.compile(
    r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour|d|day)s?\s*$", re.IGNORECASE
)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Rate:
    requests: int
    seconds: int


@functools.lru_cache(maxsize=16)  # asked on every request for the same few settings
def parse_rate(text: str) -> Rate | None:
    """`600/min`, `10/s`, `1000/hour`, `5/10s`; `off` (or empty) means no limit."""
    if text.strip().lower() in {"", "off", "none", "0"}:
        return None
    match = _RATE.match(text)
    if match is None:
        raise ValueError(f"invalid rate {text!r}: use e.g. 600/min, 10/s or off")
    count, multiplier, unit = match.groups()
    return Rate(int(count), int(multiplier or 1) * _UNIT_SECONDS[unit[0].lower()])


_cache_health = CacheHealth("rate limit cache unavailable, serving without limits")


def hit(scope: str, ident: str, rate: Rate) -> float | None:
    """Counts one request; the seconds to wait when over the limit, else None."""
    if not _cache_health.available():
        return None
    now = time.time()
    window = int(now // rate.seconds)
    key = f"rl:{scope}:{ident}:{rate.seconds}:{window}"
    try:
        count = _count(key, ttl=rate.seconds + 1)
    except Exception as exc:  # the cache backend is down
        _cache_health.failed(exc)
        return None
    if count <= rate.requests:
        return None
    return (window + 1) * rate.seconds - now


def _count(key: str, *, ttl: int) -> int:
    """Adds one to the window's counter, created with its expiry if new; returns the count."""
    counter = _redis_counter()
    if counter is not None:
        return counter.add(key, ttl=ttl)
    try:
        cache.add(key, 0, timeout=ttl)
        return cache.incr(key)
    except ValueError:  # evicted between add and incr: start again
        cache.set(key, 1, timeout=ttl)
        return 1


@functools.cache
def _redis_counter() -> WindowCounter | None:
    """The deployment's Redis (`REDIS_URL`), with the cache's timeouts; None without one.

    Not through Django's cache API, which took three round trips per count (SET NX, then
    EXISTS and INCR inside its incr()).
    """
    if not settings.REDIS_URL:
        return None
    return WindowCounter(redis.Redis.from_url(settings.REDIS_URL, **settings.REDIS_SOCKET_OPTIONS))


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or the right-most untrusted X-Forwarded-For entry behind trusted proxies."""
    remote = request.META.get("REMOTE_ADDR", "")
    trusted = settings.TRUSTED_PROXIES
    if not trusted or not _in_networks(remote, trusted):
        return remote
    forwarded = [
        part.strip()
        for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if part.strip()
    ]
    for address in reversed(forwarded):
        if not _in_networks(address, trusted):
            return address
    return forwarded[0] if forwarded else remote


def _in_networks(address: str, networks: list[str]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in _parsed_networks(tuple(networks)))


@functools.lru_cache(maxsize=4)  # the setting's one value, parsed once, not per request
def _parsed_networks(
    networks: tuple[str, ...],
) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    parsed = []
    for network in networks:
        try:
            parsed.append(ipaddress.ip_network(network, strict=False))
        except ValueError:  # not a network: matches nothing, as before
            continue
    return parsed


def rate_limit(scope: str, ident: str | None, setting: str) -> None:
    """Counts one request of `ident` against the rate in `setting`; 429 when over it."""
    rate = parse_rate(getattr(settings, setting))
    if rate is None or ident is None:
        return
    wait = hit(scope, ident, rate)
    if wait is not None:
        raise TooManyRequestsError(RATE_LIMITED, retry_after=max(1, int(wait + 0.999)))


def key_rate_limit(api_key) -> None:
    """The per-key limit, for views outside DRF (the event streams)."""
    rate_limit(ApiKeyRateThrottle.scope, api_key.prefix, ApiKeyRateThrottle.setting)


def public_rate_limit(request: HttpRequest) -> None:
    """The per-address limit of the public endpoints, for views outside DRF."""
    rate_limit(
        PublicRateThrottle.scope, client_address(request) or None, PublicRateThrottle.setting
    )


class _RateThrottle(BaseThrottle):
    scope = ""
    setting = ""

    def ident(self, request: Request) -> str | None:
        raise NotImplementedError

    def allow_request(self, request: Request, view) -> bool:
        rate_limit(self.scope, self.ident(request), self.setting)
        return True


class ApiKeyRateThrottle(_RateThrottle):
    """`RATE_LIMIT_PER_KEY` per API key."""

    scope = "key"
    setting = "RATE_LIMIT_PER_KEY"

    def ident(self, request: Request) -> str | None:
        api_key = request.auth
        return getattr(api_key, "prefix", None)


class PublicRateThrottle(_RateThrottle):
    """`RATE_LIMIT_PUBLIC` per client address, for the public PDP endpoints."""

    scope = "public"
    setting = "RATE_LIMIT_PUBLIC"

    def ident(self, request: Request) -> str | None:
        return client_address(request._request) or None
