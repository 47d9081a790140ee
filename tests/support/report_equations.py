"""Equations built by hand for the report and code generation tests (no derivation needed).

The double pendulum's M, B, C, G are ROBMAT's printed results (Horn & Linge
1994, section 5, Out[5]-Out[8]); tau is assembled from them by the
configuration-space form F = M q'' + 2 B [q'q'] + C [q'^2] + G.
"""

from __future__ import annotations

import sympy as sp

from designer.dynamics.results import Equations, Method, SimplifyMode, velocity_products, velocity_squares
from designer.model import Link, Manipulator, symbol
from designer.project import load_project

from tests.support import robot_path


def robmat_double_pendulum(method: Method = Method.LAGRANGE) -> Equations:
    model = load_project(robot_path("double_pendulum"))
    L1, L2, m1, m2, g = (symbol(s) for s in ("L1", "L2", "m1", "m2", "g"))
    q1, q2 = model.q
    c2, s2 = sp.cos(q2), sp.sin(q2)
    M = sp.Matrix([[L1**2 * m1 + L1**2 * m2 + 2 * c2 * L1 * L2 * m2 + L2**2 * m2, L2 * (c2 * L1 + L2) * m2],
                   [L2 * (c2 * L1 + L2) * m2, L2**2 * m2]])
    B = sp.Matrix([[-(L1 * L2 * m2 * s2)], [0]])
    C = sp.Matrix([[0, -(L1 * L2 * m2 * s2)], [L1 * L2 * m2 * s2, 0]])
    G = sp.Matrix([g * (L1 * m1 * sp.sin(q1) + L1 * m2 * sp.sin(q1) + L2 * m2 * sp.sin(q1 + q2)),
                   g * L2 * m2 * sp.sin(q1 + q2)])
    return assemble(model, method, M, B, C, G)


def assemble(model: Manipulator, method: Method, M, B, C, G, simplify=SimplifyMode.OFF) -> Equations:
    """Equations of any method from the Lagrange matrices (point-mass links: no rotational part)."""
    qd, qdd = model.qd, sp.Matrix(model.qdd)
    h = (2 * B * velocity_products(qd) if model.n > 1 else sp.zeros(1, 1)) + C * velocity_squares(qd)
    tau = M * qdd + h + G
    if method is Method.LAGRANGE:
        mats = {"M": M, "B": B, "C": C, "G": G}
    elif method is Method.NEWTON_EULER:
        mats = {"tau": tau}
    else:
        n = model.n
        mats = {"D_rot": sp.zeros(n, n), "D_tra": M, "H_rot": sp.zeros(n, 1), "H_tra": h, "G": G}
    return Equations(method, model, simplify, mats, tau, M, G, h)


def awkward_three_link() -> Equations:
    """A 3-link arm with floats, rationals, sqrt, names sympy knows (beta, N, S) and long entries.

    The matrices are made up (not physics): they exercise printing and parsing.
    """
    beta, N, S, k = symbol("beta"), symbol("N"), symbol("S"), symbol("k_2")
    model = Manipulator(
        links=(Link(a=beta, mass=N), Link(a=S, alpha=sp.pi / 2, mass=k),
               Link(joint="P", d=sp.Rational(1, 3), mass=2.5)),
        name="Awkward & odd_name #3", description="Not physics: a % test $ of {escaping}.",
        gravity=(0, 0, -symbol("g")), parameters={"beta": 0.3, "N": 2.0, "S": 0.25, "g": 9.81})
    q1, q2, q3 = model.q
    big = sum((beta ** k_ * sp.cos(q2 + k_ * q3) + sp.Float(0.1) * N * sp.sin(q1) ** 2 * k_) for k_ in range(1, 12))
    M = sp.Matrix([[big + N * S, sp.sqrt(2) * beta * sp.cos(q2) / 3, 0],
                   [sp.sqrt(2) * beta * sp.cos(q2) / 3, S**2 + sp.Float(1e-7) * k, q3 * S],
                   [0, q3 * S, sp.Rational(5, 2) + k * (S + beta * sp.cos(q2) + N * sp.sin(q2) * q3 + beta**2 * S * N
                                                      + k**2 * sp.cos(q2 + q1) * beta * S + 7 * beta * N * q3**2)]])
    B = sp.Matrix(3, 3, lambda i, j: (i - j) * beta * sp.sin(q2) * q3 if i != j else 0)
    C = sp.Matrix(3, 3, lambda i, j: -k * sp.cos(q1 + q2) * (i + 1) if j == 2 else 0)
    G = sp.Matrix([0, -symbol("g") * N * S * sp.cos(q2), symbol("g") * 2.5])
    return assemble(model, Method.LAGRANGE, M, B, C, G, SimplifyMode.FULL)


def six_link_diagonal() -> Equations:
    """Six links, M diagonal, B and C sparse: a large B (6 x 15) and long velocity vectors."""
    model = Manipulator(links=tuple(Link(a=symbol(f"l{i}"), mass=symbol(f"m{i}")) for i in range(1, 7)))
    q = model.q
    M = sp.diag(*[symbol(f"m{i}") * symbol(f"l{i}") ** 2 * (2 + sp.cos(q[i % 6])) for i in range(1, 7)])
    B = sp.Matrix(6, 15, lambda i, j: symbol(f"m{i + 1}") * sp.sin(q[(i + j) % 6]) if (i + j) % 4 == 0 else 0)
    C = sp.Matrix(6, 6, lambda i, j: -symbol(f"l{j + 1}") * sp.sin(q[i]) if i != j else 0)
    G = sp.Matrix([symbol("g") * symbol(f"m{i}") * sp.cos(q[i - 1]) for i in range(1, 7)])
    return assemble(model, Method.LAGRANGE, M, B, C, G)
