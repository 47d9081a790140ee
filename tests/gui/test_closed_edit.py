"""Editing a closed chain's tree and loops in the window (issue 22): a bad entry stays red with its
message while the model keeps its value, a good one is undoable, and what does not make a mechanism
shows in the Problems panel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from designer.gui.cells import BAD_COLOR
from designer.model.mechanism import CutJoint
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "palletizer_parallelogram.json"), recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    return w


def _bad(table, row, col, text, words):
    before = table.document.model
    table.set_text(row, col, text)
    err = table.error_at(row, col)
    assert err is not None and all(w in err.message for w in words), err
    assert table.document.model == before                       # the model keeps its last good value
    assert table.data(table.index(row, col)) == text            # the entry stays on display...
    from PySide6.QtCore import Qt
    assert table.data(table.index(row, col), Qt.ItemDataRole.BackgroundRole).color() == BAD_COLOR   # ...in red


def test_bad_parent_and_loop_entries_keep_the_model_with_their_message(window):
    tree, loops = window.mechanism.tree_model, window.mechanism.loops_model
    _bad(tree, 2, 1, "5", ["no link 5", "earlier link"])        # link 3 on a later link
    listed = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert any("no link 5" in t for t in listed), listed          # the red cell is under Problems too
    _bad(tree, 2, 1, "two", ["link number"])
    _bad(tree, 4, 2, "maybe", ["actuated", "passive"])
    _bad(loops, 0, 0, "9", ["no link 9"])
    _bad(loops, 0, 0, "3", ["on itself"])                       # link j is 3 already
    _bad(loops, 0, 2, "1, 2", ["three values"])
    _bad(loops, 0, 6, "Q", ["R (revolute)"])


def test_good_entries_are_undoable_and_move_the_view(window):
    doc = window.document
    tree, loops = window.mechanism.tree_model, window.mechanism.loops_model
    original = doc.model
    tree.set_text(5, 1, "2")                     # the wrist onto the upper arm
    assert doc.model.links[5].parent == 2
    loops.set_text(0, 6, "S")
    assert doc.model.loops[0].joint is CutJoint.SPHERICAL
    loops.set_text(0, 2, "0.1, 0, 0")
    assert float(doc.model.loops[0].frame_i.xyz[0]) == pytest.approx(0.1)
    for _ in range(3):
        doc.undo_stack.undo()
    assert doc.model == original
    doc.undo_stack.redo()
    assert doc.model.links[5].parent == 2 and doc.model.loops[0] == original.loops[0]


def test_what_does_not_make_a_mechanism_is_in_the_problems_panel(window):
    doc, tree, loops = window.document, window.mechanism.tree_model, window.mechanism.loops_model
    problems = window.problems

    def texts():
        return [problems.item(k).text() for k in range(problems.count())]

    assert not any("loop" in t for t in texts())
    loops.set_text(0, 2, "0.1, 0, 0")            # the cut joint 100 mm off: the loop cannot close
    assert any("parallelogram" in t and "100 mm apart" in t for t in texts()), texts()
    doc.undo_stack.undo()
    tree.set_text(3, 2, "passive")               # the crank passive too: 3 degrees of freedom, 3 actuated
    assert any("degree(s) of freedom" in t for t in texts()), texts()
    doc.undo_stack.undo()
    tree.set_text(5, 2, "passive")               # the wrist passive, on no loop
    assert any("passive joint on no loop" in t for t in texts()), texts()
    doc.undo_stack.undo()
    assert not any("loop" in t for t in texts())
    # after each edit the window's pose stays a closed one (or the view says why not)
    mech = window.closed.mechanism
    assert mech is not None and np.allclose(mech.closure.solve(window.design.q[mech.actuated]), window.design.q)


def test_a_rounded_planar_loop_opens_with_nothing_in_the_problems_panel(qtbot, tmp_path):
    """A random planar loop whose file has its lengths to four significant digits: the Problems panel says nothing
    of the loops and the window's pose is closed (before: "3 degree(s) of freedom ... but 4 actuated", the rank
    taken at the nominal pose the rounding leaves open)."""
    from designer.gui.main_window import MainWindow
    from tests.support.rounding import rounded_planar_loop
    model, _ = rounded_planar_loop(tmp_path, 101, "R", 4)
    w = MainWindow(model, recovery_dir=tmp_path)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    texts = [w.problems.item(k).text() for k in range(w.problems.count())]
    assert not any("loop" in t or "freedom" in t for t in texts), texts
    mech = w.closed.mechanism
    assert mech is not None and mech.closure.residual(w.design.q) < 1e-10
