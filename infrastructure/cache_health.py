"""A shared cache (Redis) that failed is left alone for a few seconds, so requests do not each
wait on it, and its failure is logged at most once a minute."""

from __future__ import annotations

import logging
import time

logger = logging.getLogger("infrastructure.cache")

RETRY_CACHE_AFTER = 5.0
WARN_EVERY = 60.0


class CacheHealth:
    """One use of the cache: `available()` before trying it, `failed(exc)` when it failed."""

    def __init__(self, warning: str) -> None:
        self.warning = warning  # what the service does without the cache, for the log
        self.down_until = 0.0
        self.last_warning = -WARN_EVERY

    def available(self) -> bool:
        return time.monotonic() >= self.down_until

    def failed(self, exc: Exception) -> None:
        now = time.monotonic()
        self.down_until = now + RETRY_CACHE_AFTER
        if now - self.last_warning >= WARN_EVERY:
            self.last_warning = now
            logger.warning("%s: %s", self.warning, type(exc).__name__)
