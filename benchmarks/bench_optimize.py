"""The tube arm's story, by the optimizer and by a grid search of the same space, in the same run.

Run: ``python -m benchmarks.bench_optimize [--grid 20]`` (prints figures; not a test).

The lightest tube arm (upper arm and forearm tube diameters D2, D3) for a 5 kg payload that sags at most
0.7 mm at home (``deflection``), keeps its lowest frequency at or above 45 Hz and whose elbow stays within a
planetary gearbox's repeated peak torque over a pick-and-place cycle (a quintic move of 1 s): the
optimizer (SLSQP, multi-start, docs/optimize.md) against every design of a G x G grid over the same box,
each design checked the same way. Printed: each one's mass, evaluations and time, and the ratio of the times.
Target: as light as the grid's best or lighter, at least ten times faster.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.catalog import load_catalog  # noqa: E402
from designer.explore.sizing import quintic  # noqa: E402
from designer.optimize.problem import Problem, Variable, evaluate_design, optimize, parse_requirement  # noqa: E402
from designer.project import load_project  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid", type=int, default=20)
    args = ap.parse_args()
    model = load_project(ROOT / "robots" / "tube_arm.json")
    elbow = load_catalog().gearbox("TP050-MF-10")
    cycle = quintic([0.0, 0.3, -0.6], [1.2, -0.2, 0.4], 1.0, steps=101)
    problem = Problem(model, (Variable("D2", 0.04, 0.15), Variable("D3", 0.04, 0.15)), "mass",
                      (parse_requirement("deflection<=0.7"), parse_requirement("frequency>=45"),
                       parse_requirement(f"peak_torque[2]<={elbow.peak_torque}")), payload=5.0, cycle=cycle)
    t0 = time.perf_counter()
    result = optimize(problem, starts=3)
    t_opt = time.perf_counter() - t0
    t0 = time.perf_counter()
    best = None
    axis = np.linspace(0.04, 0.15, args.grid)
    for D2 in axis:
        for D3 in axis:
            d = evaluate_design(problem, {"D2": float(D2), "D3": float(D3)}, ())
            if d.feasible and (best is None or d.objective < best.objective):
                best = d
    t_grid = time.perf_counter() - t0
    if result.best is None or best is None:
        print(f"no feasible design: optimizer {result.best is not None}, grid {best is not None}")
        return 1
    print(f"optimizer: mass {result.best.objective:.4f} kg at D2 {result.best.values['D2']:.5f}, "
          f"D3 {result.best.values['D3']:.5f}; {result.evaluations} evaluations, {t_opt:.2f} s")
    print(f"grid {args.grid}x{args.grid}: mass {best.objective:.4f} kg at D2 {best.values['D2']:.5f}, "
          f"D3 {best.values['D3']:.5f}; {args.grid**2} evaluations, {t_grid:.2f} s")
    print("requirements at the optimizer's design: " + ", ".join(
        f"{r.text}: {v:.4g}" for r, v in zip(problem.requirements, result.best.quantities)))
    print(f"grid / optimizer time: {t_grid / t_opt:.1f}x; "
          f"mass difference {result.best.objective - best.objective:+.4f} kg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
