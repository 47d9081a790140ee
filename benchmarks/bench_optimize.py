"""The tube arm's story, by the optimizer and by a grid search of the same space, in the same run.

Run: ``python -m benchmarks.bench_optimize [--grid 20] [--repeat 3]`` (prints figures; not a test).

The lightest tube arm (upper arm and forearm tube diameters D2, D3) for a 5 kg payload that sags at most
0.7 mm at home (``deflection``), keeps its lowest frequency at or above 45 Hz and whose elbow stays within a
planetary gearbox's repeated peak torque over a pick-and-place cycle (a quintic move of 1 s): the
optimizer (SLSQP, multi-start, docs/optimize.md) against every design of a G x G grid over the same box,
each design checked the same way, after one unmeasured evaluation and SciPy's import. Both run ``--repeat``
times, alternately; printed: each one's mass, evaluations and median time (and the range), and the ratio of
the medians. An evaluation is one design's every quantity (mass, sag, frequency, the cycle's torques) on both
sides; the optimizer also counts its gradient evaluations (every quantity's gradient at one design, from the
arm that design's evaluation built, designer/optimize/design_gradients.py) and re-checks its result with one
fresh evaluation, all inside its time.
Target: as light as the grid's best or lighter, at least ten times faster.

Then the two-objective story (``optimize --minimize mass --minimize deflection``): the Pareto front of mass
against the sag at home under the frequency and elbow-torque requirements, by NSGA-II (docs/optimize.md)
against the non-dominated set of a G x G grid of the same box, each checked the same way. Printed: each one's
time, evaluations and hypervolume (pymoo's, one reference point for both: 10 % beyond the worst of either set),
and the ratios. Target: the front's hypervolume at least the grid's, with fewer evaluations.
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
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side (the median time is compared)")
    ap.add_argument("--no-front", dest="front", action="store_false", help="leave out the two-objective story")
    ap.add_argument("--population", type=int, default=24)
    ap.add_argument("--generations", type=int, default=12)
    ap.add_argument("--workers", type=int, default=None, help="the front's populations on N worker processes")
    args = ap.parse_args()
    model = load_project(ROOT / "robots" / "tube_arm.json")
    elbow = load_catalog().gearbox("TP050-MF-10")
    cycle = quintic([0.0, 0.3, -0.6], [1.2, -0.2, 0.4], 1.0, steps=101)
    problem = Problem(model, (Variable("D2", 0.04, 0.15), Variable("D3", 0.04, 0.15)), "mass",
                      (parse_requirement("deflection<=0.7"), parse_requirement("frequency>=45"),
                       parse_requirement(f"peak_torque[2]<={elbow.peak_torque}")), payload=5.0, cycle=cycle)
    # warm, unmeasured, for both sides alike: one design evaluated and SciPy's optimizers imported (about 0.4 s
    # once per process, which the grid does not need)
    import scipy.optimize  # noqa: F401
    evaluate_design(problem, {"D2": 0.1, "D3": 0.1}, ())
    axis = np.linspace(0.04, 0.15, args.grid)
    opt_times, grid_times = [], []
    for _ in range(max(1, args.repeat)):
        t0 = time.perf_counter()
        result = optimize(problem, starts=3)
        opt_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        best = None
        for D2 in axis:
            for D3 in axis:
                d = evaluate_design(problem, {"D2": float(D2), "D3": float(D3)}, ())
                if d.feasible and (best is None or d.objective < best.objective):
                    best = d
        grid_times.append(time.perf_counter() - t0)
    t_opt, t_grid = float(np.median(opt_times)), float(np.median(grid_times))
    if result.best is None or best is None:
        print(f"no feasible design: optimizer {result.best is not None}, grid {best is not None}")
        return 1
    print(f"optimizer ({result.method}): mass {result.best.objective:.4f} kg at D2 {result.best.values['D2']:.5f}, "
          f"D3 {result.best.values['D3']:.5f}; {result.evaluations} evaluations + {result.gradient_evaluations} "
          f"gradient evaluations + 1 fresh re-check, {result.iterations} iterations over {result.starts} starts; "
          f"{t_opt:.3f} s (median of {len(opt_times)}: {', '.join(f'{t:.3f}' for t in opt_times)})")
    print(f"grid {args.grid}x{args.grid}: mass {best.objective:.4f} kg at D2 {best.values['D2']:.5f}, "
          f"D3 {best.values['D3']:.5f}; {args.grid**2} evaluations, {t_grid:.3f} s (median of {len(grid_times)}: "
          f"{', '.join(f'{t:.3f}' for t in grid_times)})")
    print("requirements at the optimizer's design: " + ", ".join(
        f"{r.text}: {v:.4g}" for r, v in zip(problem.requirements, result.best.quantities)))
    print(f"grid / optimizer time (medians): {t_grid / t_opt:.1f}x; "
          f"mass difference {result.best.objective - best.objective:+.4f} kg")
    return front_story(problem, axis, args) if args.front else 0


def front_story(problem: Problem, axis: np.ndarray, args) -> int:
    """mass and sag both minimized (the sag bound dropped: it is an objective now), the other requirements kept."""
    from dataclasses import replace

    from pymoo.indicators.hv import HV

    from designer.optimize.pareto import non_dominated, pareto
    two = replace(problem, requirements=problem.requirements[1:])
    names = ("mass", "deflection")
    t0 = time.perf_counter()
    front = pareto(two, names, population=args.population, generations=args.generations, seed=0,
                   workers=args.workers)
    t_front = time.perf_counter() - t0
    t0 = time.perf_counter()
    points = []
    for D2 in axis:
        for D3 in axis:
            d = evaluate_design(two, {"D2": float(D2), "D3": float(D3)}, (), objectives=names)
            if d.feasible:
                points.append(d.objectives)
    t_grid = time.perf_counter() - t0
    if not points or not front.designs:
        print(f"no feasible design: front {len(front.designs)}, grid {len(points)}")
        return 1
    grid = np.array(points)[non_dominated(np.array(points))]
    both = np.vstack([grid, front.objectives])
    ref = both.max(axis=0) + 0.1 * (both.max(axis=0) - both.min(axis=0))
    hv = HV(ref_point=ref)
    hv_front, hv_grid = float(hv(front.objectives)), float(hv(grid))
    where = "in this process" if args.workers is None else f"on {args.workers} worker processes"
    print(f"front (NSGA-II, population {args.population} x {args.generations} generations, {where}): "
          f"{len(front.designs)} designs, {front.evaluations} evaluations, {t_front:.2f} s, hypervolume {hv_front:.5g}")
    print(f"grid {len(axis)}x{len(axis)} non-dominated set: {len(grid)} designs, {len(axis) ** 2} evaluations, "
          f"{t_grid:.2f} s, hypervolume {hv_grid:.5g} (reference point mass {ref[0]:.4g} kg, sag {ref[1]:.4g} mm)")
    print(f"front / grid hypervolume: {hv_front / hv_grid:.4f}; grid / front evaluations: "
          f"{len(axis) ** 2 / front.evaluations:.2f}x; grid / front time: {t_grid / t_front:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
