"""BENCHMARKS.md's `## Overall (make bench)` section and the chart bench/results.png."""

from __future__ import annotations

import platform
import re
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from bench.overall.loadgen import Result

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "BENCHMARKS.md"
CHART = ROOT / "bench" / "results.png"
HEADING = "## Overall (make bench)"
TARGET_CONCURRENCY = 16
MAX_TAIL_RATIO = 10.0
MAX_MEMORY_GROWTH = 1.2


@dataclass(frozen=True)
class Endpoint:
    key: str
    label: str
    target: float | None  # minimum rps ratio to the baseline at c=16
    floor: str | None = None  # the key of its floor (bench/overall/floors.py)
    reference: bool = False  # the baseline or a floor: measured, never judged


@dataclass(frozen=True)
class Memory:
    rss_after_1k: int
    rss_after_20k: int
    requests: int

    @property
    def ratio(self) -> float:
        return self.rss_after_20k / self.rss_after_1k


def machine() -> dict[str, str]:
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    import os

    import psutil

    return {
        "CPU": f"{cpu}, {os.cpu_count()} cores (nproc)",
        "Memory": f"{psutil.virtual_memory().total / 2**30:.1f} GiB",
        "OS": platform.platform(),
    }


def versions(postgres: str, wrk: str) -> dict[str, str]:
    return {
        "Python": platform.python_version(),
        "Django": version("django"),
        "DRF": version("djangorestframework"),
        "PostgreSQL": postgres,
        "gunicorn": version("gunicorn"),
        "gevent": version("gevent"),
        "psycopg": version("psycopg"),
        "wrk": wrk,
    }


