"""Closed chains: the palletizer with a parallelogram beside its serial twin (issue 22).

Run: ``python -m benchmarks.bench_closed [--runs R] [--states N]`` from the repository root
(prints figures; not a test).

* time to derive the palletizer's equations in closed form in the actuated coordinates (Lagrange,
  fast simplification; target under 5 s), with the serial twin's ``derive`` in the same run;
* operations (count_ops after CSE) of the generated tau and M of both designs, and the time and
  operations of every function codegen writes (tau, M, G, h, C, Y) of both;
* eval of N states (default 100,000): tau of the parallelogram arm's compiled closed forms against
  the serial twin's compiled closed forms (the same path; target within 2x), and the numeric
  projection's per-state cost;
* the compact form (the tree's recursion with the projection as steps, any closed chain): its derivation
  time and the operations of its generated tau, M, G, h, for the four-bar (no closed form) and the
  palletizer (beside its closed form's), and of its regressor Y_a and base-parameter code (beside the
  compact tau); ``--compact`` prints only these lines;
* the four-bar's closed form in loop quantities (dynamics/closed_nonlinear.py): derivation time of each
  method and the operations (count_ops, and after CSE) of its M_a, C_a and tau_a and of the loop
  quantities' definitions, beside the compact form's; ``--nonlinear`` prints only these lines;
* the two designs side by side along one palletizing cycle (the same Cartesian motion: the serial
  elbow angle q3 is the parallelogram's q4 - q2): peak and RMS motor torques, the inertial coupling
  |M_ij| / sqrt(M_ii M_jj) of shoulder and elbow motor (largest over the cycle), and the gravity
  torque on the elbow motor.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designer.codegen import plan_code  # noqa: E402
from designer.dynamics import derive  # noqa: E402
from designer.dynamics.closed_form import closed_chain_equations  # noqa: E402
from designer.numeric.closed import ClosedDynamics  # noqa: E402
from designer.numeric.compiled import compile_equations  # noqa: E402
from designer.project import load_project  # noqa: E402

from benchmarks.bench_derive import timed  # noqa: E402  (median of runs, and the last result)


def cycle(N: int = 400):
    """A palletizing cycle in the serial joints (q1, q2, q3, q4): swing 120 degrees with the arm reaching
    out and back, smooth (cosine) profiles over 2 s."""
    t = np.linspace(0.0, 2.0, N)
    s = 0.5 - 0.5 * np.cos(np.pi * t / 2.0)
    sd = 0.5 * np.pi / 2.0 * np.sin(np.pi * t / 2.0)
    sdd = 0.5 * (np.pi / 2.0) ** 2 * np.cos(np.pi * t / 2.0)
    start, end = np.array([-1.05, -0.3, 0.4, 0.0]), np.array([1.05, 0.5, -0.3, 1.5])
    d = end - start
    return start + np.outer(s, d), np.outer(sd, d), np.outer(sdd, d)


def to_parallelogram(Q, QD, QDD):
    """Serial (q1, q2, q3, q6) -> actuated (q1, q2, q4, q6) with q4 = q2 + q3 (q3 = q4 - q2)."""
    S = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]], dtype=float)
    return Q @ S.T, QD @ S.T, QDD @ S.T


def every_function(eq_para, eq_ser, runs: int) -> None:
    """codegen's plan of every function (tau, M, G, h, C, Y) from the derived closed forms, the
    parallelogram (designer/codegen/control_plan.py control_plan) against its serial twin, and the
    operations of each."""
    from designer.codegen.files import full_plan
    for name, eq in (("parallelogram", eq_para), ("serial", eq_ser)):
        seconds, plan = timed(lambda eq=eq: full_plan(eq, "derived"), runs)
        ops = ", ".join(f"{f.name} {f.operations}" for f in plan.functions)
        print(f"every function's code ({name}, median of {runs}): {seconds:.2f} s; operations {ops}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--states", type=int, default=100_000)
    ap.add_argument("--compact", action="store_true", help="only the compact forms' figures")
    ap.add_argument("--nonlinear", action="store_true", help="only the four-bar's closed form's figures")
    args = ap.parse_args(argv)
    if args.nonlinear:
        nonlinear_form(args.runs)
        return 0
    compact_forms(args.runs, args.states)
    if args.compact:
        return 0
    para = load_project(ROOT / "robots" / "palletizer_parallelogram.json")
    serial = load_project(ROOT / "robots" / "palletizer_serial.json")

    t_para, eq_para = timed(lambda: closed_chain_equations(para, "lagrange"), args.runs)
    t_ser, eq_ser = timed(lambda: derive(serial, "lagrange", form="closed"), args.runs)
    print(f"derive, closed form, Lagrange fast (median of {args.runs}): parallelogram {t_para:.2f} s, "
          f"serial twin {t_ser:.2f} s (target under 5 s)")

    for name, eq in (("parallelogram", eq_para), ("serial", eq_ser)):
        plan = plan_code(eq, "derived", only=("tau", "mass_matrix"))
        ops = {f.name: f.operations for f in plan.functions}
        print(f"generated code ({name}, derived closed forms after CSE): tau {ops['tau']} operations, "
              f"M {ops['mass_matrix']}")

    every_function(eq_para, eq_ser, args.runs)

    rng = np.random.default_rng(0)
    N = args.states
    Q, QD, QDD = rng.uniform(-1, 1, (N, 4)), rng.normal(size=(N, 4)), rng.normal(size=(N, 4))
    c_para, c_ser = compile_equations(eq_para, form="derived"), compile_equations(eq_ser, form="derived")
    t_cp, _ = timed(lambda: c_para.tau_many(Q, QD, QDD), args.runs)
    t_cs, _ = timed(lambda: c_ser.tau_many(Q, QD, QDD), args.runs)
    print(f"eval tau of {N} states, compiled closed forms (median of {args.runs}): parallelogram {t_cp:.3f} s, "
          f"serial twin {t_cs:.3f} s, ratio {t_cp / t_cs:.2f} (target within 2x)")
    from designer.kinematics import NumericArm
    from designer.numeric import arm_dynamics
    engine = arm_dynamics(NumericArm.from_model(serial))
    t_eng, _ = timed(lambda: engine.tau(Q, QD, QDD), args.runs)
    print(f"  (the serial twin on the numeric engine, traced RNEA: {t_eng:.3f} s; parallelogram / that "
          f"{t_cp / t_eng:.2f})")
    cd = ClosedDynamics(para)
    k = 200
    t_num, _ = timed(lambda: [cd.tau(Q[i], QD[i], QDD[i]) for i in range(k)], args.runs)
    print(f"numeric projection (tree RNEA, W, per state in Python): {t_num / k * 1e6:.0f} us a state")

    Qs, QDs, QDDs = cycle()
    Qp, QDp, QDDp = to_parallelogram(Qs, QDs, QDDs)
    tau_s = c_ser.tau_many(Qs, QDs, QDDs)
    tau_p = c_para.tau_many(Qp, QDp, QDDp)
    M_s, M_p = c_ser.M_many(Qs), c_para.M_many(Qp)
    G_s, G_p = c_ser.G_many(Qs), c_para.G_many(Qp)

    def coupling(M, i, j):
        return float(np.max(np.abs(M[:, i, j]) / np.sqrt(M[:, i, i] * M[:, j, j])))
    print("\nthe two designs along one palletizing cycle (the same motion):")
    print(f"{'':34} {'serial (elbow motor on elbow)':>30} {'parallelogram (motor at shoulder)':>34}")
    for j, label in enumerate(("base", "shoulder", "elbow motor", "wrist")):
        print(f"peak |tau| {label:<23} {np.abs(tau_s[:, j]).max():>27.1f} Nm {np.abs(tau_p[:, j]).max():>31.1f} Nm")
    for j, label in enumerate(("base", "shoulder", "elbow motor", "wrist")):
        rs, rp = np.sqrt(np.mean(tau_s[:, j] ** 2)), np.sqrt(np.mean(tau_p[:, j] ** 2))
        print(f"RMS tau {label:<26} {rs:>27.1f} Nm {rp:>31.1f} Nm")
    print(f"{'coupling shoulder-elbow (max)':<34} {coupling(M_s, 1, 2):>30.3f} {coupling(M_p, 1, 2):>34.3f}")
    print(f"{'coupling base-shoulder (max)':<34} {coupling(M_s, 0, 1):>30.3f} {coupling(M_p, 0, 1):>34.3f}")
    print(f"{'peak gravity torque, elbow motor':<34} {np.abs(G_s[:, 2]).max():>27.1f} Nm "
          f"{np.abs(G_p[:, 2]).max():>31.1f} Nm")
    print(f"{'peak gravity torque, shoulder':<34} {np.abs(G_s[:, 1]).max():>27.1f} Nm "
          f"{np.abs(G_p[:, 1]).max():>31.1f} Nm")
    return 0


def compact_forms(runs: int, states: int) -> None:
    """Derivation time (median of ``runs``), operations after CSE and the compiled tau of ``states`` states
    of the compact closed-chain forms; the palletizer's compiled closed form in the same run."""
    from designer.dynamics.closed_compact import closed_compact_equations_job
    from designer.jobs import run
    for name in ("four_bar", "palletizer_parallelogram"):
        model = load_project(ROOT / "robots" / f"{name}.json")
        t, eq = timed(lambda m=model: run(closed_compact_equations_job(m)), runs)
        t_plan, plan = timed(lambda e=eq: plan_code(e, "compact"), 1)
        ops = ", ".join(f"{f.name} {f.operations}" for f in plan.functions)
        steps = len(eq.extras["recursive"].assignments)
        print(f"compact form of the {name} (median of {runs}): derived in {t:.2f} s, {steps} steps; generated "
              f"code after CSE ({t_plan:.1f} s): {ops} operations")
        n = eq.model.n
        rng = np.random.default_rng(0)
        Q, QD, QDD = rng.uniform(-0.5, 0.5, (states, n)), rng.normal(size=(states, n)), rng.normal(size=(states, n))
        compiled = compile_equations(eq)
        t_c, _ = timed(lambda c=compiled, a=(Q, QD, QDD): c.tau_many(*a), runs)
        line = f"  compiled, tau of {states} states (median of {runs}): {t_c:.3f} s"
        if name == "palletizer_parallelogram":
            closed = compile_equations(closed_chain_equations(model, "lagrange"), form="derived")
            t_f, _ = timed(lambda c=closed, a=(Q, QD, QDD): c.tau_many(*a), runs)
            line += f"; the closed form's {t_f:.3f} s"
        print(line)
        compact_regressor_figures(name, model, eq, runs)


