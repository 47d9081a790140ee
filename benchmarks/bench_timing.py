"""The cycle's time-optimal timing (designer/review/timing.py) on the PUMA 560, against toppra's stock torque
constraint fed by Pinocchio's RNEA one grid point at a time (the peer), in the same run.

Run: ``python -m benchmarks.bench_timing [--repeat 5] [--grid 101]`` (prints figures; not a test).

Both time the same three-waypoint cycle (two straight lines, rest to rest) under the same peak torques (gear
ratios and rotor inertias as tests/review/test_timing.py) with TOPP-RA on the same grid; ours takes the
constraint's coefficients from three batch inverse dynamics over the grid, the peer calls ``pin.rnea`` three times
per grid point. Printed: the median time of each, their ratio, and the two cycle times (they must agree to the
solver's tolerance: the dynamics are the same). Target: ours no slower than the peer.

The trajectory-file route (``time_optimal_path``: a file's path cut at its corners, each piece a spline through
its samples, re-timed) over the same poses: the two lines sampled as a file would give them (``--grid`` samples
per line, so the same grid), timed in the same run against the waypoint route. Printed: the median time of each,
their ratio and the two cycle times (the same lines, so the same cycle time to the solver's tolerance).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.explore.joints import explore_arm  # noqa: E402
from designer.project import load_project  # noqa: E402
from designer.review.timing import time_optimal_cycle, time_optimal_path  # noqa: E402

GEAR = np.array([62.6, 107.8, 53.7, 76.0, 71.9, 76.7])
ROTOR = np.full(6, 2e-4)
PEAK = np.array([180.0, 300.0, 160.0, 25.0, 20.0, 16.0])
SPEED = np.array([2.0, 1.5, 2.5, 4.0, 4.0, 5.0])
WAYPOINTS = np.array([(0, 0, 0, 0, 0, 0), (1.0, -0.7, 0.5, 0.3, -0.4, 0.9), (0.2, 0.3, -0.6, 0, 0.5, 0)], float)


def interleaved(repeat: int, first, second) -> tuple[tuple[float, float], tuple[float, float]]:
    """(median seconds, last value) of ``first()`` and of ``second()``, run in turn ``repeat`` times (a busy
    machine slows both alike), after one unmeasured run of each (ours generates its code on the first call)."""
    times: tuple[list[float], list[float]] = ([], [])
    values = [first(), second()]
    for _ in range(repeat):
        for k, fn in enumerate((first, second)):
            t0 = time.perf_counter()
            values[k] = fn()
            times[k].append(time.perf_counter() - t0)
    return (statistics.median(times[0]), values[0]), (statistics.median(times[1]), values[1])


def peer(model, grid: int) -> float:
    """toppra's JointTorqueConstraint with Pinocchio's RNEA per grid point, plus N^2 Jm qdd; the cycle's time."""
    import pinocchio as pin
    import toppra
    from toppra.algorithm import TOPPRA
    from toppra.constraint import DiscretizationType, JointTorqueConstraint, JointVelocityConstraint

    from tests.support.dyn_reference import pin_model
    pm = pin_model(model)
    data = pm.createData()
    reflected = GEAR**2 * ROTOR

    def inv_dyn(q, qd, qdd):
        return pin.rnea(pm, data, q, qd, qdd) + reflected * qdd
    torque = JointTorqueConstraint(inv_dyn, np.column_stack([-PEAK, PEAK]), np.zeros(6),
                                   discretization_scheme=DiscretizationType.Interpolation)
    speed = JointVelocityConstraint(np.column_stack([-SPEED, SPEED]))
    s = np.linspace(0.0, 1.0, grid)
    total = 0.0
    for a, b in zip(WAYPOINTS[:-1], WAYPOINTS[1:]):
        path = toppra.SimplePath(np.array([0.0, 1.0]), np.vstack([a, b]), np.vstack([b - a, b - a]))
        algo = TOPPRA([torque, speed], path, gridpoints=s)
        algo.compute_parameterization(0.0, 0.0)
        sd = np.maximum(algo.problem_data.sd_vec, 0.0)
        total += float(np.sum(2 * np.diff(s) / np.maximum(sd[:-1] + sd[1:], 1e-300)))
    return total


def file_path(grid: int) -> np.ndarray:
    """The waypoints' straight lines sampled ``grid`` points each (a line's first sample the last one's end), as a
    trajectory file's ``q1..q6`` columns would give the same poses."""
    u = np.linspace(0.0, 1.0, grid)[:, None]
    lines = [a + u * (b - a) for a, b in zip(WAYPOINTS[:-1], WAYPOINTS[1:])]
    return np.vstack([lines[0], *[line[1:] for line in lines[1:]]])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--grid", type=int, default=101)
    args = p.parse_args()
    import toppra
    toppra.setup_logging("CRITICAL")
    model = load_project(ROOT / "robots" / "puma560.json")
    arm = explore_arm(model)
    (o, ours_T), (q, peer_T) = interleaved(
        args.repeat, lambda: float(time_optimal_cycle(arm, WAYPOINTS, PEAK, SPEED, GEAR, ROTOR, args.grid).t[-1]),
        lambda: peer(model, args.grid))
    print(f"PUMA 560, 3 waypoints, {args.grid} grid points per line, {args.repeat} runs (medians)")
    print(f"  ours (batch inverse dynamics): {1e3 * o:8.1f} ms   cycle time {ours_T:.6f} s")
    print(f"  peer (toppra + pin.rnea/pt):   {1e3 * q:8.1f} ms   cycle time {peer_T:.6f} s")
    print(f"  ratio peer/ours {q / o:.2f}; cycle times differ by {abs(ours_T - peer_T) / peer_T:.2e} (relative)")
    path = file_path(args.grid)
    (w, line_T), (f, file_T) = interleaved(
        args.repeat, lambda: float(time_optimal_cycle(arm, WAYPOINTS, PEAK, SPEED, GEAR, ROTOR, args.grid).t[-1]),
        lambda: float(time_optimal_path(arm, path, PEAK, SPEED, GEAR, ROTOR).t[-1]))
    print(f"trajectory-file route: the same two lines as a file path of {len(path)} samples, {args.repeat} runs")
    print(f"  waypoints (time_optimal_cycle): {1e3 * w:8.1f} ms   cycle time {line_T:.6f} s")
    print(f"  file path (time_optimal_path):  {1e3 * f:8.1f} ms   cycle time {file_T:.6f} s")
    print(f"  ratio file/waypoints {f / w:.2f}; cycle times differ by {abs(file_T - line_T) / line_T:.2e} (relative)")


if __name__ == "__main__":
    main()
