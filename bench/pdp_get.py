"""GET of an existing PDP question set against a plain Django view: same server, same run.

Target: the public GET (called on every product page view) serves at least 0.6 times
the requests per second of a plain Django view returning a fixed JSON body of the same size,
both served by one gunicorn started with assistant_api/gunicorn.conf.py (gevent workers) and
the production settings, plus the baseline URL from bench/pdp_urls.py.

    .venv/bin/python bench/pdp_get.py

Environment: PDP_BENCH_SECONDS (per run, default 10), PDP_BENCH_CONCURRENCY (default 16,64),
PDP_BENCH_ROUNDS (alternating baseline/PDP runs per concurrency, default 2),
PDP_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/pdp_bench; the database
is dropped and created). Needs wrk. Prints a Markdown table; writes var/bench/pdp_get.json.
The rate limit is off (one client address sends thousands of requests a second).
"""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
SECONDS = int(os.environ.get("PDP_BENCH_SECONDS", "10"))
CONCURRENCY = [int(c) for c in os.environ.get("PDP_BENCH_CONCURRENCY", "16,64").split(",")]
ROUNDS = int(os.environ.get("PDP_BENCH_ROUNDS", "2"))
DATABASE_URL = os.environ.get(
    "PDP_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/pdp_bench"
)
TARGET = 0.6
PAGE = "https://shop.example/products/trail-runner-2"
ORIGIN = "https://shop.example"

ENV = {
    **os.environ,
    "DJANGO_SETTINGS_MODULE": "bench.pdp_settings",
    "DATABASE_URL": DATABASE_URL,
    "SECRET_KEY": "pdp-bench-secret-key",
    "DEBUG": "0",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "SECURE_SSL_REDIRECT": "0",
    "SECURE_COOKIES": "0",
    "RATE_LIMIT_PUBLIC": "off",
    "RATE_LIMIT_PER_KEY": "off",
    "LOG_LEVEL": "WARNING",
    "ACCESS_LOG": "0",
    "PYTHONPATH": str(ROOT),
}
ENV.pop("REDIS_URL", None)


def recreate_database() -> None:
    import psycopg

    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def manage(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


SEED = f"""
from tests.factories import OrganizationFactory
from knowledge.pdp.services import question_set_create
organization = OrganizationFactory(name="PDP bench shop")
question_set_create(
    organization=organization,
    url={PAGE!r},
    product_title="Trail Runner 2 Waterproof Running Shoe",
    questions=[
        "Which sizes of the Trail Runner 2 are in stock?",
        "What colours does the Trail Runner 2 come in?",
        "Is the Trail Runner 2 available in size 43?",
        "Does the Trail Runner 2 run true to size?",
        "How much is the discount on the Trail Runner 2?",
        "Do you have a cheaper alternative to the Trail Runner 2?",
    ],
)
print("ORG", organization.id)
"""


def seed() -> str:
    output = manage("shell", "-c", SEED)
    return re.search(r"ORG (\S+)", output).group(1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "assistant_api/gunicorn.conf.py",
            "assistant_api.wsgi",
        ],
        cwd=ROOT,
        env={**ENV, "HOST": "127.0.0.1", "PORT": str(port)},
    )
    import httpx

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError("server did not start")


def wrk(url: str, concurrency: int, seconds: int) -> dict:
    threads = 1 if concurrency < 4 else 2
    completed = subprocess.run(
        [
            "wrk",
            f"-t{threads}",
            f"-c{concurrency}",
            f"-d{seconds}s",
            "--latency",
            "--timeout",
            "10s",
            "-H",
            f"Origin: {ORIGIN}",
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = completed.stdout
    total = int(re.search(r"(\d+) requests in", out).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {
        "requests": total,
        "rps": rps,
        "p50_ms": _millis(re.search(r"^\s*50%\s+(\S+)", out, re.MULTILINE).group(1)),
        "p99_ms": _millis(re.search(r"^\s*99%\s+(\S+)", out, re.MULTILINE).group(1)),
        "non_2xx": int(bad.group(1)) if bad else 0,
        "socket_errors": errors.group(1).strip() if errors else "",
    }


def _millis(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def stored_requests(organization_id: str) -> int:
    output = manage(
        "shell",
        "-c",
        "from knowledge.models import PdpQuestionSet; "
        f"print('COUNT', PdpQuestionSet.objects.get(organization_id={organization_id!r}).requests)",
    )
    return int(re.search(r"COUNT (\d+)", output).group(1))


def main() -> None:
    recreate_database()
    manage("migrate", "--noinput")
    organization_id = seed()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    urls = {
        "baseline": f"{base}/bench/pdp-baseline",
        "pdp_get": f"{base}/v1/knowledge/pdp-questions/{organization_id}/public?url={quote(PAGE, safe='')}",
    }
    server = start_server(port)
    runs: list[dict] = []
    pdp_total = 0
    try:
        # Warm both paths (imports, the connection pool) before measuring.
        wrk(urls["baseline"], 16, 2)
        pdp_total += wrk(urls["pdp_get"], 16, 2)["requests"]
        for concurrency in CONCURRENCY:
            for round_number in range(ROUNDS):
                for name, url in urls.items():
                    result = wrk(url, concurrency, SECONDS)
                    if name == "pdp_get":
                        pdp_total += result["requests"]
                    runs.append(
                        {"endpoint": name, "concurrency": concurrency, "round": round_number}
                        | result
                    )
                    print(json.dumps(runs[-1]), flush=True)
    finally:
        server.terminate()
        server.wait(timeout=15)
    counted = stored_requests(organization_id)

    summary = []
    for concurrency in CONCURRENCY:
        row = {"concurrency": concurrency}
        for name in urls:
            mine = [r for r in runs if r["endpoint"] == name and r["concurrency"] == concurrency]
            row[name] = {
                "rps": round(statistics.median(r["rps"] for r in mine), 1),
                "p50_ms": round(statistics.median(r["p50_ms"] for r in mine), 2),
                "p99_ms": round(statistics.median(r["p99_ms"] for r in mine), 2),
                "errors": sum(r["non_2xx"] for r in mine),
            }
        row["ratio"] = round(row["pdp_get"]["rps"] / row["baseline"]["rps"], 2)
        summary.append(row)

    print()
    print(
        "| concurrency | baseline req/s | PDP GET req/s | ratio (target >= 0.6) | PDP p50 / p99 ms |"
    )
    print("|---|---|---|---|---|")
    for row in summary:
        pdp = row["pdp_get"]
        print(
            f"| {row['concurrency']} | {row['baseline']['rps']:.0f} | {pdp['rps']:.0f} | "
            f"{row['ratio']:.2f} {'ok' if row['ratio'] >= TARGET else 'BELOW TARGET'} | "
            f"{pdp['p50_ms']:.1f} / {pdp['p99_ms']:.1f} |"
        )
    print(
        f"\nrequests counted by the set: {counted}; responses wrk received: {pdp_total} "
        "(the count may exceed it by requests still in flight when a run ended)"
    )
    out = ROOT / "var" / "bench" / "pdp_get.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {"runs": runs, "summary": summary, "counted": counted, "received": pdp_total}, indent=2
        )
    )


if __name__ == "__main__":
    main()
