"""Explore on a closed chain: the Christoffel symbols and Lee's split of the palletizer's parallelogram
(``designer/numeric/closed_terms.py``, per state in Python: polarization at n (n + 1) / 2 unit rates)
beside its serial twin's vectorised batch (``designer/numeric/batch.py``), at the same N states.

Run: ``python -m benchmarks.bench_closed_explore [--runs R] [--states N]`` from the repository root
(prints medians and the ratio; not a test).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.explore.joints import explore_arm  # noqa: E402
from designer.explore.metrics import Ratings, compute  # noqa: E402
from designer.kinematics import NumericArm  # noqa: E402
from designer.project import load_project  # noqa: E402

from benchmarks.bench_derive import timed  # noqa: E402  (median of runs, and the last result)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--states", type=int, default=500)
    args = p.parse_args(argv)
    closed = explore_arm(load_project(ROOT / "robots" / "palletizer_parallelogram.json"))
    serial = NumericArm.from_model(load_project(ROOT / "robots" / "palletizer_serial.json"))
    q = np.random.default_rng(0).uniform(-1, 1, (args.states, 4))
    r = Ratings.of(4, speed=2.0, acceleration=5.0)
    for metric in ("coupling", "coriolis", "tra_share"):
        t_c, _ = timed(lambda m=metric: compute(closed, q, m, r), args.runs)
        t_s, _ = timed(lambda m=metric: compute(serial, q, m, r), args.runs)
        print(f"{metric:<10} {args.states} states (median of {args.runs}): parallelogram {t_c * 1e3:.1f} ms "
              f"({t_c / args.states * 1e6:.0f} us a state), serial twin {t_s * 1e3:.1f} ms; ratio {t_c / t_s:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
