"""Gunicorn configuration: gevent workers, so one process holds many open event streams."""

import multiprocessing
import os

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
worker_class = "gevent"
workers = int(os.environ.get("WEB_CONCURRENCY", max(2, multiprocessing.cpu_count())))
# Each open event stream holds one greenlet; this caps streams per worker (default 1000).
worker_connections = int(os.environ.get("WORKER_CONNECTIONS", "10000"))
# gevent workers notify the arbiter from their own loop, so long-lived streams do not time out.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "10"))
keepalive = 5
accesslog = "-" if os.environ.get("ACCESS_LOG", "").lower() in {"1", "true", "yes"} else None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
proxy_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
