"""A/B of server settings on the data of the last `BENCH_KEEP_DB=1 make bench` (for profiling).

    .venv/bin/python -m bench.overall.compare API_KEY_CACHE_SECONDS=0 API_KEY_CACHE_SECONDS=0.5 \\
        --endpoints get_chat,list_messages --rounds 2 --seconds 5

Alternates fresh servers of each variant (A, B, A, B, ...) on the kept database and prints,
per endpoint, requests/s relative to the baseline of the same server, and CPU milliseconds per
request of the workers and of PostgreSQL: the numbers that stay comparable on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict

from bench.overall.deployment import VAR, Deployment
from bench.overall.loadgen import CpuMeter, measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="settings of A: NAME=VALUE[,NAME=VALUE] or '-' for none")
    parser.add_argument("b", help="settings of B")
    parser.add_argument("--endpoints", default="get_chat,list_messages,post_chat")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    fixtures = json.loads((VAR / "fixtures.json").read_text())
    deployment = Deployment()
    endpoints = ["baseline", *args.endpoints.split(",")]
    rows: dict[tuple[str, str], list] = defaultdict(list)
    for _ in range(args.rounds):
        for label, spec in (("A", args.a), ("B", args.b)):
            deployment.extra_env = _settings(spec)
            with deployment.server(workers=args.workers, log_name=f"compare-{label}") as server:
                cpu = CpuMeter(server_pid=server.process.pid, backend_pids=deployment.backend_pids)
                base = None
                for endpoint in endpoints:
                    headers = _headers(fixtures, endpoint)
                    result = measure(
                        endpoint=endpoint,
                        base_url=server.url,
                        requests_file=VAR / f"requests-{endpoint}.txt",
                        concurrency=args.concurrency,
                        seconds=args.seconds,
                        headers=headers,
                        cpu=cpu,
                    )
                    base = result.rps if endpoint == "baseline" else base
                    ratio = result.rps / base if base else 0.0
                    rows[(label, endpoint)].append((ratio, result))
    print(f"A = {args.a}   B = {args.b}   (medians of {args.rounds} rounds)")
    print(
        f"{'endpoint':20s} {'':2s} {'rps':>8s} {'ratio':>6s} {'p50':>7s} {'p99':>7s} "
        f"{'app ms':>7s} {'db ms':>6s} {'errors':>6s}"
    )
    for endpoint in endpoints:
        for label in ("A", "B"):
            runs = rows[(label, endpoint)]
            median = lambda values: statistics.median(values)  # noqa: E731
            print(
                f"{endpoint:20s} {label:2s} {median([r.rps for _, r in runs]):8.0f} "
                f"{median([ratio for ratio, _ in runs]):6.2f} "
                f"{median([r.p50_ms for _, r in runs]):7.1f} "
                f"{median([r.p99_ms for _, r in runs]):7.1f} "
                f"{median([r.app_cpu_ms for _, r in runs]):7.2f} "
                f"{median([r.db_cpu_ms for _, r in runs]):6.2f} "
                f"{sum(r.errors for _, r in runs):6d}"
            )


def _settings(spec: str) -> dict[str, str]:
    if spec.strip() in {"", "-"}:
        return {}
    return dict(part.split("=", 1) for part in spec.split(","))


def _headers(fixtures: dict, endpoint: str) -> dict[str, str]:
    if endpoint == "baseline" or endpoint.startswith("pdp_"):
        return {"content-type": "application/json"}
    tenant = fixtures["big"] if endpoint.endswith("_big") else fixtures["demo"]
    return {"x-api-key": tenant["key"], "content-type": "application/json"}


if __name__ == "__main__":
    main()
