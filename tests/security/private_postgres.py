"""A throwaway PostgreSQL server of a test's own (initdb in a temporary directory, a free port).

Database fault tests stop and start it at will without disturbing anybody using the shared
server. As root, the server runs as the `postgres` OS user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.server import ROOT, free_port


def postgres_bin() -> Path | None:
    """The directory of the newest installed PostgreSQL's initdb and pg_ctl, if any."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0,
    )
    return Path(candidates[-1]).parent if candidates else None


def unavailable_reason() -> str | None:
    """Why a private server cannot be made here, or None when it can."""
    if postgres_bin() is None:
        return "initdb is not installed (PostgreSQL server binaries)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a postgres OS user to run initdb as"
        if shutil.which("runuser") is None:
            return "running as root without runuser"
    return None


@dataclass
class PrivatePostgres:
    bin_dir: Path
    data_dir: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/assistant"

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=60)

    def start(self) -> None:
        options = f"-p {self.port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run("pg_ctl", "-D", str(self.data_dir), "-o", options, "-l", self.log, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """`fast` ends every session at once, as a crash or a failover does for the clients."""
        self.run("pg_ctl", "-D", str(self.data_dir), "-m", mode, "-w", "stop")

    @property
    def log(self) -> str:
        return str(self.data_dir / "server.log")


@contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started server with an empty database `assistant`; removed afterwards."""
    bin_dir = postgres_bin()
    assert bin_dir is not None
    data_dir = Path(tempfile.mkdtemp(prefix="assistant-pg-"))
    if os.geteuid() == 0:
        shutil.chown(data_dir, "postgres")
    server = PrivatePostgres(bin_dir=bin_dir, data_dir=data_dir, port=free_port())
    try:
        server.run(
            "initdb", "-D", str(data_dir), "-U", "postgres", "--auth=trust", "-E", "UTF8", "-N"
        )
        server.start()
        admin_url = f"postgresql://postgres@127.0.0.1:{server.port}/postgres"
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE assistant")
        yield server
    finally:
        server.run("pg_ctl", "-D", str(data_dir), "-m", "immediate", "stop", check=False)
        shutil.rmtree(data_dir, ignore_errors=True)


def manage(database_url: str, *args: str) -> str:
    """Runs `manage.py` against that database and returns its output."""
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING"}
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout
