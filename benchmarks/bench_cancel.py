"""How fast a cancel lands, where the tests only ask that it lands (tests wait for states, not the clock).

Run: ``python benchmarks/bench_cancel.py [--runs N]``. Not a test. Headless.

1. The PUMA 560's derivation (robots/puma560.json, full simplification) for each method, in a worker
   thread: cancelled 0.3 s after its first progress report; the figure is the time from ``token.cancel()``
   to the job's ``Cancelled``. The peer, same run: the longest interval between the job's own progress
   reports before the cancel (the longest the user sees it stand still): a cancel should not be slower.
2. A busy block with no check of its own inside ``jobs.interrupt.interruptible``: time from the cancel to
   ``Cancelled``, against the watcher's period (``interrupt.POLL``).
Medians and the worst of N runs are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.dynamics.engine import derive_job  # noqa: E402
from designer.dynamics.results import Method, SimplifyMode  # noqa: E402
from designer.jobs import Cancelled, CancelToken, run  # noqa: E402
from designer.jobs import interrupt  # noqa: E402
from designer.project import load_project  # noqa: E402


def derivation_cancel(model, method) -> tuple[float, float]:
    """(seconds from cancel to Cancelled, the longest seconds between progress reports before it)."""
    token = CancelToken()
    reports: list[float] = []
    first = threading.Event()
    ended: dict = {}

    def progress(step) -> None:
        reports.append(time.perf_counter())
        first.set()

    def work() -> None:
        try:
            run(derive_job(model, method, SimplifyMode.FULL, token), progress, token)
            ended["how"] = "finished"
        except Cancelled:
            ended["how"] = "cancelled"
        ended["at"] = time.perf_counter()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    first.wait(600)
    time.sleep(0.3)
    asked = time.perf_counter()
    before = [t for t in reports if t <= asked]
    token.cancel()
    thread.join(600)
    if ended.get("how") != "cancelled":
        raise SystemExit(f"{method.value}: the derivation {ended.get('how', 'never ended')} instead of cancelling")
    gaps = [b - a for a, b in zip(before, before[1:])] or [float("nan")]
    return ended["at"] - asked, max(gaps)


def block_cancel() -> float:
    token = CancelToken()
    inside = threading.Event()
    stamp: dict = {}

    def cancel() -> None:
        inside.wait(60)
        time.sleep(0.2)
        stamp["asked"] = time.perf_counter()
        token.cancel()
    threading.Thread(target=cancel, daemon=True).start()
    start = time.perf_counter()
    try:
        with interrupt.interruptible(token):
            while time.perf_counter() - start < 60:
                inside.set()
                sum(range(100))
    except Cancelled:
        return time.perf_counter() - stamp["asked"]
    raise SystemExit("the busy block was not cancelled")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    model = load_project(ROOT / "robots" / "puma560.json")
    print(f"{args.runs} runs each; load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for method in Method:
        rows = [derivation_cancel(model, method) for _ in range(args.runs)]
        lat = sorted(r[0] for r in rows)
        gap = max(r[1] for r in rows)
        print(f"derivation {method.value:14s}: cancel to Cancelled median {1000 * statistics.median(lat):7.1f} ms, "
              f"worst {1000 * lat[-1]:7.1f} ms; longest gap between progress reports {1000 * gap:7.1f} ms; "
              f"ratio (worst) {lat[-1] / gap:.2f}")
    lat = sorted(block_cancel() for _ in range(args.runs))
    period = interrupt.POLL
    ratio = f"; ratio to the watcher's period {statistics.median(lat) / period:.2f}"
    print(f"busy block      : cancel to Cancelled median {1000 * statistics.median(lat):6.1f} ms, "
          f"worst {1000 * lat[-1]:6.1f} ms{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
