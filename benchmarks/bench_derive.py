"""Symbolic derivation of the PUMA 560 beside peers: time to derive tau and M, and their size.

Run: ``python -m benchmarks.bench_derive [--runs R] [--no-kane]`` from the repository root
(prints figures; not a test).

The arm: PUMA 560 (standard DH) with symbolic d1, a2, a3, d3, d4, symbolic g and ten symbolic
inertial parameters per link (m, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz). Figures:

* time to derive tau and M: ours (the tree forms for code generation, i.e. customized
  Newton-Euler and composite rigid body in joint frames from :mod:`designer.dynamics.customized`;
  the earlier generic tree forms; ``derive`` with Lagrange FAST for reading) vs
  roboticstoolbox-python's symbolic ``rne`` (M from rne with unit accelerations) and sympy's
  ``KanesMethod``, in the same run;
* ``count_ops`` after ``sympy.cse`` of tau (6 entries) and of M's upper triangle (21 entries),
  and of the body of the tau function ``codegen`` writes (CSE and peephole passes).
  Targets: tau <= ~500, M <= ~460; peers reach about 840 / 770.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import sympy as sp

ROOT = Path(__file__).resolve().parent.parent

from designer.dynamics import Method, SimplifyMode, count_ops_cse, derive, tree_mass_matrix, tree_tau  # noqa: E402
from designer.dynamics.tree import generic_tree_mass_matrix, generic_tree_tau  # noqa: E402
from designer.model import Inertia, JointType, Link, Manipulator, symbol as S  # noqa: E402

DH = [(0, sp.pi / 2, "d1"), ("a2", 0, 0), ("a3", -sp.pi / 2, "d3"), (0, sp.pi / 2, "d4"), (0, -sp.pi / 2, 0), (0, 0, 0)]


def _sym(v):
    return S(v) if isinstance(v, str) else v


def puma_symbolic() -> Manipulator:
    links = []
    for i, (a, alpha, d) in enumerate(DH, start=1):
        links.append(Link(JointType.REVOLUTE, a=_sym(a), alpha=alpha, d=_sym(d), mass=S(f"m{i}"),
                          com=(S(f"cx{i}"), S(f"cy{i}"), S(f"cz{i}")),
                          inertia=Inertia(S(f"Ixx{i}"), S(f"Iyy{i}"), S(f"Izz{i}"),
                                          S(f"Ixy{i}"), S(f"Ixz{i}"), S(f"Iyz{i}"))))
    return Manipulator(links=tuple(links), name="PUMA 560 (symbolic)", gravity=(0, 0, -S("g")))


def upper(M) -> list:
    n = M.shape[0]
    return [M[i, j] for i in range(n) for j in range(i, n)]


def timed(fn, runs: int):
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


# -- peers ----------------------------------------------------------------------

def rtb_peer():
    """roboticstoolbox-python's symbolic rne; M column j = rne(q, 0, e_j) without gravity."""
    import numpy as np
    import roboticstoolbox as rtb
    links = [rtb.RevoluteDH(a=_sym(a), alpha=alpha, d=_sym(d), m=S(f"m{i}"),
                            r=[S(f"cx{i}"), S(f"cy{i}"), S(f"cz{i}")],
                            # rtb's order: Ixx Iyy Izz Ixy Iyz Ixz
                            I=[S(f"Ixx{i}"), S(f"Iyy{i}"), S(f"Izz{i}"), S(f"Ixy{i}"), S(f"Iyz{i}"), S(f"Ixz{i}")],
                            Jm=0, G=1, B=0, Tc=[0, 0])
             for i, (a, alpha, d) in enumerate(DH, start=1)]
    robot = rtb.DHRobot(links, name="puma_sym")
    q = [S(f"q{i}") for i in range(1, 7)]
    qd = [S(f"qd{i}") for i in range(1, 7)]
    qdd = [S(f"qdd{i}") for i in range(1, 7)]

    def tau():
        robot.gravity = [0, 0, -S("g")]
        return list(np.asarray(robot.rne(q, qd, qdd)).ravel())

    def mass():
        robot.gravity = [0, 0, 0]
        cols = [list(np.asarray(robot.rne(q, [0] * 6, [1 if k == j else 0 for k in range(6)])).ravel())
                for j in range(6)]
        return sp.Matrix(6, 6, lambda i, j: sp.sympify(cols[j][i]))
    return tau, mass


