"""A closed chain's 1 s passive simulation beside its serial twin's (issue 30: "one compiled path").

Run: ``python -m benchmarks.bench_closed_sim [--runs R]`` (prints figures; not a test).

The palletizer with its parallelogram (robots/palletizer_parallelogram.json, a linear closure: its forward
dynamics run as flat C, :mod:`designer.numeric.closed_flat`) and its serial twin (palletizer_serial.json) fall
from rest at the same pose for 1 s (DOP853, 1e-8 / 1e-10), passive. Printed: the median over the runs (runs
interleaved, so a busy machine slows both alike) of each, their ratio (target <= 2), one forward-dynamics call
of each, and the closed chain's with the interpreted path (the tree's RNEA/CRBA on numpy) for comparison. A run's
rows' extras (tree positions, residuals, energies, cut forces) are computed when first read, as a serial run's:
printed apart, the closed run with its extras read, and the extras of the same rows row by row on the
interpreted path (the closure, RNEA and frames per row, as a nonlinear closure's are).

Then the nonlinear closures (their compiled path: :mod:`designer.numeric.closed_newton`): the four-bar
(robots/four_bar.json) and a slider-crank (tests/dynamics/test_closed_compact.slider_crank, a passive prismatic
joint), each falling passively for 1 s from its nominal closed pose beside its serial twin (the open tree of the same
links, every joint free, from the same tree pose at rest) and beside Pinocchio's constraintDynamics integrated over
the tree's coordinates (the same DOP853 tolerances; tests/support/closed_reference.PinMechanism). Printed: the
medians, the ratios, and one forward-dynamics call of each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from dataclasses import replace

from scipy.integrate import solve_ivp

from designer.numeric.closed import ClosedDynamics
from designer.numeric.mechanism import load_dynamics
from designer.numeric.simulate import simulate
from designer.project import load_project

ROOT = Path(__file__).resolve().parent.parent
#: serial (q1, q2, q3, q6) -> actuated (q1, q2, q4, q6) with q4 = q2 + q3 (bench_closed.to_parallelogram)
S = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]], dtype=float)


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _per_call(fn, calls: int = 2000) -> float:
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--t", type=float, default=1.0)
    args = parser.parse_args(argv)
    para = load_project(ROOT / "robots" / "palletizer_parallelogram.json")
    serial = load_project(ROOT / "robots" / "palletizer_serial.json")
    cd = ClosedDynamics(para)
    dyn = load_dynamics(serial)
    q_ser = np.array([0.3, -0.4, 0.5, 0.2])
    q_par = S @ q_ser
    zero = np.zeros(4)
    if cd._flat is None or cd._flat.native is None:
        print("the closed chain's flat machine code is not available here (see the notice above)")
    # warm both up (machine code built, the serial engine hot) and check that they are the same motion
    a = simulate(cd, q_par, zero, (0.0, args.t))
    b = simulate(dyn, q_ser, zero, (0.0, args.t))
    gap = float(np.abs(a.q[-1] - S @ b.q[-1]).max())
    print(f"final states (actuated coordinates) differ by {gap:.2e} rad (the bars carry mass: not the same arm)")
    closed, twin = [], []
    for _ in range(args.runs):
        closed.append(_timed(lambda: simulate(cd, q_par, zero, (0.0, args.t))))
        twin.append(_timed(lambda: simulate(dyn, q_ser, zero, (0.0, args.t))))
    mc, ms = statistics.median(closed), statistics.median(twin)
    print(f"{args.t:g} s passive fall, median of {args.runs}: closed {mc * 1e3:.1f} ms, serial twin "
          f"{ms * 1e3:.1f} ms, ratio {mc / ms:.2f} (target <= 2)")
    qdd = np.array([cd.qdd(q, v, zero) for q, v in zip(a.q, a.qd)])
    read, interpreted = [], []
    for _ in range(args.runs):
        read.append(_timed(lambda: simulate(cd, q_par, zero, (0.0, args.t)).cut_force))
        interpreted.append(_timed(lambda: [(cd._energy(p, v), cd._cut(p, v, w), cd.closure.residual(p))
                                           for p, v, w in ((cd.close(q), v, w) for q, v, w in zip(a.q, a.qd, qdd))]))
    print(f"with its {len(a.t)} rows' extras read: closed {statistics.median(read) * 1e3:.1f} ms (the extras row by "
          f"row on the interpreted path alone: {statistics.median(interpreted) * 1e3:.1f} ms)")
    rng = np.random.default_rng(0)
    qa, qd, tau = rng.uniform(-1, 1, (3, 4))
    p = cd.close(qa)
    one = [(_per_call(lambda: cd.qdd(qa, qd, tau)), _per_call(lambda: dyn.qdd(S.T @ qa, qd, tau)),
            _per_call(lambda: cd._forward_checked(p, qd, tau), 300)) for _ in range(args.runs)]
    f, s, i = (statistics.median(x) * 1e6 for x in zip(*one))
    print(f"one forward-dynamics call, median of {args.runs}: closed {f:.1f} us (interpreted path {i:.1f} us), "
          f"serial twin {s:.1f} us")
    from tests.dynamics.test_closed_compact import slider_crank
    four_bar = load_project(ROOT / "robots" / "four_bar.json")
    for name, model in (("four-bar", four_bar), ("slider-crank", slider_crank(0))):
        _nonlinear_rows(name, model, args.runs, args.t)
    return 0


def _nonlinear_rows(name: str, model, runs: int, t: float) -> None:
    """A nonlinear closure's 1 s passive fall beside its serial twin's and Pinocchio's constrained one's."""
    from tests.support.closed_reference import PinMechanism
    cd = ClosedDynamics(model)
    twin_model = replace(model, loops=(), links=tuple(replace(link, actuated=True) for link in model.links))
    twin = load_dynamics(twin_model)
    qa, va = np.zeros(cd.n), np.zeros(cd.n)
    q_tree = cd.close(qa)
    zero_tree = np.zeros(cd.n_tree)
    pm = PinMechanism(model)

    def pin_fall():
        def rhs(_, y):
            return np.concatenate([y[cd.n_tree:], pm.constrained(y[:cd.n_tree], y[cd.n_tree:], zero_tree)])
        return solve_ivp(rhs, (0.0, t), np.concatenate([q_tree, zero_tree]), method="DOP853", rtol=1e-8, atol=1e-10)

    a = simulate(cd, qa, va, (0.0, t))   # warm up, and the motions compared
    simulate(twin, q_tree, zero_tree, (0.0, t))
    ref = pin_fall()
    gap = float(np.abs(a.q[-1] - ref.y[:cd.n_tree, -1][cd.act]).max())
    closed, serial, pin, read = [], [], [], []
    for _ in range(runs):
        closed.append(_timed(lambda: simulate(cd, qa, va, (0.0, t))))
        serial.append(_timed(lambda: simulate(twin, q_tree, zero_tree, (0.0, t))))
        pin.append(_timed(pin_fall))
        read.append(_timed(lambda: simulate(cd, qa, va, (0.0, t)).cut_force))
    mc, ms, mp, mr = (statistics.median(x) for x in (closed, serial, pin, read))
    print(f"{name} (nonlinear closure, {len(a.t)} rows): {t:g} s passive fall, median of {runs}: closed "
          f"{mc * 1e3:.1f} ms, serial twin {ms * 1e3:.1f} ms, ratio {mc / ms:.2f} (target <= 2); Pinocchio "
          f"constraintDynamics {mp * 1e3:.1f} ms, ratio {mc / mp:.2f}; final actuated positions vs Pinocchio's "
          f"{gap:.1e} rad; with its rows' extras read {mr * 1e3:.1f} ms (largest loop residual "
          f"{float(a.residual.max()):.1e})")
    rng = np.random.default_rng(1)
    qd, tau = rng.uniform(-1, 1, (2, cd.n))
    qt, qdt, taut = q_tree, rng.uniform(-1, 1, cd.n_tree), rng.uniform(-1, 1, cd.n_tree)
    one = [(_per_call(lambda: cd.qdd(qa, qd, tau), 300), _per_call(lambda: twin.qdd(qt, qdt, taut)),
            _per_call(lambda: pm.constrained(qt, qdt, taut), 300),
            _per_call(lambda: cd._forward_checked(q_tree, qd, tau), 300)) for _ in range(runs)]
    f, s, p, i = (statistics.median(x) * 1e6 for x in zip(*one))
    print(f"{name}: one forward-dynamics call, median of {runs}: closed {f:.1f} us (the interpreted projection at "
          f"the closed pose {i:.1f} us), serial twin {s:.1f} us, Pinocchio constraintDynamics {p:.1f} us")


if __name__ == "__main__":
    sys.exit(main())