def compact_regressor_figures(name: str, model, eq, runs: int) -> None:
    """The compact code's regressor Y_a (tau_a = Y_a pi) and its base-parameter code: operations after CSE
    and the time to plan them (median of ``runs``), beside the same form's tau (and for a linear closure
    the closed form's regressor, in the same run)."""
    from designer.codegen.files import full_plan
    from designer.identification.code_plan import base_plan
    from designer.identification.compact_base_plan import compact_base_plan
    t_y, plan = timed(lambda e=eq: full_plan(e, "compact", only=("tau", "regressor")), runs)
    ops = {f.name: f.operations for f in plan.functions}
    line = (f"  compact regressor of the {name} (median of {runs}): tau + Y planned in {t_y:.2f} s; Y "
            f"{ops['regressor']} operations (tau {ops['tau']}, ratio {ops['regressor'] / ops['tau']:.2f})")
    t_b, base = timed(lambda m=model: compact_base_plan(m), runs)
    line += (f"; base-parameter code in {t_b:.2f} s: "
             + ", ".join(f"{f.name} {f.operations}" for f in base.functions))
    if name == "palletizer_parallelogram":
        t_c, closed = timed(lambda m=model: base_plan(m, only=("regressor",)), runs)
        line += f"; the closed form's base regressor {closed.functions[0].operations} operations in {t_c:.2f} s"
    print(line)


