"""`make bench`: the overall benchmark of the real deployment, against its own baseline.

Starts gunicorn with gevent workers (assistant_api/gunicorn.conf.py) on a fresh PostgreSQL
database `bench` and Redis db 6, with production settings (rate limits counted in Redis at a
limit the load never reaches), loads the demo shop and a generated 100,000-item catalog,
and measures requests/s and p50/p99 with wrk at each concurrency, for a plain Django view (the
baseline), the floors (bench/overall/floors.py: bare views doing part of the work every
implementation of an endpoint must do) and the API's endpoints. At concurrency 16 the baseline runs again after each
endpoint, and an endpoint's ratio is to the baseline points on either side. Writes
BENCHMARKS.md's `## Overall (make bench)` section, bench/results.png and
var/bench/results.json.

Environment: BENCH_SECONDS (per point, default 10), BENCH_CONCURRENCY (default 1,16,64),
BENCH_CATALOG_SIZE (default 100000), BENCH_ONLY (comma-separated endpoint keys; the baseline
and their floors always run), BENCH_MEMORY (0 skips the leak check), BENCH_KEEP_DB (1 keeps
the database), BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_WRITE (0: print only, BENCHMARKS.md
untouched).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.overall import report  # noqa: E402
from bench.overall.deployment import UNREACHED_RATE_LIMIT, VAR, Deployment  # noqa: E402
from bench.overall.fixtures import (  # noqa: E402
    BIG_SEARCHES,
    Fixtures,
    create_conversations,
    floor_message_requests,
    load_catalogs,
    message_requests,
    pdp_get_path,
)
from bench.overall.loadgen import (  # noqa: E402
    CpuMeter,
    Request,
    Result,
    measure,
    write_requests,
)
from bench.overall.memory import measure_memory  # noqa: E402
from bench.overall.report import Endpoint  # noqa: E402

SECONDS = float(os.environ.get("BENCH_SECONDS", "10"))
CONCURRENCY = [int(c) for c in os.environ.get("BENCH_CONCURRENCY", "1,16,64").split(",")]
CATALOG_SIZE = int(os.environ.get("BENCH_CATALOG_SIZE", "100000"))
ONLY = {k for k in os.environ.get("BENCH_ONLY", "").split(",") if k}
WARMUP_SECONDS = 1.0


@dataclass
class Scenario:
    endpoint: Endpoint
    requests: Callable[[int], list[Request]]  # given the run's seconds: what to send
    headers: dict[str, str]
    expect: int  # status of a successful response
    unique: bool = False  # every request must differ (the PDP POST generates a new set)


def scenarios(fixtures: Fixtures) -> list[Scenario]:
    demo, big = fixtures.demo, fixtures.big
    json_only = {"content-type": "application/json"}
    pdp_per_second = 800  # more new URLs per run than the PDP POST can possibly use

    def fixed(*requests: Request) -> Callable[[int], list[Request]]:
        return lambda _seconds: list(requests)

    return [
        Scenario(
            Endpoint("baseline", "baseline (plain Django view)", None, reference=True),
            fixed(Request("GET", "/bench/baseline")),
            {},
            200,
        ),
        Scenario(
            Endpoint("floor_count", "floor: count in Redis", None, reference=True),
            fixed(Request("GET", "/bench/floor/count")),
            {},
            200,
        ),
        Scenario(
            Endpoint("floor_chat", "floor: count, store a chat", None, reference=True),
            fixed(
                Request(
                    "POST",
                    "/bench/floor/chat",
                    {"organizationId": demo.organization_id, "chatbotId": demo.chatbot_id},
                )
            ),
            json_only,
            201,
        ),
        Scenario(
            Endpoint("floor_message", "floor: count, store, search, store", None, reference=True),
            lambda _s: floor_message_requests(fixtures),
            json_only,
            201,
        ),
        Scenario(
            Endpoint("get_chat", "GET /v1/chats/{id}", 0.5, floor="floor_count"),
            fixed(Request("GET", f"/v1/chats/{fixtures.chat_id}")),
            demo.headers,
            200,
        ),
        Scenario(
            Endpoint("post_chat", "POST /v1/chats", 0.35, floor="floor_chat"),
            fixed(Request("POST", "/v1/chats", {"chatbotId": demo.chatbot_id})),
            demo.headers,
            201,
        ),
        Scenario(
            Endpoint("list_messages", "GET .../messages (20)", 0.35, floor="floor_count"),
            fixed(Request("GET", f"/v1/chats/{fixtures.history_chat_id}/messages?page=1&size=20")),
            demo.headers,
            200,
        ),
        Scenario(
            Endpoint("post_message_demo", "POST .../messages (demo)", 0.15, floor="floor_message"),
            lambda _s: message_requests(fixtures.demo_chats, demo.product_urls),
            demo.headers,
            201,
        ),
        # No floor: the floors measure the targets, and this endpoint has none.
        Scenario(
            Endpoint("post_message_big", f"POST .../messages ({CATALOG_SIZE // 1000}k)", None),
            lambda _s: message_requests(fixtures.big_chats, big.product_urls, BIG_SEARCHES),
            big.headers,
            201,
        ),
        Scenario(
            Endpoint("pdp_get", "PDP GET (existing set)", 0.6, floor="floor_count"),
            fixed(Request("GET", pdp_get_path(fixtures))),
            {},
            200,
        ),
        Scenario(
            Endpoint("pdp_post", "PDP POST (generates)", None),
            lambda seconds: fixtures.pdp_post_requests(int(pdp_per_second * seconds) + 50),
            json_only,
            200,
            unique=True,
        ),
    ]


def chosen_scenarios(every: list[Scenario]) -> list[Scenario]:
    """BENCH_ONLY's endpoints, with the baseline and the floors they are compared with."""
    if not ONLY:
        return every
    floors = {s.endpoint.floor for s in every if s.endpoint.key in ONLY}
    return [s for s in every if s.endpoint.key in ONLY | floors | {"baseline"}]


