"""Several instances of the service behind real nginx on this machine, as deploy/ runs them.

nginx runs `deploy/nginx/assistant.conf` with only its addresses replaced (`listen 80` and
`appN:8000` by loopback ports), wrapped in a main configuration of the test's own that keeps
its pid, logs and temporary files in a temporary directory. Each instance is gunicorn as
`make serve` starts it (tests/server.py), on a loopback port it keeps across restarts, so
nginx's configuration stays valid. PgBouncer, when asked for, runs in transaction mode between
the instances and PostgreSQL. Used by tests/deploy/ and bench/rolling_restart.py.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit, urlunsplit

import httpx

from tests.server import ROOT, free_port, launch_gunicorn, wait_until_up

SITE_CONFIG = ROOT / "deploy" / "nginx" / "assistant.conf"
# The addresses of deploy/nginx/assistant.conf, the only text the tests change in it.
DEPLOY_LISTEN = "listen 80;"
DEPLOY_INSTANCES = ("app1:8000", "app2:8000")


def missing_programs(*names: str) -> str | None:
    """Why the cluster cannot run here (a program not installed), or None."""
    absent = [name for name in names if shutil.which(name) is None]
    if absent:
        return f"needs {', '.join(absent)} (apt-get install {' '.join(absent)}; .ci/run does)"
    return None


def site_config(listen_port: int, instance_ports: list[int]) -> str:
    """deploy/nginx/assistant.conf with loopback addresses instead of the compose ones."""
    text = SITE_CONFIG.read_text()
    replacements = {DEPLOY_LISTEN: f"listen 127.0.0.1:{listen_port};"}
    for address, port in zip(DEPLOY_INSTANCES, instance_ports, strict=True):
        replacements[address] = f"127.0.0.1:{port}"
    for old, new in replacements.items():
        # Fails when the deployed file no longer has the addresses this harness replaces.
        assert text.count(old) == 1, f"{SITE_CONFIG} should contain {old!r} once"
        text = text.replace(old, new)
    return text


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def stop(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
    if process.poll() is None:
        process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def private_directory(prefix: str) -> Path:
    """A temporary directory the programs started as another user (root's nginx workers,
    PgBouncer as `postgres`) can read."""
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    directory.chmod(0o755)
    return directory


@contextmanager
def nginx(listen_port: int, instance_ports: list[int], directory: Path) -> Iterator[str]:
    """nginx in the foreground in front of the instances; yields its URL."""
    (directory / "site.conf").write_text(site_config(listen_port, instance_ports))
    temp = {name: directory / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    # Root's nginx runs its workers as `nobody`, who could not use these directories.
    user = "user root root;" if os.geteuid() == 0 else ""
    (directory / "nginx.conf").write_text(
        f"""{user}
daemon off;
worker_processes 2;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    log_format upstream '$request_method $request_uri $status upstream=$upstream_addr '
                        'upstream_status=$upstream_status request_time=$request_time';
    access_log {directory}/access.log upstream;
    include {directory}/site.conf;
}}
"""
    )
    command = ["nginx", "-p", str(directory), "-c", str(directory / "nginx.conf")]
    checked = subprocess.run(
        [*command, "-e", str(directory / "error.log"), "-t"], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    with open(directory / "nginx.out", "ab") as out:
        process = subprocess.Popen(
            [*command, "-e", str(directory / "error.log")], stdout=out, stderr=out
        )
    try:
        wait_for_port(listen_port, process)
        yield f"http://127.0.0.1:{listen_port}"
    finally:
        stop(process, signal.SIGQUIT)


@contextmanager
def pgbouncer(database_url: str, directory: Path) -> Iterator[str]:
    """PgBouncer in transaction mode in front of `database_url`'s server; yields the same URL
    through PgBouncer. Run as `postgres` when root (PgBouncer refuses to run as root)."""
    target = urlsplit(database_url)
    port = free_port()
    user = target.username or "postgres"
    (directory / "userlist.txt").write_text(f'"{user}" ""\n')
    ini = directory / "pgbouncer.ini"
    ini.write_text(
        f"""[databases]
