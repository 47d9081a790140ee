"""Forward dynamics and a 1 s PD simulation of the PUMA 560 beside Pinocchio's ``aba``.

Run: ``python -m benchmarks.bench_simulate [--runs R] [--t T]`` (prints figures; not a test).

1. One call of forward dynamics at a random state: ours (``ArmDynamics.qdd``, the
   generated recursive code with an LDL^T solve, arrays in and out) against
   ``pinocchio.aba`` called from Python. Target: at most 50 us a call.
2. A 1 s simulation under joint-space PD control with gravity compensation
   (Kp = 100, Kd = 2 on every joint: the wrist's small inertia makes it stiff):
   ours (``designer.numeric.simulate.simulate``) against
   ``scipy.integrate.solve_ivp`` over ``pin.aba`` with the same control law,
   method and tolerances. Target: at most 5x the peer's time.
Runs are interleaved so that a busy machine slows both sides alike; medians are compared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from designer.kinematics import NumericArm
from designer.numeric import arm_dynamics
from designer.numeric.simulate import PDControl, simulate
from designer.project import load_project

ROOT = Path(__file__).resolve().parent.parent

KP, KD, RTOL, ATOL, METHOD = 100.0, 2.0, 1e-8, 1e-10, "DOP853"


def _per_call(fn, calls: int) -> float:
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--t", type=float, default=1.0, help="simulated seconds")
    args = ap.parse_args(argv)
    arm = NumericArm.from_model(load_project(ROOT / "robots" / "puma560.json"))
    dyn = arm_dynamics(arm)
    rng = np.random.default_rng(0)
    q, qd, tau = rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6), rng.uniform(-5, 5, 6)
    dyn.qdd(q, qd, tau)  # generate the code before timing
    try:
        import pinocchio as pin
        from tests.support.pin_reference import pin_model
    except ImportError:
        print("Pinocchio not installed (pip install pin): no peer figures")
        return 0
    model = pin_model(arm)
    data = model.createData()
    assert np.allclose(dyn.qdd(q, qd, tau), pin.aba(model, data, q, qd, tau), rtol=1e-10, atol=1e-10)

    ours, theirs = [], []
    for _ in range(args.runs * 3):
        ours.append(_per_call(lambda: dyn.qdd(q, qd, tau), args.calls))
        theirs.append(_per_call(lambda: pin.aba(model, data, q, qd, tau), args.calls))
    o, p = statistics.median(ours) * 1e6, statistics.median(theirs) * 1e6
    print(f"forward dynamics, one state: ours {o:.1f} us a call (target <= 50: {'met' if o <= 50 else 'NOT met'}), "
          f"pinocchio.aba {p:.2f} us; ratio {o / p:.1f}")

    from scipy.integrate import solve_ivp
    q0, target = np.zeros(6), np.full(6, 0.5)
    kp, kd = np.full(6, KP), np.full(6, KD)

    def peer():
        def rhs(t, y):
            x, v = y[:6], y[6:]
            u = kp * (target - x) - kd * v + pin.computeGeneralizedGravity(model, data, x)
            return np.concatenate([v, pin.aba(model, data, x, v, u)])
        return solve_ivp(rhs, (0.0, args.t), np.zeros(12), method=METHOD, rtol=RTOL, atol=ATOL)

    def mine():
        pd = PDControl(kp.tolist(), kd.tolist(), target.tolist())
        return simulate(arm, q0, np.zeros(6), (0.0, args.t), torque=pd, rtol=RTOL, atol=ATOL, method=METHOD)

    ours, theirs = [], []
    for _ in range(args.runs):
        t = time.perf_counter()
        traj = mine()
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        sol = peer()
        theirs.append(time.perf_counter() - t)
    gap = np.max(np.abs(traj.q[-1] - sol.y[:6, -1]))
    o, p = statistics.median(ours), statistics.median(theirs)
    print(f"{args.t:g} s PD run (Kp {KP:g}, Kd {KD:g}, {METHOD}, rtol {RTOL:g}): ours {o:.2f} s "
          f"({traj.steps} steps, {traj.evaluations} evaluations), solve_ivp over pin.aba {p:.2f} s "
          f"({sol.t.size - 1} steps, {sol.nfev} evaluations); final states differ by {gap:.1e} rad")
    print(f"ratio ours/peer: {o / p:.2f} of medians (target <= 5: {'met' if o / p <= 5 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
