"""What the links' bending costs in a closed chain's frequency map (numeric/closed_flex.py).

Run: ``python -m benchmarks.bench_closed_flex [--runs R] [--grid G]`` (prints figures; not a test).

The bundled palletizer (robots/palletizer_parallelogram.json) with its upper arm (aluminium tube 160 x 6 mm) and
its coupler rod (steel tube 50 x 4 mm) as parts and gearboxes on the actuated joints (300, 400, 200 and
50 kN m/rad), a G x G grid of the shoulder q2 and the elbow drive q4: the `frequency` metric (gearboxes, rigid
links, M_a batched) beside `frequency_links` at 2 slices per tube (the loops closed over the slices pose by pose),
and as the peer the serial tube arm's `frequency_links` over the same number of poses (vectorised over poses).
Per-pose times are printed: the closed chain's cost per pose against the serial model's is the ratio to watch.
Runs are interleaved; medians are printed, and the worst of ours.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from designer.explore.joints import explore_arm
from designer.explore.metrics import drive_ratings
from designer.explore.metrics import Ratings, evaluate
from designer.kinematics import NumericArm
from designer.numeric.elastic import elastic_joints
from designer.numeric.flex_modes import lowest_flex_frequency
from designer.project import load_project
from designer.project.io import loads_project

ROOT = Path(__file__).resolve().parent.parent
GEARS = {0: 3e5, 1: 4e5, 3: 2e5, 5: 5e4}


def palletizer_tubes():
    d = json.loads((ROOT / "robots" / "palletizer_parallelogram.json").read_text())
    for i, part in ((1, {"shape": "tube", "material": "aluminium 6061-T6", "outer_diameter": 0.16, "wall": 0.006}),
                    (4, {"shape": "tube", "material": "steel", "outer_diameter": 0.05, "wall": 0.004})):
        for key in ("mass", "com", "inertia"):
            d["links"][i].pop(key)
        d["links"][i]["part"] = part
    for i, k in GEARS.items():
        d["links"][i]["drive"] = {"stiffness": k}
    return loads_project(json.dumps(d))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--grid", type=int, default=20, help="grid points per joint")
    args = ap.parse_args(argv)
    model = palletizer_tubes()
    arm = explore_arm(model)
    r = Ratings(**drive_ratings(model))
    a = np.linspace(-0.8, 0.8, args.grid)
    Q = np.zeros((args.grid, args.grid, 4))
    Q[..., 1], Q[..., 2] = np.meshgrid(a, a, indexing="ij")
    Q = Q.reshape(-1, 4)
    tube = load_project(ROOT / "robots" / "tube_arm.json")
    tarm, tjoints = NumericArm.from_model(tube), elastic_joints(tube)
    Qt = np.random.default_rng(0).uniform(-2.6, 0.0, (len(Q), 3))
    evaluate(arm, Q[:2], "frequency_links", r), lowest_flex_frequency(tarm, tjoints, Qt[:2], 2)   # warm up
    times: dict[str, list[float]] = {}
    out: dict[str, np.ndarray] = {}
    for _ in range(args.runs):
        for name, fn in (("rigid", lambda: evaluate(arm, Q, "frequency", r)),
                         ("links", lambda: evaluate(arm, Q, "frequency_links", r)),
                         ("serial", lambda: lowest_flex_frequency(tarm, tjoints, Qt, 2))):
            t0 = time.perf_counter()
            out[name] = fn()
            times.setdefault(name, []).append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    N = len(Q)
    print(f"palletizer with two tubes, {args.grid} x {args.grid} poses of q2 and q4:")
    print(f"  frequency (gearboxes, rigid links)  median {med['rigid'] * 1e3:8.1f} ms "
          f"({med['rigid'] / N * 1e3:.3f} ms a pose); "
          f"{np.nanmin(out['rigid']):.2f} to {np.nanmax(out['rigid']):.2f} Hz")
    print(f"  frequency_links, 2 slices           median {med['links'] * 1e3:8.1f} ms "
          f"({med['links'] / N * 1e3:.3f} ms a pose, worst {max(times['links']) / N * 1e3:.3f}); "
          f"{np.nanmin(out['links']):.2f} to {np.nanmax(out['links']):.2f} Hz, "
          f"{100 * np.nanmax(1 - out['links'] / out['rigid']):.1f} % below the rigid links at most")
    print(f"  peer: serial tube arm frequency_links, 2 slices, {N} poses: median {med['serial'] * 1e3:.1f} ms "
          f"({med['serial'] / N * 1e3:.3f} ms a pose); ratio closed/serial per pose {med['links'] / med['serial']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
