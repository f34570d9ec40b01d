"""Where a worker's time goes on one endpoint under load, on the data of the last
`BENCH_KEEP_DB=1 make bench`, to find what to make cheaper before changing anything.

    .venv/bin/python -m bench.overall.profile get_chat --seconds 10

Starts the production server with one gevent worker, sends the endpoint's requests with wrk at
the given concurrency, records the worker with py-spy meanwhile, and prints the functions with
the most samples: on their own (self) and with what they call (total). The collapsed stacks
are kept in var/bench/profile-<endpoint>.txt (flame graph tools read them).
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import threading
from pathlib import Path

from bench.overall.compare import _headers
from bench.overall.deployment import ROOT, VAR, Deployment
from bench.overall.loadgen import measure

NOISE = ("gevent/", "greenlet", "<frozen", "threading.py", "selectors.py", "socket.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("endpoint", help="a key of make bench: get_chat, list_messages, ...")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--setting", action="append", default=[], help="NAME=VALUE for the server")
    args = parser.parse_args()
    py_spy = shutil.which("py-spy") or str(ROOT / ".venv/bin/py-spy")

    fixtures = json.loads((VAR / "fixtures.json").read_text())
    deployment = Deployment()
    deployment.extra_env = dict(setting.split("=", 1) for setting in args.setting)
    output = VAR / f"profile-{args.endpoint}.txt"
    with deployment.server(workers=1, log_name="profile") as server:
        (worker,) = server.workers()
        recorder = subprocess.Popen(
            [
                py_spy,
                "record",
                "--pid",
                str(worker.pid),
                "--rate",
                str(args.rate),
                "--duration",
                str(int(args.seconds)),
                "--format",
                "raw",
                "--output",
                str(output),
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        load = threading.Thread(
            target=measure,
            kwargs={
                "endpoint": args.endpoint,
                "base_url": server.url,
                "requests_file": VAR / f"requests-{args.endpoint}.txt",
                "concurrency": args.concurrency,
                "seconds": args.seconds + 1,
                "headers": _headers(fixtures, args.endpoint),
            },
        )
        load.start()
        recorder.wait()
        load.join()
    report(output, top=args.top)


def report(path: Path, *, top: int) -> None:
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    samples = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        count = int(count_text)
        frames = [_short(frame) for frame in stack.split(";")]
        samples += count
        own[frames[-1]] += count
        for frame in set(frames):
            total[frame] += count
    print(f"{samples} samples; {path}")
    for title, counter in (("self", own), ("total (with callees)", total)):
        print(f"\n-- {title}")
        shown = 0
        for frame, count in counter.most_common():
            if title != "self" and any(noise in frame for noise in NOISE):
                continue
            print(f"{100 * count / samples:5.1f}%  {frame}")
            shown += 1
            if shown == top:
                break


def _short(frame: str) -> str:
    """`function (path/to/module.py:line)` without the line and the site-packages prefix."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").rsplit(":", 1)[0]
    where = where.split("site-packages/")[-1].removeprefix(f"{ROOT}/")
    return f"{name} ({where})"


if __name__ == "__main__":
    main()
