"""Two habits of a gevent server worker that keep its latency even, and how code
tells it runs in one.

Garbage collection: a worker holds ~100,000 objects from importing Django, DRF and the
project, alive as long as the process. Each full (generation 2) collection scanned them all,
20-75 ms on the benchmark machine during which every greenlet of the worker waits.
gc.freeze() moves them to a permanent generation the collector skips.

Fairness: a greenlet serving a keep-alive connection whose client sends the next request at
once finds it already in the socket and serves it without ever yielding, so the worker's
other connections wait for many requests in a row (p99 at 100-300x p50 for fast endpoints).
Yielding once after each request, through one turn of the event loop, lets every ready
connection have its turn.
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
    """Lets the worker's other ready connections run before this connection's next request.

    Not gevent.sleep(0): that only queues this greenlet behind the others already runnable,
    and may resume it before the loop polls for I/O, so a connection whose request is waiting
    in its socket waited ~50 requests of a connection that never blocks (a cached GET chat with
    no rate limit: p99 150-275 ms against a p50 of 5). A timer of 0 s resumes this greenlet in
    the loop's next turn, after the poll (which does not block: a timer is due).
    """
    import gevent

    hub = gevent.get_hub()
    hub.wait(hub.loop.timer(0))


def in_gevent_worker() -> bool:
    """Whether this process is a gevent server worker (its threading is patched), not plain
    threads (tests, management commands, `runserver`)."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return False
    return bool(monkey.is_module_patched("threading"))
