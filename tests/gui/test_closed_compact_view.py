"""The Equations tab on a four-bar (no closed form): the compact form's steps, not a failure."""

from __future__ import annotations

from designer.dynamics.results import Form
from designer.project import load_project
from tests.support import ROBOTS


def test_the_equations_tab_shows_a_four_bars_compact_form(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "four_bar.json"), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    panel = w.derivation
    failed: list = []
    panel.derivationFailed.connect(lambda message, details: failed.append(message))
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000) as done:
        panel.start()
    eq = done.args[0]
    assert not failed
    assert eq.form is Form.COMPACT and "closed_compact" in eq.extras and eq.n == 1
    assert panel.view.entry_count() > 50   # the closure, the projection and the tree's recursion, line by line


def test_the_compact_form_says_why_it_stands_for_the_form_asked_for(qtbot, tmp_path):
    """Issue 29 item 5: "Lagrange-Euler (M, B, C, G)" showed the recursion's steps headed "off simplification" with
    no reason. The title now names the compact form, why the closed M, B, C, G is not shown, and where to get it;
    and that command does give it (the closed form with named loop quantities)."""
    from designer.dynamics import derive
    from designer.dynamics.results import Method, SimplifyMode
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "four_bar.json"), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    panel = w.derivation
    assert Method(panel.method.currentData()) is Method.LAGRANGE
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000):
        panel.start()
    title = panel.view.title.text()
    assert "off simplification" not in title
    assert "the compact form, not Lagrange-Euler M, B, C, G" in title and "does not close linearly" in title
    assert "python -m designer derive --method lagrange" in title
    closed = derive(load_project(ROBOTS / "four_bar.json"), Method.LAGRANGE, SimplifyMode.FAST)
    assert closed.form is Form.CLOSED and set(closed.matrices) == {"M", "B", "C", "G"}
    assert "loop_quantities" in closed.extras
