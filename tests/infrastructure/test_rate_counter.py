"""The Redis window counter's waiters (infrastructure/rate_counter.py)."""

from __future__ import annotations

import pytest
import redis

from infrastructure import rate_counter
from infrastructure.rate_counter import WindowCounter


def test_a_waiter_left_behind_fails_as_any_redis_failure_does(monkeypatch):
    # Given a round trip in flight that never ends
    monkeypatch.setattr(rate_counter, "WAIT_SECONDS", 0.05)
    counter = WindowCounter(redis.Redis(host="127.0.0.1", port=1))  # never contacted
    counter.busy = True

    # When a request waits for the next one, then gives up
    # Then it fails with an ordinary exception, which the limiter serves open (not a 500)
    with pytest.raises(TimeoutError):
        counter._wait_for_next_round_trip(("rl:key:x:60:1", 61))
