"""When is a closed form given: the size estimate against the true term count, and the time the
closed form takes, on about ten arms.

Run: ``python -m benchmarks.bench_closed_form [--arms a,b,...] [--timeout S]`` from the repository root
(prints figures; not a test; about four minutes for the default arms).

For each arm: the estimate of the largest expanded tau_i by multiplying out (the bound that alone
guarded the closed form before), by counting monomials (numeric coefficients merge), the smaller of
the two (what derive uses), the true count (Newton-Euler tau expanded, no simplification), the ratio
estimate / true, and the seconds of ``derive --form closed`` (Lagrange, fast simplification) and of
the decision ``derive --form auto`` makes with its defaults (1e9 terms, 30 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import sympy as sp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from designer.dynamics import Form, Method, derive  # noqa: E402
from designer.dynamics.engine import AUTO_LIMIT, AUTO_SECONDS, compact_job  # noqa: E402
from designer.dynamics.size import _MonomialBound, _product_bound, expanded_terms  # noqa: E402
from designer.jobs import NEVER, run  # noqa: E402

from tests.support.anyarm_arms import generic_arm, kr5, panda, symbolic_arm  # noqa: E402
from tests.support.dyn_reference import puma560, stanford_six  # noqa: E402

ARMS = {"generic4": lambda: generic_arm(4), "generic4R": lambda: generic_arm(4, joints="RRRR"),
        "generic5": lambda: generic_arm(5), "puma560": puma560, "puma560-symbolic": lambda: puma560(True),
        "stanford": stanford_six, "kr5": kr5, "panda": panda, "symbolic4": lambda: symbolic_arm(4),
        "symbolic5": lambda: symbolic_arm(5), "symbolic6": lambda: symbolic_arm(6)}
#: the true count needs the whole expansion: skipped where it takes minutes
NO_TRUE_COUNT = {"symbolic6"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arms", default=",".join(ARMS), help="comma-separated, of: " + ", ".join(ARMS))
    ap.add_argument("--timeout", type=float, default=40.0, help="seconds a closed form may take here")
    args = ap.parse_args()
    print(f"{'arm':<18} {'multiply':>10} {'monomials':>10} {'estimate':>10} {'true':>7} {'ratio':>8} "
          f"{'closed s':>9} {'auto':>16}")
    for name in args.arms.split(","):
        model = ARMS[name]()
        tau = run(compact_job(model, NEVER, need=("tau",)))[0]
        exprs = [sp.sympify(t) for t in tau]
        products = max(_product_bound(exprs))
        monomials = max(_MonomialBound(model.q, model.qd, model.qdd).bounds(exprs))
        estimate = max(expanded_terms(exprs, model.q, model.qd, model.qdd))
        true = "-"
        if name not in NO_TRUE_COUNT:
            eq = derive(model, Method.NEWTON_EULER, "off", form=Form.CLOSED, max_terms=None,
                        time_limit=args.timeout)
            true = max(len(sp.Add.make_args(t)) for t in eq.tau)
        started = time.perf_counter()
        try:
            derive(model, Method.LAGRANGE, "fast", form=Form.CLOSED, max_terms=None, time_limit=args.timeout)
            closed = f"{time.perf_counter() - started:.1f}"
        except Exception as exc:   # noqa: BLE001 - a figure: the time limit of this run
            closed = f">{args.timeout:g}" if "did not finish" in str(exc) else type(exc).__name__
        started = time.perf_counter()
        auto = derive(model, Method.LAGRANGE, "fast")
        auto_text = f"{auto.form.value} {time.perf_counter() - started:.1f}s"
        ratio = f"{estimate / true:.3g}" if isinstance(true, int) and true else "-"
        print(f"{name:<18} {products:>10.3g} {monomials:>10.3g} "
              f"{estimate:>10.3g} {true!s:>7} {ratio:>8} {closed:>9} {auto_text:>16}", flush=True)
    print(f"(auto: estimate limit {AUTO_LIMIT:.0e} terms, time budget {AUTO_SECONDS:g} s)")


if __name__ == "__main__":
    main()
