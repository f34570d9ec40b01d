"""Shared parts of the assistant benchmarks: a bench database, a shop, the real server, timing.

The server is the production one (gunicorn, gevent workers, `assistant_api/gunicorn.conf.py`)
started on a free loopback port against the bench database; requests go over HTTP with one
client, one at a time, so latencies are not queueing effects.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAR = ROOT / "var" / "bench"
DATABASE_URL = os.environ.get(
    "ASSISTANT_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/assistant_bench"
)


def recreate_database() -> None:
    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    import psycopg

    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def django_setup(*, fresh: bool) -> None:
    os.environ.update(
        DATABASE_URL=DATABASE_URL,
        SECRET_KEY="assistant-bench",
        DJANGO_SETTINGS_MODULE="assistant_api.settings",
        LOG_LEVEL="ERROR",
        RATE_LIMIT_PER_KEY="off",
    )
    if fresh:
        recreate_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def shop(name: str, products: Path, *, inventory: Path | None = None, stores: Path | None = None):
    """The organization `name` with its catalog (imported once), a chatbot and a new key."""
    from django.core.management import call_command

    from accounts.models import Chatbot, Organization
    from accounts.services import api_key_issue

    organization, created = Organization.objects.get_or_create(name=name)
    if created or not organization.products.exists():
        args = [str(organization.id), str(products)]
        if inventory is not None:
            args += ["--inventory", str(inventory)]
        if stores is not None:
            args += ["--stores", str(stores)]
        with open(os.devnull, "w") as devnull:
            call_command("import_catalog", *args, "--json", stdout=devnull)
    chatbot, _ = Chatbot.objects.get_or_create(organization=organization, name="Bench assistant")
    return organization, chatbot, api_key_issue(organization=organization).key


@contextmanager
def server() -> Iterator[str]:
    """The production server on the bench database; yields its base URL."""
    from tests.server import start_server

    with start_server(
        LOG_LEVEL="ERROR",
        RATE_LIMIT_PER_KEY="off",
        WEB_CONCURRENCY="1",
        DEBUG="0",
        SECRET_KEY="assistant-bench",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        SECURE_HSTS_SECONDS="0",
        SECURE_COOKIES="0",
    ) as live:
        yield live.url


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "n": len(samples),
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
        "max_ms": round(ordered[-1], 2),
    }


def git_commit() -> str:
    result = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return result.stdout.strip()
