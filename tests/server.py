"""Starts the real server (gunicorn, gevent workers) on a free loopback port for tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen
    env: dict[str, str]

    def client(self, **kwargs) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, **kwargs)


def raw_request(live: LiveServer, data: bytes) -> bytes:
    """Sends bytes as they are (pipelined requests too) and returns everything the server
    answers until it closes the connection."""
    host, port = live.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_database_url() -> str | None:
    """DATABASE_URL of the test database pytest-django created, or None for SQLite."""
    db = settings.DATABASES["default"]
    if connection.vendor != "postgresql":
        return None
    host = db.get("HOST") or "127.0.0.1"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    port = db.get("PORT") or 5432
    return f"postgresql://{user}{password}@{host}:{port}/{db['NAME']}"


def server_env(**overrides: str) -> dict[str, str]:
    # Tests fire many requests from 127.0.0.1; a test of the limits sets its own.
    env = {
        **os.environ,
        "DEBUG": "1",
        "LOG_LEVEL": "WARNING",
        "WEB_CONCURRENCY": "1",
        "RATE_LIMIT_PUBLIC": "off",
        "RATE_LIMIT_PER_KEY": "off",
        "RATE_LIMIT_FAILED_AUTH": "off",
    }
    database_url = test_database_url()
    if database_url:
        env["DATABASE_URL"] = database_url
    else:
        env.pop("DATABASE_URL", None)
        env["SQLITE_PATH"] = str(settings.DATABASES["default"]["NAME"])
    env.update(overrides)
    return env


@contextmanager
def start_server(
    *, log_path: Path | None = None, port: int | None = None, **env_overrides: str
) -> Iterator[LiveServer]:
    """`log_path`: a file that receives everything the server writes (stdout and stderr);
    `port`: the port to listen on (a restarted server takes its predecessor's), else a free one."""
    port = port or free_port()
    env = server_env(PORT=str(port), HOST="127.0.0.1", **env_overrides)
    log = open(log_path, "ab") if log_path else None  # noqa: SIM115 (closed below)
    process = launch_gunicorn(env, log)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, process)
        yield LiveServer(url=url, process=process, env=env)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        if log:
            log.close()


def launch_gunicorn(env: dict[str, str], log: IO[bytes] | None = None) -> subprocess.Popen:
    """The production server as `make serve` runs it, configured by `env` (server_env)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "assistant_api/gunicorn.conf.py",
            "assistant_api.wsgi",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT if log else None,
    )


def wait_until_up(url: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


@contextmanager
def redis_server(port: int) -> Iterator[str]:
    """A private Redis on a free port, so the test can stop and restart it."""
    process = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(50):
            if (
                subprocess.run(
                    ["redis-cli", "-p", str(port), "ping"], capture_output=True
                ).stdout.strip()
                == b"PONG"
            ):
                break
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
