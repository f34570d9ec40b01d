"""Gunicorn configuration: gevent workers, so one process holds thousands of open event streams."""

import multiprocessing
import os

from assistant_api import gunicorn_reload, server_errors
from infrastructure.worker_tuning import freeze_startup_objects, yield_to_other_connections

# Gunicorn's own 400/431/501 pages (malformed HTTP) as JSON bodies, as docs/api.md#malformed-http
# says.
server_errors.install()

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
# Gunicorn's gevent worker, whose reload (SIGHUP) keeps the old workers serving until the new
# ones have booted (assistant_api/gunicorn_reload.py).
worker_class = "assistant_api.gunicorn_reload.GeventWorker"
workers = int(os.environ.get("WEB_CONCURRENCY", max(2, multiprocessing.cpu_count())))
# Each open event stream holds one greenlet and one socket; this caps connections per worker
# (gevent's default, 1000, would cap streams). The open-file limit (`ulimit -n`) must be higher.
worker_connections = int(os.environ.get("WORKER_CONNECTIONS", "10000"))
# The gevent worker notifies the arbiter from its own loop, so long-lived streams never trip
# this; it only catches a worker whose loop is blocked.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
# On SIGTERM (deploy, restart) open streams end within a second (see post_worker_init), clients
# reconnect with Last-Event-ID to another worker; other requests get this long to finish.
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "10"))
keepalive = 5
accesslog = "-" if os.environ.get("ACCESS_LOG", "").lower() in {"1", "true", "yes"} else None
errorlog = "-"
# Hides `?token=` (a chat's client token on the event streams) in access log lines.
logger_class = "assistant_api.access_log.RedactingLogger"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
proxy_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def when_ready(server):
    """Loads the language detector's models in the arbiter, before it forks the workers.

    Its models (some 150 MB, held by lingua's native code, which Python's reference counts never
    write to) then stay shared between the workers, copy-on-write, instead of one copy each.
    """
    from knowledge.language.detect import warm_up

    warm_up()


def post_worker_init(worker):
    """Loads the engines in use (knowledge/engines/__init__.py) and freezes the startup heap
    (infrastructure/worker_tuning.py) before the worker takes requests; ends the worker's open
    event streams as soon as it is asked to stop.

    Gunicorn's gevent worker waits up to graceful_timeout for open connections and then kills
    them mid-stream; a stream that ends cleanly instead lets EventSource reconnect at once.
    """
    import gevent

    from chats.stream.process_hub import shutdown_hub
    from knowledge.engines import engines_warm_up
    from knowledge.language.detect import warm_up

    # Loaded in the arbiter already (when_ready); this only checks the fork has them.
    warm_up()
    # Here, after gevent has patched the standard library, not in the arbiter: the engines'
    # HTTP libraries must bind the patched sockets.
    engines_warm_up()
    # Full garbage collections no longer scan the startup heap (stalls of tens of ms).
    freeze_startup_objects()
    # The workers this one replaces (a reload) may stop now.
    gunicorn_reload.worker_booted(worker.age)

    def watch() -> None:
        while worker.alive:
            gevent.sleep(0.5)
        shutdown_hub()

    gevent.spawn(watch)


def on_reload(server):
    """The old workers serve until the reload's new ones have booted."""
    gunicorn_reload.reload_started(last_age=server.worker_age, workers=server.cfg.workers)


def post_request(worker, req, environ, resp):
    """Lets the worker's other connections have their turn (infrastructure/worker_tuning.py)."""
    yield_to_other_connections()


def worker_exit(server, worker):
    from chats.stream.process_hub import shutdown_hub
    from knowledge.pdp.serving import flush_pending

    shutdown_hub()
    # PDP question-set request counts buffered by this worker (knowledge/pdp/counting.py).
    flush_pending()