def section(
    *,
    endpoints: list[Endpoint],
    results: list[Result],
    brackets: list[Result] | None = None,
    memory: Memory | None,
    context: dict[str, str],
    notes: list[str],
    not_measured: int = 0,
) -> tuple[str, bool]:
    """The markdown section and whether every target passed (an endpoint not measured fails).

    `brackets`: the baseline points at c=16, one after each endpoint's (the first is the
    baseline's own point), in `endpoints` order; without them, ratios are to the one baseline.
    """
    by_key = {(r.endpoint, r.concurrency): r for r in results}
    concurrencies = sorted({r.concurrency for r in results})
    base = by_key.get(("baseline", TARGET_CONCURRENCY))
    around = _baselines_around(endpoints, brackets or [])
    lines = [HEADING, "", *notes, ""]
    lines += [f"- **{name}**: {value}" for name, value in context.items()]
    lines += [
        "",
        "| Endpoint | Concurrency | Requests/s | p50 ms | p99 ms | Errors | "
        "CPU ms/request: app | database |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for endpoint in endpoints:
        for concurrency in concurrencies:
            r = by_key.get((endpoint.key, concurrency))
            if r is not None:
                lines.append(
                    f"| {endpoint.label} | {concurrency} | {r.rps:.0f} | {r.p50_ms:.1f} | "
                    f"{r.p99_ms:.1f} | {r.errors} | {r.app_cpu_ms:.2f} | {r.db_cpu_ms:.2f} |"
                )
    lines += [
        "",
        "CPU ms/request: CPU time of the gunicorn workers and of the PostgreSQL backends "
        "during the point, divided by its requests; it moves far less than requests/s when "
        "other programs share the machine.",
    ]
    lines += ["", *_ratio_notes(brackets or [], around), ""]
    lines += [
        "| Endpoint | Ratio to the baselines around it | Ratio to the first baseline | Target "
        "| Its floor's ratio | p99/p50 | Result |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    rows = []
    for endpoint in endpoints:
        r = by_key.get((endpoint.key, TARGET_CONCURRENCY))
        if r is None or endpoint.key == "baseline":
            continue
        first = r.rps / base.rps if base and base.rps else 0.0
        ratio = r.rps / around[endpoint.key] if around.get(endpoint.key) else first
        tail = r.p99_ms / r.p50_ms if r.p50_ms else 0.0
        sound = r.errors == 0 and tail <= MAX_TAIL_RATIO
        rows.append((endpoint, ratio, first, tail, sound))
    # A floor that answered errors or stalled bounds nothing, so its ratio is shown beside no one.
    floors = {e.key: ratio for e, ratio, _first, _tail, sound in rows if e.reference and sound}
    passed = not_measured == 0
    for endpoint, ratio, first, tail, sound in rows:
        if endpoint.reference:
            result = "floor" if sound else "floor, **not valid**"
        else:
            ok = sound and (endpoint.target is None or ratio >= endpoint.target)
            passed &= ok
            result = "pass" if ok else "**FAIL**"
        target = f">= {endpoint.target}" if endpoint.target is not None else "-"
        floor = f"{floors[endpoint.floor]:.3f}" if endpoint.floor in floors else "-"
        lines.append(
            f"| {endpoint.label} | {ratio:.3f} | {first:.3f} | {target} | {floor} | {tail:.1f} | "
            f"{result} |"
        )
    if any(endpoint.reference for endpoint, *_ in rows):
        lines += [
            "",
            "A floor is a bare view, without middleware, authentication or validation, doing "
            "part of the work every implementation of its endpoints must do "
            "(bench/overall/floors.py): the rate limit's count in Redis, and the request's "
            "writes and search in one statement. It leaves the rest out, so it is faster than "
            "its endpoints can be: a target above its floor's ratio is out of reach on this "
            "machine unless requests share statements. A floor that answered errors, or whose "
            "p99 was over 10x its p50, is not valid and is shown beside no endpoint.",
        ]
    if memory is not None:
        ok = memory.ratio <= MAX_MEMORY_GROWTH
        passed &= ok
        lines += [
            "",
            f"Memory (one worker, `WEB_CONCURRENCY=1`, a mix of every endpoint): RSS "
            f"{memory.rss_after_1k / 2**20:.1f} MiB after 1,000 requests, "
            f"{memory.rss_after_20k / 2**20:.1f} MiB after {memory.requests:,}: "
            f"ratio {memory.ratio:.2f} (target <= {MAX_MEMORY_GROWTH}): "
            f"{'pass' if ok else '**FAIL**'}.",
        ]
    lines += ["", f"![Requests per second by endpoint and concurrency]({CHART.relative_to(ROOT)})"]
    lines += ["", f"All targets: {'pass' if passed else '**FAIL**'}.", ""]
    return "\n".join(lines), passed


def _baselines_around(endpoints: list[Endpoint], brackets: list[Result]) -> dict[str, float]:
    """Each endpoint's mean requests/s of the baseline points right before and after it."""
    if len(brackets) != len(endpoints):
        return {}
    return {
        endpoint.key: (brackets[index - 1].rps + brackets[index].rps) / 2
        for index, endpoint in enumerate(endpoints)
        if index
    }


def _ratio_notes(brackets: list[Result], around: dict[str, float]) -> list[str]:
    tail = f"p99 at most {MAX_TAIL_RATIO:.0f}x p50"
    if not around:
        return [
            f"Ratios at concurrency {TARGET_CONCURRENCY} (requests/s against the baseline of "
            f"the same run; {tail}):"
        ]
    rates = [r.rps for r in brackets]
    return [
        f"Ratios at concurrency {TARGET_CONCURRENCY}, against the mean requests/s of the "
        "baseline points measured right before and after the endpoint's, since the "
        f"machine's speed drifts within a run: the {len(rates)} baseline points ranged from "
        f"{min(rates):.0f} to {max(rates):.0f} requests/s. The targets are judged on that "
        f"ratio; the ratio to the run's first baseline point is shown beside it ({tail}):"
    ]


def write_section(text: str) -> None:
    """Replaces only this section of BENCHMARKS.md; other engineers' sections stay as they are."""
    current = BENCHMARKS.read_text() if BENCHMARKS.exists() else "# Benchmarks\n\n"
    pattern = re.compile(rf"^{re.escape(HEADING)}\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
    if pattern.search(current):
        updated = pattern.sub(lambda _match: text.rstrip("\n") + "\n\n", current, count=1)
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    BENCHMARKS.write_text(updated.rstrip("\n") + "\n")


def chart(endpoints: list[Endpoint], results: list[Result]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_key = {(r.endpoint, r.concurrency): r.rps for r in results}
    concurrencies = sorted({r.concurrency for r in results})
    shown = [e for e in endpoints if any((e.key, c) in by_key for c in concurrencies)]
    width = 0.8 / max(1, len(concurrencies))
    figure, axes = plt.subplots(figsize=(11, 4.8), dpi=90)
    for index, concurrency in enumerate(concurrencies):
        positions = [n + (index - (len(concurrencies) - 1) / 2) * width for n in range(len(shown))]
        values = [by_key.get((e.key, concurrency), 0) for e in shown]
        axes.bar(positions, values, width, label=f"concurrency {concurrency}")
    axes.set_xticks(range(len(shown)), [e.label for e in shown], rotation=20, ha="right")
    axes.set_yscale("log")  # the baseline and a catalog reply differ by two orders
    axes.set_ylabel("requests / second (log scale)")
    axes.set_title("make bench: requests per second by endpoint and concurrency")
    axes.grid(axis="y", alpha=0.3)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside the bars, never on them
    figure.tight_layout()
    figure.savefig(CHART)
    plt.close(figure)
    return CHART
