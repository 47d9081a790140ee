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
