"""Speed of design exploration, beside the same work done with Pinocchio in a Python loop.

Run: ``python -m benchmarks.bench_explore`` (prints figures; not a test).

1. Inertial coupling rho_ij = M_ij / sqrt(M_ii M_jj) of the PUMA 560 over a
   200 x 200 grid of joints 2 and 3 (target: under 30 ms of compute), M from the recursive engine's code
   run once on the grid's broadcast axes (explore/maps.py's grid_values), beside the same engine state by
   state (the route before), M from the bodies' Jacobians and Pinocchio's crba in a loop, in the same run.
2. A 20 x 20 design sweep (a2, m3) of the PUMA 560, 1,000 Sobol workspace
   samples per design, worst coupling and peak shoulder gravity torque per design
   (target: under 10 s on two cores).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from designer.explore.maps import evaluate_states, grid_map, grid_states, sample_configurations  # noqa: E402
from designer.explore.metrics import evaluate  # noqa: E402
from designer.explore.sweep import SweepAxis, SweepSpec, sweep  # noqa: E402
from designer.jobs import run  # noqa: E402
from designer.kinematics import NumericArm  # noqa: E402
from designer.project import load_project  # noqa: E402


def _pin():
    try:
        import pinocchio as pin
        from tests.support.pin_reference import pin_coupling, pin_model
        return pin, pin_model, pin_coupling
    except ImportError:
        return None, None, None


def _medians(fn, repeats: int = 7) -> tuple[float, float, object]:
    """(median wall, median CPU seconds, the last result) of ``repeats`` calls."""
    walls, cpus = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return float(np.median(walls)), float(np.median(cpus)), out


def bench_grid(model) -> None:
    arm = NumericArm.from_model(model)
    q0 = np.zeros(arm.n)
    grid_map(arm, "coupling", (2, 3), q0, steps=20)  # warm up (the recursive engine's code: ~10 ms, once)
    ours, cpu, gm = _medians(lambda: grid_map(arm, "coupling", (2, 3), q0, steps=200))
    print(f"(machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"coupling, 200 x 200 grid, PUMA 560, M by the recursive engine on the grid's axes: {1e3 * ours:.1f} ms "
          f"wall, {1e3 * cpu:.1f} ms CPU, medians of 7 (target < 30 ms: {'met' if ours < 0.030 else 'NOT met'})")
    _, _, Q = grid_states(arm, (2, 3), q0, 200)
    states, states_cpu, by_state = _medians(lambda: evaluate_states(arm, Q, "coupling"))
    print(f"  the same engine state by state (the route before): {1e3 * states:.1f} ms wall, {1e3 * states_cpu:.1f} ms "
          f"CPU; ratio ours/that = {ours / states:.2f} (wall); identical values: "
          f"{np.array_equal(by_state, gm.values.ravel(), equal_nan=True)}")
    before, before_cpu, old = _medians(lambda: evaluate(arm, Q, "coupling"))
    print(f"  M from the bodies' Jacobians (the route before that): {1e3 * before:.1f} ms wall, "
          f"{1e3 * before_cpu:.1f} ms "
          f"CPU; ratio ours/Jacobians = {ours / before:.2f} (wall), {cpu / before_cpu:.2f} (CPU); max difference "
          f"{np.abs(old - gm.values.ravel()).max():.1e}")
    _bench_compiled(model, arm, q0, cpu)
    pin, pin_model, pin_coupling = _pin()
    if pin is None:
        print("  (Pinocchio not installed: no peer figure)")
        return
    X, Y = np.meshgrid(gm.x, gm.y)
    Q = np.tile(q0, (X.size, 1))
    Q[:, 1], Q[:, 2] = X.ravel(), Y.ravel()
    pm = pin_model(arm)
    t, c = time.perf_counter(), time.process_time()
    ref = pin_coupling(pm, pm.createData(), Q)
    peer, peer_cpu = time.perf_counter() - t, time.process_time() - c
    err = np.abs(ref - gm.values.ravel()).max()
    print(f"  Pinocchio crba in a Python loop: {peer:.3f} s wall, {peer_cpu:.3f} s CPU; ratio peer/ours "
          f"= {peer / ours:.1f} (wall), {peer_cpu / cpu:.1f} (CPU); max difference {err:.1e}")


def _bench_compiled(model, arm, q0, cpu_batch: float) -> None:
    """The same grid with M from the compiled symbolic dynamics (derived and compiled once); ``cpu_batch`` the
    routed map's CPU seconds."""
    try:
        from designer.dynamics.engine import derive
        from designer.dynamics.results import Method, SimplifyMode
        from designer.numeric.compiled import compile_equations
    except ImportError:
        return
    t = time.perf_counter()
    compiled = compile_equations(derive(model.numeric(), Method.LAGRANGE, SimplifyMode.FAST))
    setup = time.perf_counter() - t
    grid_map(arm, "coupling", (2, 3), q0, steps=20, compiled=compiled)
    t, c = time.perf_counter(), time.process_time()
    grid_map(arm, "coupling", (2, 3), q0, steps=200, compiled=compiled)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    print(f"  with compiled M (designer.numeric.compiled, derived + compiled once in {setup:.1f} s): "
          f"{wall:.3f} s wall, {cpu:.3f} s CPU (CPU ratio compiled/recursive engine = {cpu / cpu_batch:.2f})")


def bench_sweep(model) -> None:
    spec = SweepSpec((SweepAxis.linspace("a2", 0.3, 0.6, 20), SweepAxis.linspace("m3", 2.0, 8.0, 20)),
                     ("coupling", "gravity[2]"), ("max",), samples=1000)
    t = time.perf_counter()
    with cf.ProcessPoolExecutor(2) as pool:
        res = run(sweep(model, spec, executor=pool))
    ours = time.perf_counter() - t
    print(f"(machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"20 x 20 design sweep, 1,000 samples each, 2 processes: {ours:.2f} s (target < 10 s)"
          f"{'; errors: ' + str(len(res.errors)) if res.errors else ''}")
    pin, pin_model, pin_coupling = _pin()
    if pin is None:
        return
    t = time.perf_counter()
    worst = []
    for a2 in spec.axes[0].values:
        for m3 in spec.axes[1].values:
            arm = NumericArm.from_model(model, {"a2": a2, "m3": m3})
            Q = sample_configurations(arm, spec.samples, spec.sampling, spec.seed)
            pm = pin_model(arm)
            data = pm.createData()
            worst.append(pin_coupling(pm, data, Q).max())
            for q in Q:
                pin.computeGeneralizedGravity(pm, data, q)
    peer = time.perf_counter() - t
    err = np.abs(np.array(worst) - res.column("coupling:max")).max()
    print(f"  Pinocchio in a Python loop, one core: {peer:.2f} s; ratio peer/ours = {peer / ours:.1f}; "
          f"max difference {err:.1e}")


if __name__ == "__main__":
    puma = load_project(ROOT / "robots" / "puma560.json")
    bench_grid(puma)
    bench_sweep(puma)
