"""Forward dynamics of one state, a 1 s PD move and a 1 s passive fall beside Pinocchio's ``aba``.

Run: ``python -m benchmarks.bench_simulate [--runs R] [--t T]`` (prints figures; not a test).

1. One call of forward dynamics at a random state, the PUMA 560 and a random 7-joint arm:
   ours (``ArmDynamics.qdd``, arrays in and out) with the machine code
   (:mod:`designer.numeric.native`) and, for comparison, with the generated Python alone,
   against ``pinocchio.aba`` called from Python. Target: at most 1.0x ``aba``.
2. A 1 s move of the PUMA under joint-space PD control with gravity compensation
   (Kp = 100, Kd = 2 on every joint: the wrist's small inertia makes it stiff), and 3. a 1 s
   passive fall from rest at q = 0.3 on every joint: ours
   (``designer.numeric.simulate.simulate``) against ``scipy.integrate.solve_ivp`` over
   ``pin.aba`` with the same torque law, method (DOP853) and tolerances (1e-8 / 1e-10).
   Target: at most 1.0x the peer, the same final state to 1e-10.
4. The integrator chosen by the problem (issue 31): ``simulate --elastic`` of the four-joint arm with stiff,
   undamped gearboxes (tests/support/stiff_arm.py, 2,963 to 31,730 N m/rad), 1 s of free vibration at rtol 1e-10,
   with its defaults (the problem picks: DOP853) against the same command with ``--method Radau`` (the default
   before), run in this process; wall and CPU seconds, their ratio, and the largest difference of the link
   angles (target: under 2 s, the answer unchanged to 1e-9 rad). ``--only choice`` runs this part alone.
Runs are interleaved so that a busy machine slows both sides alike; medians are compared (at least 5).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric import ArmDynamics, arm_dynamics
from designer.numeric.simulate import PDControl, simulate
from designer.project import load_project

ROOT = Path(__file__).resolve().parent.parent

KP, KD, RTOL, ATOL, METHOD = 100.0, 2.0, 1e-8, 1e-10, "DOP853"


def _per_call(fn, calls: int) -> float:
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def _one_state(name: str, arm: NumericArm, runs: int, calls: int, pin, pin_model) -> None:
    dyn = arm_dynamics(arm)
    python = ArmDynamics(arm)
    python._native = None         # the generated Python alone, for comparison
    if dyn.native is None:
        print("no machine code on this machine (see the notice above): ours is the generated Python")
    rng = np.random.default_rng(0)
    q, qd, tau = (rng.uniform(-1, 1, arm.n) for _ in range(3))
    model = pin_model(arm)
    data = model.createData()
    expected = pin.aba(model, data, q, qd, tau)
    assert np.allclose(dyn.qdd(q, qd, tau), expected, rtol=1e-10, atol=1e-10)
    assert np.allclose(python.qdd(q, qd, tau), expected, rtol=1e-10, atol=1e-10)
    ours, plain, theirs = [], [], []
    for _ in range(runs):
        ours.append(_per_call(lambda: dyn.qdd(q, qd, tau), calls))
        plain.append(_per_call(lambda: python.qdd(q, qd, tau), calls))
        theirs.append(_per_call(lambda: pin.aba(model, data, q, qd, tau), calls))
    o, y, p = (statistics.median(v) * 1e6 for v in (ours, plain, theirs))
    print(f"forward dynamics, one state, {name}: ours {o:.2f} us a call (generated Python alone {y:.2f} us), "
          f"pinocchio.aba {p:.2f} us; ratio ours/aba {o / p:.2f} (target <= 1.0: {'met' if o <= p else 'NOT met'}), "
          f"Python alone/aba {y / p:.2f}")


def _simulation(label: str, runs: int, mine, peer) -> None:
    ours, theirs = [], []
    for _ in range(runs):
        t = time.perf_counter()
        traj = mine()
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        sol = peer()
        theirs.append(time.perf_counter() - t)
    n = traj.q.shape[1]
    gap = max(np.max(np.abs(traj.q[-1] - sol.y[:n, -1])), np.max(np.abs(traj.qd[-1] - sol.y[n:, -1])))
    o, p = statistics.median(ours), statistics.median(theirs)
    print(f"{label}: ours {o * 1e3:.1f} ms ({traj.steps} steps, {traj.evaluations} evaluations), "
          f"solve_ivp over pin.aba {p * 1e3:.1f} ms ({sol.t.size - 1} steps, {sol.nfev} evaluations); "
          f"final states differ by {gap:.1e}")
    print(f"  ratio ours/peer: {o / p:.2f} of medians (target <= 1.0: {'met' if o <= p else 'NOT met'}; "
          f"same final state to 1e-10: {'yes' if gap <= 1e-10 else 'NO'})")


def _cli_run(argv: list[str], out: Path) -> tuple[float, float, np.ndarray, str]:
    """(wall s, CPU s, the q columns, the summary line) of one ``designer simulate`` run in this process."""
    import contextlib
    import csv
    import io
    from designer.cli import main as cli
    err = io.StringIO()
    t, c = time.perf_counter(), time.process_time()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):   # with --out the summary is on stdout
        code = cli([*argv, "--out", str(out), "--quiet"])
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    if code != 0:
        raise RuntimeError(err.getvalue())
    with out.open() as f:
        rows = list(csv.DictReader(f))
    q = np.array([[float(r[k]) for k in r if k.startswith("q") and k[1:].isdigit()] for r in rows])
    return wall, cpu, q, err.getvalue().strip()


def bench_choice(runs: int) -> None:
    """Part 4 of the module docstring."""
    import tempfile
    from tests.support.stiff_arm import Q0, write_stiff_arm
    with tempfile.TemporaryDirectory() as folder:
        path = write_stiff_arm(Path(folder))
        argv = ["simulate", str(path), "--elastic", "--q0", *map(str, Q0), "--t", "1", "--rtol", "1e-10"]
        auto, radau = [], []
        for _ in range(runs):
            auto.append(_cli_run(argv, Path(folder) / "auto.csv"))
            radau.append(_cli_run([*argv, "--method", "Radau"], Path(folder) / "radau.csv"))
    # the rows are each method's own steps: compare at the end, and along the run on the auto run's times
    gap = float(np.abs(auto[-1][2][-1] - radau[-1][2][-1]).max())
    aw, ac = statistics.median(r[0] for r in auto), statistics.median(r[1] for r in auto)
    rw, rc = statistics.median(r[0] for r in radau), statistics.median(r[1] for r in radau)
    print(f"simulate --elastic, four-joint stiff arm, 1 s free vibration, rtol 1e-10 (medians of {runs}):")
    print(f"  defaults (the problem chooses): {aw:.2f} s wall, {ac:.2f} s CPU; --method Radau: {rw:.2f} s wall, "
          f"{rc:.2f} s CPU; ratio chosen/Radau {aw / rw:.3f} (wall), {ac / rc:.3f} (CPU)")
    print(f"  target < 2 s: {'met' if ac < 2.0 else 'NOT met'} (CPU); final link angles differ by {gap:.1e} rad "
          f"(1e-9 or better: {'yes' if gap <= 1e-9 else 'NO'})")
    print(f"  defaults' summary: {auto[-1][3]}")
    print(f"  forced summary:    {radau[-1][3]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--t", type=float, default=1.0, help="simulated seconds")
    ap.add_argument("--only", choices=["choice"], help="run one part alone")
    args = ap.parse_args(argv)
    if args.only == "choice":
        bench_choice(args.runs)
        return 0
    arm = NumericArm.from_model(load_project(ROOT / "robots" / "puma560.json"))
    try:
        import pinocchio as pin
        from tests.support.pin_reference import pin_model, random_arm
    except ImportError:
        print("Pinocchio not installed (pip install pin): no peer figures")
        return 0
    seven = random_arm(np.random.default_rng(7), 7, Convention.STANDARD, "RRRRRRR")
    _one_state("PUMA 560", arm, args.runs, args.calls, pin, pin_model)
    _one_state("random 7-joint arm", seven, args.runs, args.calls, pin, pin_model)

    from scipy.integrate import solve_ivp
    model = pin_model(arm)
    data = model.createData()
    target = np.full(6, 0.5)
    kp, kd = np.full(6, KP), np.full(6, KD)

    def pd_peer():
        def rhs(t, y):
            x, v = y[:6], y[6:]
            u = kp * (target - x) - kd * v + pin.computeGeneralizedGravity(model, data, x)
            return np.concatenate([v, pin.aba(model, data, x, v, u)])
        return solve_ivp(rhs, (0.0, args.t), np.zeros(12), method=METHOD, rtol=RTOL, atol=ATOL)

    def pd_ours():
        pd = PDControl(kp.tolist(), kd.tolist(), target.tolist())
        return simulate(arm, np.zeros(6), np.zeros(6), (0.0, args.t), torque=pd, rtol=RTOL, atol=ATOL,
                        method=METHOD)

    zero, start = np.zeros(6), np.concatenate([np.full(6, 0.3), np.zeros(6)])

    def fall_peer():
        def rhs(t, y):
            return np.concatenate([y[6:], pin.aba(model, data, y[:6], y[6:], zero)])
        return solve_ivp(rhs, (0.0, args.t), start, method=METHOD, rtol=RTOL, atol=ATOL)

    def fall_ours():
        return simulate(arm, start[:6], start[6:], (0.0, args.t), rtol=RTOL, atol=ATOL, method=METHOD)

    _simulation(f"{args.t:g} s PD move of the PUMA (Kp {KP:g}, Kd {KD:g}, {METHOD}, rtol {RTOL:g}, atol {ATOL:g})",
                args.runs, pd_ours, pd_peer)
    _simulation(f"{args.t:g} s passive fall of the PUMA from q = 0.3 ({METHOD}, rtol {RTOL:g}, atol {ATOL:g})",
                args.runs, fall_ours, fall_peer)
    bench_choice(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
