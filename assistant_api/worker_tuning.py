"""Two habits of a gevent server worker that keep its latency even (issue 9).

Garbage collection: a worker holds ~100,000 objects from importing Django, DRF and the
project, alive as long as the process. Each full (generation 2) collection scanned them all,
20-75 ms on the benchmark machine during which every greenlet of the worker waits.
gc.freeze() moves them to a permanent generation the collector skips.

Fairness: a greenlet serving a keep-alive connection whose client sends the next request at
once finds it already in the socket and serves it without ever yielding, so the worker's
other connections wait for many requests in a row (p99 at 100-300x p50 for fast endpoints).
Yielding once after each request lets every ready connection have its turn.
"""

from __future__ import annotations

import gc


def freeze_startup_objects() -> int:
    """Loads every view (the URLconf), then freezes what is alive; returns how many objects.

    Objects made later (per request) are collected as usual.
    """
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (imports every view module now, not on a request)
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def yield_to_other_connections() -> None:
    """Lets the worker's other ready greenlets run before this connection's next request."""
    import gevent

    gevent.sleep(0)
