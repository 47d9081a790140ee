"""The Optimize… dialog (gui/optimize_dialog.py): the optimizer run in the worker for a parameter chosen in its
table and the project's requirements, its result the core's (run here in the test's thread), Apply one undoable
edit after which the Requirements tab's review passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.optimize.problem import Problem, Requirement, Variable, optimize
from tests.support.windows import open_window

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "tube_arm_requirements.json")


def test_optimize_in_the_worker_then_apply_and_undo(qtbot, window):
    panel = window.requirements
    doc = window.document
    before = doc.model
    dialog = panel.open_optimize()
    assert "D2" in [dialog.parameter.itemText(i) for i in range(dialog.parameter.count())]
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.starts.setValue(1)
    assert dialog.use_requirements.isChecked()
    assert dialog.start() is not None
    qtbot.waitUntil(lambda: dialog.found is not None and not dialog.runner.busy, timeout=300_000)
    # the core's optimizer on the same problem, in this thread
    core = optimize(Problem(before, (Variable("D2", 0.06, 0.15),), "mass", Requirement.of_project(before)), 1)
    assert core.best is not None and dialog.found.best is not None
    assert dialog.found.best.values["D2"] == pytest.approx(core.best.values["D2"], rel=1e-9)
    assert "requirements[1] tool sag at home" in dialog.summary.toPlainText()
    assert dialog.apply_button.isEnabled()
    # Apply: one undoable edit of the parameters; the review of the edited project passes
    depth = doc.undo_stack.count()
    assert dialog.apply()
    assert doc.undo_stack.count() == depth + 1
    assert doc.model.parameter_values["D2"] == pytest.approx(core.best.values["D2"], rel=1e-9)
    assert doc.model.requirements == before.requirements
    qtbot.waitUntil(lambda: panel.outcomes is not None and panel._current(doc.model, panel.reviewed_model)
                    and not panel.runner.busy, timeout=120_000)
    assert panel.summary.text() == "8 of 8 requirement(s) pass"
    doc.undo_stack.undo()
    assert doc.model.parameter_values["D2"] == before.parameter_values["D2"]


def test_a_bad_cell_is_named_and_nothing_runs(qtbot, window):
    dialog = window.requirements.open_optimize()
    assert dialog.start() is None and dialog.message.text() == "add a parameter to vary"
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.table.item(0, 2).setText("wide")
    assert dialog.start() is None
    assert dialog.message.text() == "row 1, High: 'wide' is not a number"
    assert not dialog.runner.busy and not dialog.apply_button.isEnabled()


def test_no_feasible_design_offers_nothing_to_apply(qtbot, window):
    # below D2 = 0.1 the sag at home stays above its bound
    dialog = window.requirements.open_optimize()
    dialog.add_parameter("D2", 0.06, 0.1)
    dialog.starts.setValue(1)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.found is not None and not dialog.runner.busy, timeout=300_000)
    assert dialog.found.best is None and not dialog.apply_button.isEnabled()
    assert "FAILS" in dialog.summary.toPlainText() and "nothing to apply" in dialog.message.text()
    assert not dialog.apply()


def test_cancel_stops_the_search(qtbot, window):
    # 100 starts over two variables: long by construction; Cancel ends it with no result to apply
    dialog = window.requirements.open_optimize()
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.add_parameter("D3", 0.05, 0.12)
    dialog.starts.setValue(100)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.runner.busy, timeout=60_000)
    dialog.runner.cancel()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=120_000)
    assert dialog.message.text() == "Cancelled"
    assert dialog.found is None and not dialog.apply_button.isEnabled()


def test_close_cancels_a_run(qtbot, window):
    dialog = window.requirements.open_optimize()
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.add_parameter("D3", 0.05, 0.12)
    dialog.starts.setValue(100)   # long by construction
    dialog.start()
    qtbot.waitUntil(lambda: dialog.runner.busy, timeout=60_000)
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=120_000)
    assert not dialog.isVisible() and dialog.found is None
    assert window.document.model.parameter_values["D2"] == 0.09
