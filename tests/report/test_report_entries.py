"""Entry labels, order and factors, checked against ROBMAT's printed double pendulum."""

from __future__ import annotations

import sympy as sp

from designer.dynamics.results import Equations, Method, SimplifyMode
from designer.model import Link, Manipulator, symbol
from designer.report.entries import iter_entries, velocity_pairs

from tests.support.report_equations import robmat_double_pendulum


def test_double_pendulum_labels_in_display_order():
    eq = robmat_double_pendulum()
    labels = [e.label for e in iter_entries(eq)]
    assert labels == ["M_11", "M_12", "M_21", "M_22", "B_1,12", "B_2,12",
                      "C_11", "C_12", "C_21", "C_22", "G_1", "G_2"]
    latex = {e.label: e.latex_label for e in iter_entries(eq)}
    assert latex["B_1,12"] == "B_{1,12}" and latex["M_21"] == "M_{21}" and latex["G_2"] == "G_{2}"


def test_entries_times_factors_rebuild_robmat_printed_F():
    """Sum of entry * factor (2 B q'q' + ...) must equal ROBMAT's Newton-Euler F, Out[9]."""
    eq = robmat_double_pendulum()
    L1, L2, m1, m2, g = (symbol(s) for s in ("L1", "L2", "m1", "m2", "g"))
    q1, q2 = eq.model.q
    qd1, qd2 = eq.model.qd
    a1, a2 = eq.model.qdd
    F = [g * L1 * m1 * sp.sin(q1) + g * L1 * m2 * sp.sin(q1) + g * L2 * m2 * sp.sin(q1 + q2)
         - 2 * L1 * L2 * m2 * sp.sin(q2) * qd1 * qd2 - L1 * L2 * m2 * sp.sin(q2) * qd2**2
         + L1**2 * m1 * a1 + L1**2 * m2 * a1 + 2 * sp.cos(q2) * L1 * L2 * m2 * a1 + L2**2 * m2 * a1
         + sp.cos(q2) * L1 * L2 * m2 * a2 + L2**2 * m2 * a2,
         L2 * m2 * (g * sp.sin(q1 + q2) + L1 * sp.sin(q2) * qd1**2 + sp.cos(q2) * L1 * a1 + L2 * a1 + L2 * a2)]
    rebuilt = [sp.S.Zero, sp.S.Zero]
    for e in iter_entries(eq):
        row = e.indices[0] - 1
        weight = 2 if e.matrix == "B" else 1
        rebuilt[row] += weight * e.expr * (e.factor if e.factor is not None else 1)
    for i in range(2):
        assert sp.expand(rebuilt[i] - F[i]) == 0


def test_symmetric_partner_and_zero_flags():
    eq = robmat_double_pendulum()
    by_label = {e.label: e for e in iter_entries(eq)}
    assert by_label["M_21"].mirror == (1, 2) and by_label["M_12"].mirror is None
    assert by_label["C_11"].is_zero and by_label["B_2,12"].is_zero and not by_label["B_1,12"].is_zero
    assert by_label["M_22"].ops == sp.count_ops(symbol("L2") ** 2 * symbol("m2"))


def test_ten_joints_use_commas_and_pairs():
    n = 10
    model = Manipulator(links=tuple(Link(a=1, mass=1) for _ in range(n)))
    pairs = velocity_pairs(n)
    assert len(pairs) == 45 and pairs[8] == (1, 10) and pairs[-1] == (9, 10)
    M = sp.diag(*[symbol(f"I{i}") for i in range(n)])
    B = sp.zeros(n, len(pairs))
    eq = Equations(Method.LAGRANGE, model, SimplifyMode.OFF, {"M": M, "B": B, "C": sp.zeros(n, n),
                                                              "G": sp.zeros(n, 1)},
                   sp.zeros(n, 1), M, sp.zeros(n, 1), sp.zeros(n, 1))
    entries = list(iter_entries(eq))
    assert len(entries) == n * n + n * 45 + n * n + n
    labels = {e.label: e for e in entries}
    assert "M_1,10" in labels and "M_110" not in labels
    b = labels["B_1,(1,10)"]
    assert b.latex_label == "B_{1,(1,10)}" and b.factor == model.qd[0] * model.qd[9]
    assert labels["C_10,3"].factor == model.qd[2] ** 2


def test_dalembert_and_newton_euler_labels():
    eq = robmat_double_pendulum(Method.DALEMBERT)
    labels = [e.latex_label for e in iter_entries(eq)]
    assert labels[0] == r"D^{\mathrm{rot}}_{11}" and r"H^{\mathrm{tra}}_{2}" in labels
    assert [e.label for e in iter_entries(robmat_double_pendulum(Method.NEWTON_EULER))] == ["tau_1", "tau_2"]


def test_a_mirror_entry_names_its_partner_as_the_labels_do():
    """Issue 29 item 6's numbering: a closed chain's actuated joints keep the sliders' numbers (the palletizer's
    q1, q2, q4, q6), so M_42's partner is M_24, not its row 2, column 3 (the window showed "M_42 (= M_23)")."""
    q = sp.symbols("q1:5")
    M = sp.Matrix(4, 4, lambda i, j: sp.cos(q[min(i, j)] - q[max(i, j)]) + (i + 1) * (j + 1))
    model = Manipulator(links=tuple(Link(a=symbol(f"l{i}"), mass=symbol(f"m{i}")) for i in range(1, 5)))
    eq = Equations(Method.LAGRANGE, model, SimplifyMode.OFF, {"M": M}, sp.zeros(4, 1), M, sp.zeros(4, 1),
                   sp.zeros(4, 1))
    for numbers in (None, (1, 2, 4, 6)):
        entries = {e.label: e for e in iter_entries(eq, names=["M"], numbers=numbers)}
        mirrored = [e for e in entries.values() if e.mirror is not None]
        assert len(mirrored) == 6
        for e in mirrored:
            partner = entries[f"M_{''.join(map(str, e.mirror))}"]
            assert partner.mirror is None and partner.expr == e.expr
            assert e.label == f"M_{''.join(map(str, e.mirror[::-1]))}"
