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
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