def kane_peer():
    """sympy.physics.mechanics.KanesMethod on the same arm (frames from the DH table)."""
    from sympy.physics.mechanics import KanesMethod, Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

    def build():
        q = dynamicsymbols("q1:7")
        u = dynamicsymbols("u1:7")
        N = ReferenceFrame("N")
        O = Point("O")
        O.set_vel(N, 0)
        frame, origin, bodies, loads = N, O, [], []
        for i, (a, alpha, d) in enumerate(DH):
            k = i + 1
            Fz = frame.orientnew(f"Z{k}", "Axis", (q[i], frame.z))
            Fz.set_ang_vel(frame, u[i] * frame.z)
            F = Fz.orientnew(f"F{k}", "Axis", (alpha, Fz.x))
            P = origin.locatenew(f"P{k}", _sym(d) * frame.z + _sym(a) * Fz.x)
            P.v2pt_theory(origin, N, F)
            C = P.locatenew(f"C{k}", S(f"cx{k}") * F.x + S(f"cy{k}") * F.y + S(f"cz{k}") * F.z)
            C.v2pt_theory(P, N, F)
            I = inertia(F, S(f"Ixx{k}"), S(f"Iyy{k}"), S(f"Izz{k}"), S(f"Ixy{k}"), S(f"Iyz{k}"), S(f"Ixz{k}"))
            bodies.append(RigidBody(f"B{k}", C, F, S(f"m{k}"), (I, C)))
            loads.append((C, -S(f"m{k}") * S("g") * N.z))
            frame, origin = F, P
        km = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
        km.kanes_equations(bodies, loads)
        return km, q, u

    def tau():
        km, q, u = build()
        # tau = M u' - forcing (both with u' and u as plain symbols)
        ud = [ui.diff() for ui in u]
        plain = {**{ud[i]: S(f"qdd{i + 1}") for i in range(6)}, **{u[i]: S(f"qd{i + 1}") for i in range(6)},
                 **{q[i]: S(f"q{i + 1}") for i in range(6)}}
        t = km.mass_matrix * sp.Matrix(ud) - km.forcing
        return [e.xreplace(plain) for e in t], km, plain
    return tau


def emitted_tau_ops(model: Manipulator) -> int:
    """count_ops of the body of the tau function ``codegen`` writes (standard parameters): after CSE
    and the peephole passes, as ``CodeFunction.operations`` counts it."""
    from designer.codegen.plan import compact_tau_function, temp_prefix
    names = set(model.symbol_names()) - {s.name for s in (*model.q, *model.qd, *model.qdd)}
    index = {name: k for k, name in enumerate(sorted(names))}
    return compact_tau_function(model, model, index, temp_prefix(names)).operations


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-kane", action="store_true", help="skip the KanesMethod peer (slow)")
    args = ap.parse_args()
    model = puma_symbolic()
    rows = []

    t_tau, tau = timed(lambda: tree_tau(model), args.runs)
    t_M, M = timed(lambda: tree_mass_matrix(model), args.runs)
    rows.append(("ours: customized NE + CRBA (codegen)", t_tau, t_M, count_ops_cse(list(tau)),
                 count_ops_cse(upper(M))))
    t_tau, tau = timed(lambda: generic_tree_tau(model), args.runs)
    t_M, M = timed(lambda: generic_tree_mass_matrix(model), args.runs)
    rows.append(("ours: generic tree forms", t_tau, t_M, count_ops_cse(list(tau)), count_ops_cse(upper(M))))
    t_d, eq = timed(lambda: derive(model, Method.LAGRANGE, SimplifyMode.FAST), 1)
    rows.append(("ours: derive Lagrange FAST (reading)", t_d, t_d, count_ops_cse(list(eq.tau)),
                 count_ops_cse(upper(eq.mass_matrix))))
    try:
        tau_fn, mass_fn = rtb_peer()
        t_tau, rtau = timed(tau_fn, args.runs)
        t_M, rM = timed(mass_fn, args.runs)
        rows.append(("roboticstoolbox rne", t_tau, t_M, count_ops_cse(rtau), count_ops_cse(upper(rM))))
    except ImportError:
        print("roboticstoolbox-python not installed: peer skipped (pip install roboticstoolbox-python)")
    if not args.no_kane:
        t_k, (ktau, km, plain) = timed(kane_peer(), 1)
        kM = km.mass_matrix.xreplace(plain)
        rows.append(("sympy KanesMethod", t_k, t_k, count_ops_cse(ktau), count_ops_cse(upper(kM))))

    print(f"PUMA 560, symbolic lengths, g and 10 inertial parameters per link; medians of {args.runs} runs")
    print(f"{'route':40s} {'tau [s]':>9s} {'M [s]':>9s} {'ops tau':>8s} {'ops M':>7s}")
    for name, a, b, c, d in rows:
        print(f"{name:40s} {a:9.3f} {b:9.3f} {c:8d} {d:7d}")
    ours = rows[0]
    for name, a, b, c, d in rows[3:]:
        print(f"ratio ours/{name}: time tau {ours[1] / a:.3f}, time M {ours[2] / b:.3f}, "
              f"ops tau {ours[3] / c:.2f}, ops M {ours[4] / d:.2f}")
    emitted = emitted_tau_ops(model)
    peers = ", ".join(f"{name} {c} (ratio {emitted / c:.2f})" for name, _, _, c, _ in rows[3:])
    print(f"generated tau (codegen, standard parameters): {emitted} operations in the emitted function "
          f"(count_ops_cse of the graph above: {ours[3]}); peers' count_ops_cse: {peers or 'none run'}")
    print("targets: ops tau <= ~500, ops M <= ~460")
    return 0


if __name__ == "__main__":
    sys.exit(main())