def check(base_url: str, scenario: Scenario) -> None:
    """One request first: a benchmark of error responses would measure the wrong thing."""
    (request,) = scenario.requests(0)[:1]
    response = httpx.request(
        request.method,
        base_url + request.path,
        json=request.body,
        headers=scenario.headers,
        timeout=60,
    )
    if response.status_code != scenario.expect or not response.content:
        raise RuntimeError(
            f"{scenario.endpoint.key}: {request.method} {request.path} answered "
            f"{response.status_code} {response.text[:300]}"
        )


def run_point(
    base_url: str, scenario: Scenario, concurrency: int, seconds: float, cpu: CpuMeter
) -> Result:
    key = scenario.endpoint.key
    requests = scenario.requests(int(seconds))
    requests_file = write_requests(VAR / f"requests-{key}.txt", requests)
    result = measure(
        endpoint=key,
        base_url=base_url,
        requests_file=requests_file,
        concurrency=concurrency,
        seconds=seconds,
        headers=scenario.headers,
        cpu=cpu,
    )
    if scenario.unique and result.requests > len(requests):
        print(f"bench: warning: {key} ran out of unique requests and repeated some", flush=True)
    return result


def main() -> int:
    if shutil.which("wrk") is None:
        raise SystemExit("make bench needs wrk: apt-get install -y wrk")
    deployment = Deployment()
    started = time.monotonic()
    print(f"bench: {SECONDS:g} s per point, concurrency {CONCURRENCY}", flush=True)
    deployment.recreate_database()
    try:
        fixtures = load_catalogs(deployment, catalog_size=CATALOG_SIZE)
        print(f"bench: catalogs loaded ({fixtures.import_seconds:.0f} s import)", flush=True)
        results: list[Result] = []
        skipped: list[str] = []
        unjudged = 0  # endpoints with a target that could not be measured
        with deployment.server() as server:
            create_conversations(fixtures, server.url)
            # For profiling by hand against a kept database (BENCH_KEEP_DB=1).
            (VAR / "fixtures.json").write_text(json.dumps(dataclasses.asdict(fixtures), indent=1))
            chosen = chosen_scenarios(scenarios(fixtures))
            cpu = CpuMeter(server_pid=server.process.pid, backend_pids=deployment.backend_pids)
            # A shared machine's speed drifts by up to a third within minutes, so at c=16 a
            # baseline point runs after each endpoint's too: an endpoint's ratio is against the
            # mean of the baseline points right before and after it.
            baseline = chosen[0]
            assert baseline.endpoint.key == "baseline"
            brackets: list[Result] = []
            for scenario in list(chosen):
                try:
                    check(server.url, scenario)
                except (RuntimeError, httpx.HTTPError) as exc:
                    if scenario is baseline:  # every ratio needs it
                        raise SystemExit(f"bench: the baseline failed: {exc}") from exc
                    # A broken endpoint is reported, not benchmarked; the others still are.
                    print(f"bench: not measured: {exc}", flush=True)
                    skipped.append(f"{scenario.endpoint.label}: {str(exc)[:200]}")
                    # A floor is never judged: without it, only its endpoints lack a floor.
                    unjudged += not scenario.endpoint.reference
                    chosen.remove(scenario)
                    continue
                run_point(server.url, scenario, 16, WARMUP_SECONDS, cpu)
            # Concurrency outside, endpoints inside: each ratio compares runs minutes apart at
            # most, which matters on a shared machine.
            for concurrency in CONCURRENCY:
                for scenario in chosen:
                    result = run_point(server.url, scenario, concurrency, SECONDS, cpu)
                    results.append(result)
                    print(f"bench: {json.dumps(result.as_dict())}", flush=True)
                    if concurrency == report.TARGET_CONCURRENCY:
                        after = result
                        if scenario is not baseline:
                            after = run_point(server.url, baseline, concurrency, SECONDS, cpu)
                        brackets.append(after)
            workers = len(server.workers())
        memory = None
        if os.environ.get("BENCH_MEMORY", "1") != "0":
            memory = measure_memory(deployment, fixtures)
            print(f"bench: memory {memory}", flush=True)
        postgres = deployment.sql("SHOW server_version")
    finally:
        if os.environ.get("BENCH_KEEP_DB") != "1":
            deployment.drop_database()

    endpoints = [s.endpoint for s in chosen]
    (VAR / "results.json").write_text(
        json.dumps(
            {
                "results": [r.as_dict() for r in results],
                "baselines_around_c16": [r.as_dict() for r in brackets],
            },
            indent=1,
        )
    )
    context = {
        **report.machine(),
        **report.versions(postgres, _wrk_version()),
        "Server": f"gunicorn, gevent worker class, {workers} workers, assistant_api/gunicorn.conf.py",
        "Run": (
            f"{SECONDS:g} s per point after a {WARMUP_SECONDS:g} s warm-up, wrk with "
            f"keep-alive; catalog of {fixtures.catalog_size:,} items imported in "
            f"{fixtures.import_seconds:.0f} s; whole run {time.monotonic() - started:.0f} s"
        ),
    }
    notes = [
        "Written by `make bench` (`bench/run.py`); do not edit by hand. Settings as in "
        "production (`DEBUG=0`, PostgreSQL, Redis, `LOG_LEVEL=INFO`); the rate limits are "
        f"counted in Redis on every request, at `{UNREACHED_RATE_LIMIT}` so that one client "
        "sending thousands of requests a second is never refused; both organizations have "
        "unlimited quotas.",
    ]
    notes += [f"**Not measured** (its first request failed): {reason}" for reason in skipped]
    text, passed = report.section(
        endpoints=endpoints,
        results=results,
        brackets=brackets,
        memory=memory,
        context=context,
        notes=notes,
        not_measured=unjudged,
    )
    print(text)
    if os.environ.get("BENCH_WRITE", "1") != "0":
        report.chart(endpoints, results)
        report.write_section(text)
    return 0 if passed else 1


def _wrk_version() -> str:
    output = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout
    return output.split()[1] if output.startswith("wrk ") else output.strip()[:20]


if __name__ == "__main__":
    sys.exit(main())
