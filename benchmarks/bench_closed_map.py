"""The window's Explore map of a closed chain (issue 22): a 50 x 50 grid of the palletizer with a
parallelogram beside its serial twin, through the same map job the window runs in its worker.

Run: ``python -m benchmarks.bench_closed_map [--runs R] [--steps S]`` from the repository root
(prints figures; not a test). A closed chain's states close their loops one at a time in Python
(:class:`~designer.numeric.closed_batch.ClosedBatch`), the serial arm's are vectorised: the ratio says how
much longer the window's progress bar runs for the parallelogram; the number of progress steps
says how often the map can be cancelled.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.explore.joint_names import joint_numbers  # noqa: E402
from designer.explore.joints import explore_arm  # noqa: E402
from designer.explore.maps import Sampling, map_job  # noqa: E402
from designer.jobs import NEVER, run  # noqa: E402
from designer.project import load_project  # noqa: E402

from benchmarks.bench_derive import timed  # noqa: E402  (median of runs, and the last result)


def _map(arm, steps: int, metric: str):
    progress = []
    names = joint_numbers(arm)   # the second and third joints, by their names (the palletizer's q2, q4)
    pair = (names[1], names[2])
    result = run(map_job(arm, metric, pair, np.zeros(arm.n), steps, 0, Sampling.SOBOL, None, NEVER), progress.append)
    return result, len(progress)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args(argv)
    closed = explore_arm(load_project(ROOT / "robots" / "palletizer_parallelogram.json"))
    serial = explore_arm(load_project(ROOT / "robots" / "palletizer_serial.json"))
    print(f"{args.steps} x {args.steps} map of q2, q4 (q2, q3 for the serial twin), median of {args.runs} runs")
    for metric in ("coupling", "gravity[2]"):
        t_closed, (_r, steps_closed) = timed(lambda m=metric: _map(closed, args.steps, m), args.runs)
        t_serial, (_r, _s) = timed(lambda m=metric: _map(serial, args.steps, m), args.runs)
        print(f"  {metric:<12} parallelogram {t_closed:7.3f} s ({steps_closed} progress steps, "
              f"{1e3 * t_closed / args.steps ** 2:.2f} ms a state)   serial {t_serial:7.3f} s   "
              f"ratio {t_closed / t_serial:6.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
