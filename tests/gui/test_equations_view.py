"""The equation viewer, fed with ROBMAT's published double-pendulum equations (Horn & Linge 1994, In[5]-In[8])."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

pytest.importorskip("pytestqt")

from designer.dynamics.results import Equations, Method, SimplifyMode
from designer.model import Link, Manipulator, symbol

L1, L2, m1, m2, g = (symbol(n) for n in ("L1", "L2", "m1", "m2", "g"))
q1, q2 = symbol("q1"), symbol("q2")
qd1, qd2, qdd1, qdd2 = (symbol(n) for n in ("qd1", "qd2", "qdd1", "qdd2"))


def robmat_double_pendulum() -> Equations:
    links = (Link("R", a="L1", mass="m1"), Link("R", a="L2", mass="m2"))
    model = Manipulator(links=links, name="Double pendulum", gravity=("g", 0, 0),
                        parameters={"L1": 1.0, "L2": 0.8, "m1": 2.0, "m2": 1.0, "g": 9.81})
    c2, s2 = sp.cos(q2), sp.sin(q2)
    M = sp.Matrix([[L1**2 * m1 + L1**2 * m2 + 2 * c2 * L1 * L2 * m2 + L2**2 * m2, L2 * (c2 * L1 + L2) * m2],
                   [L2 * (c2 * L1 + L2) * m2, L2**2 * m2]])
    B = sp.Matrix([[-L1 * L2 * m2 * s2], [0]])
    C = sp.Matrix([[0, -L1 * L2 * m2 * s2], [L1 * L2 * m2 * s2, 0]])
    G = sp.Matrix([g * (L1 * m1 * sp.sin(q1) + L1 * m2 * sp.sin(q1) + L2 * m2 * sp.sin(q1 + q2)),
                   g * L2 * m2 * sp.sin(q1 + q2)])
    tau = M * sp.Matrix([qdd1, qdd2]) + 2 * B * sp.Matrix([qd1 * qd2]) + C * sp.Matrix([qd1**2, qd2**2]) + G
    return Equations(Method.LAGRANGE, model, SimplifyMode.FULL, {"M": M, "B": B, "C": C, "G": G}, tau, M, G,
                     tau - M * sp.Matrix([qdd1, qdd2]) - G)


@pytest.fixture
def view(qtbot):
    from designer.gui.equations_view import EquationsView
    widget = EquationsView()
    widget.resize(700, 500)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def test_lists_every_entry_of_the_form(view, qtbot):
    eq = robmat_double_pendulum()
    view.set_equations(eq)
    view.hide_zero.setChecked(False)
    assert view.entry_count() == 4 + 2 + 4 + 2
    view.hide_zero.setChecked(True)
    nonzero = sum(1 for mat in eq.matrices.values() for e in mat if e != 0)
    assert view.entry_count() == nonzero == 9
    labels = view.visible_labels()
    assert labels[0] == "M_11" and labels[-1] == "G_2"
    assert [lab[0] for lab in labels] == ["M"] * 4 + ["B"] + ["C"] * 2 + ["G"] * 2
    # operation counts arrive from a worker thread once the rows are painted
    qtbot.waitUntil(lambda: view.model.data(view.model.index(0, 1)) != "…", timeout=120_000)
    assert view.model.data(view.model.index(0, 1)) == sp.count_ops(eq["M"][0, 0])


def test_link_torques_are_listed_as_T(view):
    eq = robmat_double_pendulum()
    T = sp.Matrix([[L1 * m1 * qdd1, 0], [0, L2 * m2 * qdd2]])  # any n x n matrix stands in for Horn's T_ij
    eq = Equations(eq.method, eq.model, eq.simplify, eq.matrices, eq.tau, eq.mass_matrix, eq.gravity,
                   eq.coriolis, {"link_torques": T})
    view.set_equations(eq)
    assert view.visible_labels()[-2:] == ["T_11", "T_22"]


def test_copy_puts_latex_and_text_on_the_clipboard(view):
    from PySide6.QtGui import QGuiApplication
    eq = robmat_double_pendulum()
    view.set_equations(eq)
    view.select_row(view.visible_labels().index("M_12"))
    view.copy_latex()
    assert QGuiApplication.clipboard().text() == "M_{12} = " + sp.latex(eq["M"][0, 1])
    view.copy_text()
    assert QGuiApplication.clipboard().text() == "M_12 = " + sp.sstr(eq["M"][0, 1])   # no floats: as they are


def test_round_off_floats_read_as_fractions(view, qtbot):
    """Issue 29 item 11: an entry with 0.333333333333333 (a model's float arithmetic) reads m2/3 in the preview,
    the typeset image's text and the copies; it is the same number; a float that is no simple fraction stays."""

    from designer.report.typeset import tidy_floats
    eq = robmat_double_pendulum()
    odd = 0.3333333333333333 * L2**2 * m2 + 266.66666666666663 * m1 + 0.4444135452174627 * L1
    M = eq["M"].copy()
    M[1, 1] = odd
    eq = Equations(eq.method, eq.model, eq.simplify, {**eq.matrices, "M": M}, eq.tau, M, eq.gravity, eq.coriolis)
    tidy = tidy_floats(odd)
    assert tidy.atoms(sp.Float) == {sp.Float(0.4444135452174627)}   # only the one that is not a fraction
    values = {L1: 0.7, L2: 1.3, m1: 2.1, m2: 0.9}
    assert float(tidy.subs(values)) == pytest.approx(float(odd.subs(values)), rel=1e-14)
    view.set_equations(eq)
    row = view.visible_labels().index("M_22")
    qtbot.waitUntil(lambda: view.model.data(view.model.index(row, 2)) not in (None, "…"), timeout=20000)
    preview = view.model.data(view.model.index(row, 2))
    assert "m2/3" in preview and "800*m1/3" in preview and "0.3333" not in preview, preview
    view.select_row(row)
    assert "0.3333" not in view.copy_text() and "L2**2*m2/3" in view.copy_text()
    assert r"\frac{L_{2}^{2} m_{2}}{3}" in view.copy_latex()


def test_search_filters_by_symbol(view):
    view.set_equations(robmat_double_pendulum())
    view.search.setText("m1")
    # link 1's mass acts only at joint 1: in M_11 and G_1
    assert view.visible_labels() == ["M_11", "G_1"]
    view.search.setText("g")
    assert view.visible_labels() == ["G_1", "G_2"]
    view.search.setText("L1 q2")  # every word must match
    assert set(view.visible_labels()) == {"M_11", "M_12", "M_21", "B_1,12", "C_12", "C_21", "G_1"}
    view.search.setText("")
    assert view.entry_count() == 9


def test_stale_banner(view):
    eq = robmat_double_pendulum()
    view.set_equations(eq, stale=True)
    assert view.banner.isVisible() and "out of date" in view.banner.text().lower()
    assert "Derive again to update" in view.banner.text()   # the wording of every result banner (StaleBanner)
    view.set_equations(eq, stale=False)
    assert not view.banner.isVisible()
    view.set_equations(None)
    assert view.entry_count() == 0 and not view.banner.isVisible()


def test_selected_entry_is_typeset_lazily(view, qtbot):
    view.set_equations(robmat_double_pendulum())
    assert view.rendered_count == 0  # nothing is typeset until the user looks at it
    view.select_row(0)
    qtbot.waitUntil(lambda: view.rendered_count == 1, timeout=120_000)
    pixmap = view.math.pixmap()
    assert not pixmap.isNull() and pixmap.width() > 200
    pixels = np.frombuffer(pixmap.toImage().convertToFormat(pixmap.toImage().Format.Format_Grayscale8).constBits(),
                           dtype=np.uint8)
    assert (pixels < 100).sum() > 200  # dark glyphs on white


def test_long_sums_break_into_lines_that_mathtext_can_typeset():
    from designer.gui.mathtext import latex_lines, render_lines, typeset
    xs = [symbol(f"x{k}") for k in range(1, 41)]
    expr = sum(x * sp.sin(q1 + x) for x in xs) - qd1 * qdd2
    lines = latex_lines("E", expr)
    assert len(lines) > 3
    joined = " ".join(lines)
    assert all(joined.count(f"x_{{{k}}} ") + joined.count(f"x_{{{k}}}\\") >= 1 for k in range(1, 41))
    assert r"\dot{q}_{1}" in joined and r"\ddot{q}_{2}" in joined
    assert render_lines(lines).shape[0] > 3 * 15
    short = latex_lines("E", expr, max_lines=2)
    assert len(short) == 3 and r"\ldots" in short[-1] and "rest" in short[-1]
    assert typeset("E", expr) is not None
    # a product with a long sum breaks inside the sum
    product = latex_lines("F", symbol("m2") * sum(xs))
    assert len(product) > 1 and product[0].startswith("F = m_{2} (") and product[-1].endswith(")")
    assert typeset("A", sp.Matrix([[q1, q2], [q2, q1]])) is None  # \begin{matrix}: not mathtext


def test_an_entry_mathtext_cannot_typeset_is_shown_as_text(view, qtbot):
    from designer.gui.mathtext import typeset
    eq = robmat_double_pendulum()
    odd = sp.Piecewise((q1, q2 > 0), (0, True))  # LaTeX \begin{cases}: not in mathtext
    assert typeset("P", odd) is None
    eq = Equations(eq.method, eq.model, eq.simplify, eq.matrices, eq.tau, eq.mass_matrix, eq.gravity,
                   eq.coriolis, {"odd": sp.Matrix([[odd]])})
    view.set_equations(eq)
    assert view.visible_labels()[-1].startswith("odd")
    view.select_row(view.entry_count() - 1)
    qtbot.waitUntil(lambda: view.rendered_count == 1, timeout=120_000)
    assert view.math.pixmap().width() > 200
