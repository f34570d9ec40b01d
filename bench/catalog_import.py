"""Catalog import of a generated feed on PostgreSQL: time and memory as the feed grows.

Target: a 100,000-item feed imports in at most 60 s, with memory flat as the feed
grows. Each size is imported by a fresh process into a fresh organization; the process reports
its peak RSS. Baseline measured in the same run: reading and checking the same feed without
the database (parse only), so the ratio shows what the database part costs.

    .venv/bin/python bench/catalog_import.py

Environment: CATALOG_BENCH_SIZES (default 25000,50000,100000), CATALOG_BENCH_DATABASE_URL
(default postgresql://postgres@127.0.0.1:5432/catalog_bench; dropped and created unless
CATALOG_BENCH_KEEP_DB=1). Prints a Markdown table; writes var/bench/catalog_import.json.
The 100,000-item organization stays in the database for bench/catalog_search.py.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.catalog_feed import write_feed  # noqa: E402

SIZES = [
    int(size) for size in os.environ.get("CATALOG_BENCH_SIZES", "25000,50000,100000").split(",")
]
DATABASE_URL = os.environ.get(
    "CATALOG_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/catalog_bench"
)
VAR = ROOT / "var" / "bench"
TARGET_SECONDS = 60
ENV = {
    **os.environ,
    "DATABASE_URL": DATABASE_URL,
    "SECRET_KEY": "catalog-bench",
    "DJANGO_SETTINGS_MODULE": "assistant_api.settings",
}


def organization_name(size: int) -> str:
    return f"Catalog Bench {size}"


def main() -> None:
    if "--worker" in sys.argv:
        worker(int(sys.argv[2]), Path(sys.argv[3]))
        return
    if os.environ.get("CATALOG_BENCH_KEEP_DB") != "1":
        recreate_database()
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=ENV, check=True)
    results = []
    for size in SIZES:
        feed = write_feed(VAR / f"catalog-{size}.tsv", size)
        output = subprocess.run(
            [sys.executable, __file__, "--worker", str(size), str(feed)],
            cwd=ROOT,
            env=ENV,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        results.append(json.loads(output.strip().splitlines()[-1]))
        print(f"{size}: {results[-1]}", file=sys.stderr)
    VAR.mkdir(parents=True, exist_ok=True)
    (VAR / "catalog_import.json").write_text(json.dumps(results, indent=2))
    print(table(results))


def recreate_database() -> None:
    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    for sql in (f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"'):
        subprocess.run(["psql", admin, "-qc", sql], check=True)


def worker(size: int, feed: Path) -> None:
    import django

    django.setup()
    from accounts.models import Organization
    from knowledge.catalog.services import ImportFile, catalog_import
    from knowledge.feeds.products import product_row
    from knowledge.feeds.reading import read_records

    Organization.objects.filter(name=organization_name(size)).delete()
    organization = Organization.objects.create(name=organization_name(size))
    rss_start = peak_rss_mb()

    started = time.perf_counter()
    with feed.open("rb") as stream:
        report, _ = catalog_import(organization=organization, feed=ImportFile(stream, feed.name))
    import_seconds = time.perf_counter() - started
    rss_import = peak_rss_mb()
    assert report.products.created == size and report.error_count == 0, report.as_text()[:500]

    started = time.perf_counter()
    with feed.open("rb") as stream:
        again, _ = catalog_import(organization=organization, feed=ImportFile(stream, feed.name))
    reimport_seconds = time.perf_counter() - started
    assert again.products.created == again.products.updated == 0

    started = time.perf_counter()
    with feed.open("rb") as stream:
        rows = sum(1 for record in read_records(stream) if not product_row(record).problems)
    parse_seconds = time.perf_counter() - started
    assert rows == size

    print(
        json.dumps(
            {
                "items": size,
                "import_seconds": round(import_seconds, 2),
                "reimport_unchanged_seconds": round(reimport_seconds, 2),
                "parse_only_seconds": round(parse_seconds, 2),
                "items_per_second": round(size / import_seconds),
                "rss_after_setup_mb": round(rss_start, 1),
                "peak_rss_mb": round(rss_import, 1),
                "feed_mb": round(feed.stat().st_size / 2**20, 1),
            }
        )
    )


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def table(results: list[dict]) -> str:
    lines = [
        "| Items | Feed MB | Import s | Items/s | Re-import (unchanged) s | Parse only s (baseline) "
        "| Import / parse | Peak RSS MB | RSS before import MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['items']:,} | {r['feed_mb']} | {r['import_seconds']} | {r['items_per_second']:,}"
            f" | {r['reimport_unchanged_seconds']} | {r['parse_only_seconds']}"
            f" | {r['import_seconds'] / r['parse_only_seconds']:.1f}x | {r['peak_rss_mb']}"
            f" | {r['rss_after_setup_mb']} |"
        )
    largest = max(results, key=lambda r: r["items"])
    verdict = "meets" if largest["import_seconds"] <= TARGET_SECONDS else "MISSES"
    lines.append(
        f"\n{largest['items']:,} items in {largest['import_seconds']} s: {verdict} the"
        f" {TARGET_SECONDS} s target."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
