"""Gunicorn's reload (SIGHUP) without a pause: old workers serve until the new ones have booted.

On SIGHUP gunicorn forks the new workers and at once tells the old ones to stop (SIGTERM). The
new ones take seconds to load the application (4 to 20 s on a busy 2-core machine), and in the
meantime no worker accepts connections: every request, and every stream that the stopping
workers ended, waits in the listen queue. `GeventWorker` below, told to stop while a reload is
under way, keeps serving until the reload's workers have booted (at most `RELOAD_WAIT_SECONDS`),
then stops as gunicorn's does: its open streams end and their clients resume on the new workers.
A worker of the reload told to stop (gunicorn itself stopping) calls the wait off.

The counts live in memory shared by the master and every worker it forks: this module is
imported once by the master (a reload re-reads gunicorn.conf.py, but the import is cached).
"""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

from gunicorn.workers.ggevent import GeventWorker as BaseGeventWorker

# A reload whose workers fail to boot leaves the old ones serving no longer than this; gunicorn
# stops itself anyway when a worker cannot boot.
RELOAD_WAIT_SECONDS = 60.0

# The reload under way: the age (gunicorn's spawn count) of its first worker, and how many of
# its workers have not loaded the application yet.
_reload = multiprocessing.Array("q", [0, 0])
FIRST_AGE, NOT_BOOTED = 0, 1


def reload_started(*, last_age: int, workers: int) -> None:
    """In the master (gunicorn's `on_reload`), before it forks the reload's `workers`; the
    worker it forked last had age `last_age`."""
    with _reload.get_lock():
        _reload[FIRST_AGE] = last_age + 1
        _reload[NOT_BOOTED] = workers


def worker_booted(age: int) -> None:
    """In a worker (gunicorn's `post_worker_init`), once the application is loaded."""
    with _reload.get_lock():
        if age >= _reload[FIRST_AGE] and _reload[NOT_BOOTED] > 0:
            _reload[NOT_BOOTED] -= 1


def replacements_booting(age: int) -> bool:
    """Whether the workers of a reload that replaces the worker of age `age` (one forked
    before it) are still loading the application."""
    with _reload.get_lock():
        return _reload[NOT_BOOTED] > 0 and age < _reload[FIRST_AGE]


def reload_called_off(age: int) -> None:
    """A worker of the reload (age `age`) told to stop: gunicorn is stopping (it stops every
    worker) or shrinking, and the old workers need not wait for the reload any more."""
    with _reload.get_lock():
        if age >= _reload[FIRST_AGE]:
            _reload[NOT_BOOTED] = 0


class GeventWorker(BaseGeventWorker):
    """Gunicorn's gevent worker whose SIGTERM waits, during a reload, for its replacements."""

    _waiting = False

    def handle_exit(self, sig: int, frame: Any) -> None:
        # Gunicorn repeats the SIGTERM about once a second until the worker has exited.
        if self._waiting:
            return
        if self.alive and replacements_booting(self.age):
            import gevent

            self._waiting = True
            gevent.spawn(self._stop_after_reload)
            return
        reload_called_off(self.age)
        super().handle_exit(sig, frame)

    def _stop_after_reload(self) -> None:
        import gevent

        deadline = time.monotonic() + RELOAD_WAIT_SECONDS
        while replacements_booting(self.age) and time.monotonic() < deadline:
            gevent.sleep(0.1)
        self.alive = False
