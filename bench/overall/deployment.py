"""The benchmarked deployment: its own PostgreSQL database and Redis db, manage.py, gunicorn."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[2]
VAR = ROOT / "var" / "bench" / "overall"  # bench/catalog_*.py use var/bench itself
PYTHON = sys.executable


# Every request still pays its rate-limit round trip to Redis; none is ever refused.
UNREACHED_RATE_LIMIT = "1000000000/min"


@dataclass
class Deployment:
    """Production settings; the rate limits are counted in Redis as in production, at a limit
    one client sending thousands of requests a second never reaches."""

    database_url: str = os.environ.get(
        "BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/bench"
    )
    redis_url: str = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/6")
    extra_env: dict[str, str] = field(default_factory=dict)
    wsgi_module: str = "bench.baseline_wsgi"  # another module only for experiments

    def env(self, **overrides: str) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("DJANGO_", "BENCH_")) and key != "DEBUG"
        }
        env.update(
            {
                "DEBUG": "0",
                "SECRET_KEY": _secret_key(),
                "DATABASE_URL": self.database_url,
                "REDIS_URL": self.redis_url,
                "RATE_LIMIT_PER_KEY": UNREACHED_RATE_LIMIT,
                "RATE_LIMIT_PUBLIC": UNREACHED_RATE_LIMIT,
                "SECURE_COOKIES": "0",
                "SECURE_HSTS_SECONDS": "0",
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(self.extra_env)
        env.update(overrides)
        return env

    # --- database and cache ---------------------------------------------------------------
    def _admin_url(self) -> tuple[str, str]:
        parts = urlsplit(self.database_url)
        name = parts.path.lstrip("/")
        return urlunsplit(parts._replace(path="/postgres")), name

    def recreate_database(self) -> None:
        admin, name = self._admin_url()
        if not name.replace("_", "").isalnum():
            raise SystemExit(f"refusing odd database name {name!r}")
        self.drop_database()
        _run(["psql", admin, "-qc", f'CREATE DATABASE "{name}"'])
        _run(["redis-cli", "-u", self.redis_url, "FLUSHDB"], quiet=True)

    def drop_database(self) -> None:
        admin, name = self._admin_url()
        _run(["psql", admin, "-qc", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'])

    def sql(self, query: str) -> str:
        return _run(["psql", self.database_url, "-Atqc", query]).strip()

    def backend_pids(self) -> list[int]:
        """The PostgreSQL server processes serving the benchmark's database (not this one)."""
        _, name = self._admin_url()
        rows = self.sql(
            f"SELECT pid FROM pg_stat_activity WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        )
        return [int(pid) for pid in rows.split()]

    # --- manage.py ------------------------------------------------------------------------
    def manage(self, *args: str) -> str:
        return _run([PYTHON, "manage.py", *args], env=self.env())

    def manage_json(self, *args: str) -> dict:
        return json.loads(self.manage(*args, "--json").strip().splitlines()[-1])

    # --- server ---------------------------------------------------------------------------
    @contextmanager
    def server(self, *, workers: int | None = None, log_name: str = "server") -> Iterator[Server]:
        port = _free_port()
        overrides = {"HOST": "127.0.0.1", "PORT": str(port)}
        if workers is not None:
            overrides["WEB_CONCURRENCY"] = str(workers)
        VAR.mkdir(parents=True, exist_ok=True)
        log_path = VAR / f"{log_name}.log"
        with log_path.open("w") as log:
            process = subprocess.Popen(
                [
                    PYTHON,
                    "-m",
                    "gunicorn",
                    "-c",
                    "assistant_api/gunicorn.conf.py",
                    self.wsgi_module,
                ],
                cwd=ROOT,
                env=self.env(**overrides),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            server = Server(url=f"http://127.0.0.1:{port}", process=process, log_path=log_path)
            try:
                server.wait_until_up()
                yield server
            finally:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log_path: Path

    def wait_until_up(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited; see {self.log_path}")
            try:
                ready = httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200
                if ready and self.workers():
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server did not start; see {self.log_path}")

    def workers(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children()

    def worker_rss(self) -> dict[int, int]:
        return {worker.pid: worker.memory_info().rss for worker in self.workers()}


def _secret_key() -> str:
    key_file = VAR / "secret_key"
    if not key_file.exists():
        VAR.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(command: list[str], *, env: dict[str, str] | None = None, quiet: bool = False) -> str:
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        if quiet:
            return ""
        raise RuntimeError(
            f"{' '.join(command[:4])} failed ({result.returncode}):\n{result.stderr[-3000:]}"
        )
    return result.stdout
