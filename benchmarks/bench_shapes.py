"""A 30-link random arm (tests/support/random_models.py: 20 R, 2 P, 8 R joints, loads) beside Pinocchio.

Run: ``python -m benchmarks.bench_shapes [--runs R]`` (prints figures; not a test).

Timed: ``load_dynamics`` and its first M (the engine's flat numpy code generated from the arm's numbers), then
one state's M, G and h (the numeric engine, medians of R runs) against Pinocchio's crba and two rnea calls on the
same state, the ratio ours / peer; a passive fall of 0.2 s (``simulate``, DOP853 at the default tolerances); and
the symbolic side: ``derive`` in the compact (recursive) form, and the size estimate that makes the closed form
give way to it. The errors of M, G, h against Pinocchio are printed beside. Last, what ``eval`` (compact form)
spends before its first numbers: the numeric engine it uses now against the compiled symbolic recursive form it
used before (``compiled_equations``), both in this run, and their difference.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from designer.dynamics.engine import derive  # noqa: E402
from designer.dynamics.results import Form  # noqa: E402
from designer.numeric.mechanism import load_dynamics  # noqa: E402
from designer.numeric.simulate import simulate  # noqa: E402
from benchmarks.clock import median_seconds  # noqa: E402




def main(argv=None) -> int:
    import pinocchio as pin

    from tests.support.closed_reference import _pin_tree, pin_tree_terms
    from tests.support.random_models import Shapes, random_project
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args(argv)
    model = random_project(np.random.default_rng(2), Shapes(joints="R" * 20 + "P" * 2 + "R" * 8, loads=True))
    rng = np.random.default_rng(0)
    q, qd = rng.uniform(-1, 1, model.n), rng.normal(size=model.n)
    t0 = time.perf_counter()
    dyn = load_dynamics(model)
    dyn.M(q)
    first = time.perf_counter() - t0
    ours = median_seconds(lambda: (dyn.M(q), dyn.G(q), dyn.h(q, qd)), args.runs)
    pm, _, _, order = _pin_tree(model.numeric())
    data, o, zero = pm.createData(), np.array(order), np.zeros(model.n)
    peer = median_seconds(lambda: (pin.crba(pm, data, q[o]), pin.rnea(pm, data, q[o], zero, zero),
                            pin.rnea(pm, data, q[o], qd[o], zero)), args.runs)
    M_ref, G_ref, h_ref = pin_tree_terms(model, q, qd)
    errors = [float(np.abs(a - b).max() / np.abs(b).max()) for a, b in
              ((dyn.M(q), M_ref), (dyn.G(q), G_ref), (dyn.h(q, qd), h_ref))]
    t0 = time.perf_counter()
    run = simulate(dyn, q, np.zeros(model.n), (0.0, 0.2))
    fall = time.perf_counter() - t0
    t0 = time.perf_counter()
    eq = derive(model, form=Form.AUTO)
    derived = time.perf_counter() - t0
    # what `eval` (compact form) does before its first number: the numeric engine now, the old path compiled the
    # symbolic recursive forms (compiled_equations), both from the model and each followed by one state's tau, M,
    # G, h; then one state's evaluation by each
    from designer.numeric.evaluable import compiled_equations, evaluable
    qdd = rng.normal(size=model.n)

    def numeric_eval():
        d = load_dynamics(model, springs=False)
        src = evaluable(d, model, "lagrange", "compact", lambda: None)
        return src, d.following(q)
    t0 = time.perf_counter()
    src, at = numeric_eval()
    now = src(at, q, qd, qdd, q)
    setup_new = time.perf_counter() - t0
    t0 = time.perf_counter()
    comp = compiled_equations(model, "lagrange")
    old = {"tau": comp.tau(q, qd, qdd), "M": comp.M(q), "G": comp.G(q), "h": comp.h(q, qd)}
    setup_old = time.perf_counter() - t0
    state_new = median_seconds(lambda: src(at, q, qd, qdd, q), args.runs)
    state_old = median_seconds(lambda: (comp.tau(q, qd, qdd), comp.M(q), comp.G(q), comp.h(q, qd)), args.runs)
    apart = max(float(np.abs(np.asarray(now[k]) - np.asarray(old[k])).max() / np.abs(np.asarray(old[k])).max())
                for k in old)
    print(f"30-link arm: load_dynamics + first M {first * 1e3:.0f} ms")
    print(f"one state's M, G, h: ours {ours * 1e3:.3f} ms, Pinocchio {peer * 1e3:.3f} ms, ratio {ours / peer:.1f}")
    print(f"relative errors against Pinocchio: M {errors[0]:.1e}, G {errors[1]:.1e}, h {errors[2]:.1e}")
    print(f"passive fall of 0.2 s: {fall:.2f} s wall, {run.steps} steps, {run.method}")
    print(f"derive (auto): {derived:.1f} s, the {eq.form.value} form (the closed form's size estimate is too large)")
    print(f"eval (compact) to its first state: numeric engine {setup_new:.2f} s, compiled symbolic form (the old "
          f"path) {setup_old:.1f} s, ratio {setup_old / setup_new:.0f}; one state's tau, M, G, h: "
          f"{state_new * 1e3:.3f} ms against {state_old * 1e3:.3f} ms; largest relative difference {apart:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