def nonlinear_form(runs: int) -> None:
    """The four-bar's closed form in loop quantities: time of each method (median of ``runs``), operations
    of M_a, C_a, tau_a (count_ops of the entries; after CSE) and of the loop quantities they read."""
    from designer.dynamics.algebra import count_ops_cse
    from designer.dynamics.closed_compact import closed_compact_equations_job
    from designer.jobs import run
    import sympy as sp
    model = load_project(ROOT / "robots" / "four_bar.json")
    t_c, compact = timed(lambda: run(closed_compact_equations_job(model)), runs)
    ops = {f.name: f.operations for f in plan_code(compact, "compact").functions}
    print(f"four-bar, compact form (the peer, median of {runs}): {t_c:.3f} s; after CSE tau {ops['tau']}, "
          f"M {ops['mass_matrix']} operations")
    for method in ("lagrange", "newton-euler", "dalembert"):
        t, eq = timed(lambda m=method: derive(model, m, form="closed"), runs)
        loops = eq.extras["loop_quantities"].items
        defs = [it.value for it in loops if it.value is not None and it.kind not in ("closure", "qp")]
        parts = {"M_a": eq.mass_matrix, "C_a": eq.extras["coriolis_matrix"], "tau_a": eq.tau}
        counts = ", ".join(f"{k} {sum(sp.count_ops(e) for e in m)} / {count_ops_cse(list(m))}"
                           for k, m in parts.items())
        named = "W, dW, detJp" + (", qdp, qddp" if method == "newton-euler" else "")
        print(f"four-bar, closed form in loop quantities, {method} (median of {runs}): {t:.3f} s; operations "
              f"(entries / after CSE) {counts}; loop quantities {named} {sum(sp.count_ops(d) for d in defs)} / "
              f"{count_ops_cse(defs)}")


if __name__ == "__main__":
    raise SystemExit(main())
