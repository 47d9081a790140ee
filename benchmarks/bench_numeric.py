"""Vectorised mass matrix of the PUMA 560 beside Pinocchio's crba in a Python loop.

Run: ``python -m benchmarks.bench_numeric [--states N] [--runs R]`` (prints figures; not a test).

The PUMA's equations are derived symbolically (Lagrange, default parameter
values substituted first, no simplification, as ``eval`` does), compiled with
common-subexpression elimination, and M(q) is evaluated for N random states
at once with numpy. The peer: ``pinocchio.crba`` called once per state from
Python, on the same states. Target: at most 0.36 of the peer's time (medians). Beside them, the
numeric engine's M (composite rigid bodies generated as flat numpy code from the
arm's numbers, no symbolic derivation: ``designer.numeric.ArmDynamics.M``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from designer.dynamics import derive  # noqa: E402
from designer.dynamics.results import Method, SimplifyMode  # noqa: E402
from designer.kinematics import NumericArm  # noqa: E402
from designer.numeric import ArmDynamics  # noqa: E402
from designer.numeric.compiled import compile_equations  # noqa: E402
from designer.project import load_project  # noqa: E402


def _times(fn, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args(argv)
    model = load_project(ROOT / "robots" / "puma560.json")
    t = time.perf_counter()
    eq = derive(model.numeric(), Method.LAGRANGE, SimplifyMode.OFF)
    t_derive = time.perf_counter() - t
    t = time.perf_counter()
    cd = compile_equations(eq, horner=("M",))
    t_compile = time.perf_counter() - t
    print(f"PUMA 560, numeric parameters: derive (lagrange, off) {t_derive:.2f} s, compile {t_compile:.2f} s, "
          f"M upper triangle {cd.operations['M']} operations after Horner form and CSE")

    Q = np.random.default_rng(0).uniform(-np.pi, np.pi, (args.states, 6))
    try:
        import pinocchio as pin
        from tests.support.pin_reference import pin_model
    except ImportError:
        print("Pinocchio not installed (pip install pin): no peer figure")
        pin = None
    if pin is None:
        t = _times(lambda: cd.M_many(Q), args.runs)
        print(f"ours: M_many over {args.states:,} states: median {statistics.median(t):.4f} s, min {min(t):.4f} s")
        return 0
    arm = NumericArm.from_model(model)
    t = time.perf_counter()
    engine = ArmDynamics(arm)
    engine.M(Q[:2])
    print(f"numeric engine: M generated and compiled in {time.perf_counter() - t:.3f} s, "
          f"{engine.operations['M']} operations")
    pmodel = pin_model(arm)
    data = pmodel.createData()

    def peer():
        for q in Q:
            pin.crba(pmodel, data, q)

    # the two must agree before their times mean anything
    ours_M, engine_M = cd.M_many(Q[:200]), engine.M(Q[:200])
    for k in range(200):
        M = pin.crba(pmodel, data, Q[k])
        M = np.triu(M) + np.triu(M, 1).T
        assert np.allclose(ours_M[k], M, rtol=1e-10, atol=1e-12)
        assert np.allclose(engine_M[k], M, rtol=1e-10, atol=1e-12)
    # interleaved, so that a busy machine slows both sides alike
    ours, theirs, eng = [], [], []
    for _ in range(args.runs):
        ours += _times(lambda: cd.M_many(Q), 1)
        theirs += _times(peer, 1)
        eng += _times(lambda: engine.M(Q), 1)
    for label, t in (("ours: M_many, vectorised", ours), ("peer: pinocchio.crba in a Python loop", theirs),
                     ("numeric engine: ArmDynamics.M, vectorised", eng)):
        print(f"{label} over {args.states:,} states, {args.runs} runs: median {statistics.median(t):.4f} s, "
              f"min {min(t):.4f} s")
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(f"ratio ours/peer: {ratio:.3f} of medians, {min(ours) / min(theirs):.3f} of minima "
          f"(target <= 0.36: {'met' if ratio <= 0.36 else 'NOT met'}); "
          f"numeric engine/peer: {statistics.median(eng) / statistics.median(theirs):.3f} of medians")
    return 0


if __name__ == "__main__":
    sys.exit(main())
