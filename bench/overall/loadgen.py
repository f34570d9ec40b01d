"""Drives load with wrk (one tool for every endpoint, so the numbers compare) and reads its JSON."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
import psutil

LUA = Path(__file__).with_name("requests.lua")


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: dict | None = None

    def line(self) -> str:
        body = orjson.dumps(self.body).decode() if self.body is not None else ""
        if "\t" in body or "\n" in body or "\t" in self.path:
            raise ValueError("requests file lines cannot hold tabs or newlines")
        return f"{self.method}\t{self.path}\t{body}"


@dataclass(frozen=True)
class Result:
    endpoint: str
    concurrency: int
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int
    # CPU time per request of the server's workers and of the database's backends: unlike
    # requests/s, this hardly moves when other programs share the machine.
    app_cpu_ms: float = 0.0
    db_cpu_ms: float = 0.0

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict:
        return {**self.__dict__, "rps": round(self.rps, 1)}


def threads_for(concurrency: int) -> int:
    # wrk is far lighter than the server; two threads keep up on 2 cores without stealing more.
    return 1 if concurrency < 4 else 2


def run_wrk(
    *,
    base_url: str,
    requests_file: Path,
    concurrency: int,
    seconds: float,
    headers: dict[str, str],
    limit: int | None = None,
) -> dict:
    """One wrk run; returns its done() JSON."""
    threads = threads_for(concurrency)
    command = [
        "wrk",
        f"-t{threads}",
        f"-c{concurrency}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "30s",
        "-s",
        str(LUA),
    ]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    command += [base_url, "--", str(requests_file), str(threads)]
    if limit is not None:
        command.append(str(limit))
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not lines:
        raise RuntimeError(f"wrk failed: {completed.stderr.strip() or completed.stdout[-2000:]}")
    return json.loads(lines[-1])


def measure(
    *,
    endpoint: str,
    base_url: str,
    requests_file: Path,
    concurrency: int,
    seconds: float,
    headers: dict[str, str],
    cpu: CpuMeter | None = None,
) -> Result:
    before = cpu.sample() if cpu else (0.0, 0.0)
    data = run_wrk(
        base_url=base_url,
        requests_file=requests_file,
        concurrency=concurrency,
        seconds=seconds,
        headers=headers,
    )
    after = cpu.sample() if cpu else (0.0, 0.0)
    errors = sum(data[kind] for kind in ("connect", "read", "write", "status", "timeout"))
    count = max(1, data["requests"])
    return Result(
        endpoint=endpoint,
        concurrency=concurrency,
        requests=data["requests"],
        seconds=data["microseconds"] / 1e6,
        p50_ms=data["p50"] / 1000,
        p99_ms=data["p99"] / 1000,
        errors=errors,
        app_cpu_ms=(after[0] - before[0]) * 1000 / count,
        db_cpu_ms=(after[1] - before[1]) * 1000 / count,
    )


class CpuMeter:
    """CPU seconds used so far by the server's workers and by the database's backends."""

    def __init__(self, *, server_pid: int, backend_pids: Callable[[], list[int]]) -> None:
        self.server_pid = server_pid
        self.backend_pids = backend_pids

    def sample(self) -> tuple[float, float]:
        workers = psutil.Process(self.server_pid).children()
        backends = [pid for pid in self.backend_pids()]
        return _cpu_seconds(workers), _cpu_seconds(backends)


def _cpu_seconds(processes: list) -> float:
    total = 0.0
    for process in processes:
        try:
            process = process if isinstance(process, psutil.Process) else psutil.Process(process)
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue  # ended in between
    return total


def write_requests(path: Path, requests: list[Request]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(request.line() for request in requests) + "\n")
    return path
