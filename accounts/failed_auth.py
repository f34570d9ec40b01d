"""Refused API keys limited per client address (`RATE_LIMIT_FAILED_AUTH`), so no one can try
keys by the thousand; over the limit, 429 before any key is looked up.

A client token the service did not sign counts alike (chats/token_auth.py). Only a key that
matches no key counts: a revoked, expired or other environment's key is a real
one an integrator still uses, and blocking its address would block that address's valid keys
too. Failures are counted like the other limits (assistant_api/throttling.py: in Redis across
the deployment when `REDIS_URL` is set). A worker remembers the addresses it found over the
limit until their window ends and refuses them without asking Redis, so the check costs a
request nothing; another worker refuses an address from its own next failure on.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.http import HttpRequest

from assistant_api.errors import TooManyRequestsError
from assistant_api.throttling import client_address, hit, parse_rate

TOO_MANY_FAILURES = "Too many requests with an invalid API key"
SCOPE = "failed-auth"
# More addresses than this over the limit at once in one process: start again.
MAX_BLOCKED = 10_000

_blocked: dict[str, float] = {}  # address -> time.monotonic() its window ends


def failed_auth_refuse_blocked(request: HttpRequest) -> None:
    """429 when the request's address is over the limit of refused keys."""
    if not _blocked or parse_rate(settings.RATE_LIMIT_FAILED_AUTH) is None:
        return
    address = client_address(request)
    until = _blocked.get(address)
    if until is None:
        return
    wait = until - time.monotonic()
    if wait <= 0:
        del _blocked[address]
        return
    raise TooManyRequestsError(TOO_MANY_FAILURES, retry_after=int(wait + 0.999))


def failed_auth_count(request: HttpRequest) -> None:
    """Counts a refused key of the request's address; 429 once it is over the limit."""
    rate = parse_rate(settings.RATE_LIMIT_FAILED_AUTH)
    address = client_address(request)
    if rate is None or not address:
        return
    wait = hit(SCOPE, address, rate)
    if wait is None:
        return
    if len(_blocked) >= MAX_BLOCKED:
        _blocked.clear()
    _blocked[address] = time.monotonic() + wait
    raise TooManyRequestsError(TOO_MANY_FAILURES, retry_after=int(wait + 0.999))