* = host={target.hostname or "127.0.0.1"} port={target.port or 5432}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {directory}/userlist.txt
admin_users = {user}
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
ignore_startup_parameters = extra_float_digits
"""
    )
    # As that user itself, not through runuser, so that signals reach PgBouncer.
    user_options = {"user": "postgres", "group": "postgres"} if os.geteuid() == 0 else {}
    with open(directory / "pgbouncer.log", "ab") as log:
        process = subprocess.Popen(["pgbouncer", str(ini)], stdout=log, stderr=log, **user_options)
    try:
        wait_for_port(port, process)
        netloc = f"{user}@127.0.0.1:{port}"
        yield urlunsplit(target._replace(netloc=netloc))
    finally:
        stop(process)  # SIGTERM: PgBouncer's immediate shutdown


@dataclass
class Instance:
    """One instance of the service (gunicorn with its workers) on a port it keeps."""

    name: str
    port: int
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen | None = None
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._log = open(self.log_path, "ab")  # noqa: SIM115 (closed in stop)
        self.process = launch_gunicorn(self.env, self._log)
        wait_until_up(self.url, self.process)
        wait_until_ready(self.url)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """SIGTERM is a graceful stop (what `docker stop` sends)."""
        if self.process is not None:
            stop(self.process, sig)
            self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def reload(self) -> None:
        """Gunicorn's graceful reload: new workers start, the old ones finish and exit."""
        assert self.process is not None
        self.process.send_signal(signal.SIGHUP)

    def workers(self) -> set[int]:
        """The process ids of the instance's workers (gunicorn's child processes)."""
        assert self.process is not None
        pid = self.process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return {int(child) for child in children}

    def reload_and_wait(self, timeout: float = 60) -> None:
        """reload(), then waits until every worker of the instance is a new one and one of
        them answers (all of them, with one worker per instance)."""
        old = self.workers()
        count = len(old)
        self.reload()
        deadline = time.monotonic() + timeout
        while (workers := self.workers()) & old or len(workers) != count:
            assert time.monotonic() < deadline, f"workers {workers} after reload, {old} before"
            time.sleep(0.1)
        wait_until_ready(self.url, timeout=max(1.0, deadline - time.monotonic()))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def wait_until_ready(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not become ready")


@dataclass
class Cluster:
    url: str  # nginx
    instances: list[Instance]
    directory: Path

    def nginx_log(self) -> str:
        return (self.directory / "access.log").read_text(errors="replace")

    def drain(self, instance: Instance, *, down: bool) -> None:
        """Takes `instance` out of nginx's upstream (`down`) or puts it back, and reloads nginx
        gracefully: the drain step of a rolling restart (RELIABILITY.md section 6)."""
        site = self.directory / "site.conf"
        line = re.compile(rf"(server 127\.0\.0\.1:{instance.port}\b[^;]*?)( down)?;")
        text, count = line.subn(
            lambda m: m.group(1) + (" down;" if down else ";"), site.read_text()
        )
        assert count == 1
        site.write_text(text)
        reload = subprocess.run(
            [
                "nginx",
                "-p",
                str(self.directory),
                "-c",
                str(self.directory / "nginx.conf"),
                "-e",
                str(self.directory / "error.log"),
                "-s",
                "reload",
            ],
            capture_output=True,
            text=True,
        )
        assert reload.returncode == 0, reload.stderr


@contextmanager
def cluster(
    env: dict[str, str], *, instances: int = 2, directory: Path | None = None
) -> Iterator[Cluster]:
    """`instances` gunicorn instances with `env` (a server_env) behind nginx."""
    directory = directory or private_directory("assistant-cluster-")
    started: list[Instance] = []
    try:
        for number in range(1, instances + 1):
            port = free_port()
            instance = Instance(
                name=f"app{number}",
                port=port,
                env={**env, "HOST": "127.0.0.1", "PORT": str(port)},
                log_path=directory / f"app{number}.log",
            )
            instance.start()
            started.append(instance)
        with nginx(free_port(), [i.port for i in started], directory) as url:
            yield Cluster(url=url, instances=started, directory=directory)
    finally:
        for instance in started:
            instance.stop()
        if os.environ.get("KEEP_CLUSTER_LOGS") != "1":
            shutil.rmtree(directory, ignore_errors=True)
