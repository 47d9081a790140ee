"""The Optimize… dialog (gui/optimize_dialog.py): the optimizer run in the worker for a parameter chosen in its
table and the project's requirements, its result the core's (run here in the test's thread), Apply one undoable
edit after which the Requirements tab's review passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.optimize.problem import Choice, Problem, Requirement, Variable, optimize
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


def test_a_material_choice_with_a_parameter_then_apply_and_a_b(qtbot, window):
    panel = window.requirements
    doc = window.document
    before = doc.model
    dialog = panel.open_optimize()
    targets = [dialog.target.itemData(i) for i in range(dialog.target.count())]
    assert targets == ["1.material", "1.drive", "2.material", "2.drive", "3.material", "3.drive"]
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.add_choice("2.material")
    assert dialog.choices.item(0, 1).text().startswith("aluminium 6061-T6, steel")   # the part's own first
    dialog.choices.item(0, 1).setText("aluminium 6061-T6, steel")
    dialog.starts.setValue(1)
    assert dialog.start() is not None
    qtbot.waitUntil(lambda: dialog.found is not None and not dialog.runner.busy, timeout=300_000)
    core = optimize(Problem(before, (Variable("D2", 0.06, 0.15),), "mass", Requirement.of_project(before),
                            choices=(Choice("2.material", ("aluminium 6061-T6", "steel")),)), 1)
    best = dialog.found.best
    assert core.best is not None and best is not None and best.picks == core.best.picks
    assert best.values["D2"] == pytest.approx(core.best.values["D2"], rel=1e-9)
    # the design table lists the objective, the variable, the choice and every requirement with its margin
    rows = dialog.design_table.texts()
    assert rows[0][:2] == ["objective", "mass"] and float(rows[0][2]) == pytest.approx(best.objective, rel=1e-5)
    assert ["choice", "2.material", best.picks[0], ""] in rows
    reqs = [r for r in rows if r[0] == "requirement"]
    assert len(reqs) == 8 and all(float(r[3]) >= 0 for r in reqs)

    qtbot.waitUntil(lambda: panel.outcomes is not None and panel._current(doc.model, panel.reviewed_model)
                    and not panel.runner.busy, timeout=120_000)   # the tab's review of the current design
    # A/B: the current design against the found one; B's total mass is the mass the optimizer's review gave it
    assert dialog.ab_button.isEnabled() and dialog.start_ab() is not None
    qtbot.waitUntil(lambda: bool(dialog.ab_table.rows) and not dialog.runner.busy, timeout=300_000)
    by = {(r["metric"], r["where"]): r for r in dialog.ab_table.rows}
    mass = by[("total_mass", "design")]
    k = [r.project.metric for r in dialog.found_problem.requirements].index("mass")
    assert mass["B"] == pytest.approx(best.quantities[k], rel=1e-9)
    panel_mass = next(o.value for o in panel.outcomes if o.requirement.metric == "mass")
    assert mass["A"] == pytest.approx(panel_mass, rel=1e-9)
    assert ("frequency", "pose") in by and dialog.ab_table.rowCount() == len(dialog.ab_table.rows)
    # the requirements first, A's as the tab's review has them, B's as the optimizer's
    reqs = [r for r in dialog.ab_table.rows if r["where"] == "requirement"]
    assert len(reqs) == 8 and dialog.ab_table.rows[:8] == reqs
    assert [r["A"] for r in reqs] == pytest.approx([o.value for o in panel.outcomes], rel=1e-9)
    assert [r["B"] for r in reqs] == pytest.approx(list(best.quantities), rel=1e-9)

    # Apply: the parameter and the material in one undoable edit
    depth = doc.undo_stack.count()
    assert dialog.apply() and doc.undo_stack.count() == depth + 1
    assert doc.model.links[1].part.material.name == best.picks[0]
    assert doc.model.parameter_values["D2"] == pytest.approx(best.values["D2"], rel=1e-12)
    doc.undo_stack.undo()
    assert doc.model == before


def test_a_bad_option_is_named_and_nothing_runs(qtbot, window):
    dialog = window.requirements.open_optimize()
    dialog.add_choice("2.material", ["steel", "unobtainium"])
    assert dialog.start() is None and not dialog.runner.busy
    assert "no material 'unobtainium'" in dialog.message.text()
    dialog.choices.setRowCount(0)
    dialog.add_choice("2.drive", ["NPT025-MF-10", "NOPE-1"])
    assert dialog.start() is None
    assert "'NOPE-1' is neither a gearbox nor a motor" in dialog.message.text()
    dialog.choices.item(0, 1).setText(" , ")
    assert dialog.start() is None and dialog.message.text().startswith("choice 1 (2.drive): give its options")
    dialog.choices.setRowCount(0)
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.more_objectives.setText("max frequency, mass")
    assert dialog.start() is None and dialog.message.text() == "objective 'mass' is given twice"
    dialog.more_objectives.setText("fastest frequency")
    assert dialog.start() is None and "write QUANTITY, max QUANTITY or min QUANTITY" in dialog.message.text()
    assert not dialog.apply_button.isEnabled() and not dialog.ab_button.isEnabled()


def test_two_objectives_give_a_front_to_pick_apply_and_compare(qtbot, window):
    from PySide6.QtCore import QPointF, Qt

    from designer.optimize.problem import evaluate_design
    doc = window.document
    before = doc.model
    dialog = window.requirements.open_optimize()
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.use_requirements.setChecked(False)
    dialog.objective.setCurrentText("mass")
    dialog.more_objectives.setText("deflection")
    dialog.population.setValue(8)
    dialog.generations.setValue(4)
    assert dialog.start() is not None
    qtbot.waitUntil(lambda: dialog.found is not None and not dialog.runner.busy, timeout=300_000)
    front = dialog.found
    assert front.names == ("mass", "deflection") and len(dialog.designs) >= 3
    # each design's objectives evaluated again here, one by one
    assert dialog.payload.value() == 5.0   # the project's payload
    problem = Problem(before, (Variable("D2", 0.06, 0.15),), "mass", payload=5.0)
    for d, row in zip(dialog.designs, dialog.objective_values):
        fresh = evaluate_design(problem, d.values, d.picks, objectives=["mass", "deflection"])
        np.testing.assert_allclose(row, fresh.objectives, rtol=1e-9)
    # a thicker upper arm is heavier and sags less: along the front, mass up, deflection down, and D2 up
    order = np.argsort(dialog.objective_values[:, 0])
    f = dialog.objective_values[order]
    d2 = np.array([dialog.designs[i].values["D2"] for i in order])
    assert np.all(np.diff(f[:, 0]) > 0) and np.all(np.diff(f[:, 1]) < 0) and np.all(np.diff(d2) > 0)
    # plotted: one point per design; clicking one (the one farthest from its neighbours on the screen) selects it
    xy = dialog.front.points()
    np.testing.assert_allclose(xy, dialog.objective_values)
    dialog.tabs.setCurrentIndex(0)
    box = dialog.front.box
    dialog.resize(1150, 680)   # as at 1366 x 768 (the test's screen may be smaller)
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: box.built and box.plot.vb.width() > 0, timeout=60_000)
    vb = box.plot.vb
    vb.autoRange()   # the range set now, not at the next paint

    def settled():
        r = vb.viewRect()
        return all(r.contains(QPointF(*p)) for p in xy) and vb.width() > 100 and vb.height() > 100
    qtbot.waitUntil(settled, timeout=60_000)
    view = box.layout_widget
    pixels = [view.mapFromScene(box.plot.vb.mapViewToScene(QPointF(*p))) for p in xy]
    p = np.array([[q.x(), q.y()] for q in pixels], float)
    gaps = [min(np.hypot(*(p[k] - p[i])) for k in range(len(p)) if k != i) for i in range(len(p))]
    picked = int(np.argmax(gaps))
    assert gaps[picked] > 6   # pixels: the click cannot land on another point
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pixels[picked])
    qtbot.waitUntil(lambda: dialog.chosen == picked, timeout=60_000)
    design = dialog.designs[picked]
    rows = dialog.design_table.texts()
    assert rows[0][:2] == ["objective", "mass"] and rows[1][:2] == ["objective", "deflection"]
    assert ["variable", "D2", f"{design.values['D2']:.6g}", ""] in rows
    # Apply: one undoable edit to that design
    assert dialog.apply()
    assert doc.model.parameter_values["D2"] == pytest.approx(design.values["D2"], rel=1e-12)
    doc.undo_stack.undo()
    assert doc.model == before
    # A/B against the current design: B's sag at the pose (every joint at zero) and mass are the front's
    dialog.start_ab()
    qtbot.waitUntil(lambda: bool(dialog.ab_table.rows) and not dialog.runner.busy, timeout=300_000)
    by = {(r["metric"], r["where"]): r for r in dialog.ab_table.rows}
    assert by[("deflection", "pose")]["B"] == pytest.approx(dialog.objective_values[picked, 1], rel=1e-9)
    assert by[("total_mass", "design")]["B"] == pytest.approx(dialog.objective_values[picked, 0], rel=1e-9)


def test_cancel_stops_a_front(qtbot, window):
    # 200 generations of 100 designs: long by construction; Cancel ends it with nothing to apply or compare
    dialog = window.requirements.open_optimize()
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.more_objectives.setText("max frequency")
    dialog.population.setValue(100)
    dialog.generations.setValue(200)
    assert dialog.start() is not None
    qtbot.waitUntil(lambda: dialog.runner.busy, timeout=60_000)
    dialog.runner.cancel()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=120_000)
    assert dialog.message.text() == "Cancelled" and dialog.found is None and dialog.designs == []
    assert not dialog.apply_button.isEnabled() and not dialog.ab_button.isEnabled() and not dialog.apply()


def test_the_dialog_is_usable_at_1366_by_768(qtbot, window):
    from PySide6.QtCore import QPoint, QRect
    dialog = window.requirements.open_optimize()
    screen = QRect(0, 0, 1366, 768 - 60)   # less a task bar and the title bar
    assert dialog.minimumSizeHint().width() <= screen.width()
    assert dialog.minimumSizeHint().height() <= screen.height()
    dialog.resize(min(1150, screen.width()), min(680, screen.height()))
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.width() <= screen.width() and dialog.height() <= screen.height(), timeout=10_000)
    for widget in (dialog.table, dialog.choices, dialog.add_button, dialog.add_choice_button, dialog.objective,
                   dialog.more_objectives, dialog.population, dialog.generations, dialog.payload, dialog.run_button,
                   dialog.runner, dialog.front.box, dialog.tabs, dialog.apply_button):
        rect = QRect(widget.mapTo(dialog, QPoint(0, 0)), widget.size())
        assert widget.isVisible() and dialog.rect().contains(rect), widget
        assert widget.width() > 0 and widget.height() > 0
    assert dialog.front.height() >= 180 and dialog.table.height() >= 60 and dialog.choices.height() >= 60


def test_a_drive_choice_offers_the_pairs_sized_along_the_cycle(qtbot, window):
    from designer.catalog import load_catalog
    from designer.optimize.sizing import size_cycle
    from designer.review import cycle_trajectory
    dialog = window.requirements.open_optimize()
    model = window.document.model
    traj = cycle_trajectory(model.requirements.cycle, 3, (1, 2, 3))
    sizing = size_cycle(model, traj, load_catalog())   # the core's sizing of the same cycle, here
    # joint 3: its lightest feasible pairs, in the core's order
    assert dialog.add_choice("3.drive") is not None
    qtbot.waitUntil(lambda: not dialog.runner.busy and dialog.message.text().startswith("choice 1"), timeout=120_000)
    offered = [o.strip() for o in dialog.choices.item(0, 1).text().split(",")]
    ranked = sizing[3].ranked
    assert len(ranked) >= 4 and offered == [f"{p.gearbox.name}+{p.motor.name}" for p in ranked[:4]]
    assert "4 lightest gearbox+motor pairs" in dialog.message.text()
    for p in ranked[:4]:   # each carries the cycle's peak torque within the pair's peak rating at the joint
        assert p.peak_torque <= min(p.gearbox.peak_torque, p.motor.peak_torque * p.gearbox.ratio)
    # joint 2 on a cycle 7.5 times as fast (the bundled strain-wave units carry it at 3 s): the bundled catalogs
    # hold no pair for its load; said, and the gearboxes stay the options
    from dataclasses import replace
    req = model.requirements
    assert window.document.apply(replace(model, requirements=replace(req, cycle=replace(req.cycle, time=0.4))),
                                 "faster cycle")
    fast = window.document.model
    assert size_cycle(fast, cycle_trajectory(fast.requirements.cycle, 3, (1, 2, 3)), load_catalog())[2].ranked == []
    gearboxes = dialog.choices.rowCount()
    assert dialog.add_choice("2.drive") is not None
    qtbot.waitUntil(lambda: not dialog.runner.busy and dialog.message.text().startswith("choice 2"), timeout=120_000)
    assert "no catalog pair carries joint 2's load" in dialog.message.text()
    assert "+" not in dialog.choices.item(gearboxes, 1).text()
    # the offered options make a valid problem: each applies to the project
    dialog.choices.removeRow(gearboxes)
    dialog.add_parameter("D2", 0.06, 0.15)
    assert dialog.problem().choices[0].options == tuple(offered)


def test_three_objectives_plot_any_two(qtbot, window):
    dialog = window.requirements.open_optimize()
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.add_parameter("D3", 0.05, 0.12)
    dialog.use_requirements.setChecked(False)
    dialog.more_objectives.setText("deflection, max frequency_links")
    dialog.population.setValue(8)
    dialog.generations.setValue(2)
    assert dialog.start() is not None
    qtbot.waitUntil(lambda: dialog.found is not None and not dialog.runner.busy, timeout=300_000)
    assert dialog.found.names == ("mass", "deflection", "frequency_links")
    assert dialog.found.maximize == (False, False, True)
    x, y = dialog.front.axis
    assert x.isEnabled() and y.isEnabled() and y.itemText(2) == "max frequency_links"
    y.setCurrentIndex(2)
    np.testing.assert_allclose(dialog.front.points(), dialog.objective_values[:, [0, 2]])
    assert dialog.front.box.plot.getAxis("left").labelText == "frequency_links"
    # no design on the front is beaten in all three by another (minimize, minimize, maximize)
    f = dialog.objective_values * np.array([1.0, 1.0, -1.0])
    for i in range(len(f)):
        assert not any(np.all(f[k] <= f[i]) and np.any(f[k] < f[i]) for k in range(len(f)))


def test_a_front_on_threads_is_the_front_found_in_one_thread(qtbot, window, monkeypatch):
    from designer.explore.distribute import Compute
    from designer.optimize.pareto import pareto
    doc = window.document
    dialog = window.requirements.open_optimize()
    monkeypatch.setattr(dialog.compute_button, "compute", lambda: Compute("threads", 2))
    dialog.add_parameter("D2", 0.06, 0.15)
    dialog.use_requirements.setChecked(False)
    dialog.more_objectives.setText("deflection")
    dialog.population.setValue(8)
    dialog.generations.setValue(3)
    assert dialog.start() is not None
    qtbot.waitUntil(lambda: dialog.found is not None and not dialog.runner.busy, timeout=300_000)
    assert "2 local threads" in " ".join(dialog.found.log + [dialog.found.method])
    # the same problem, seed and sizes, every design evaluated in this thread
    here = pareto(Problem(doc.model, (Variable("D2", 0.06, 0.15),), "mass", payload=5.0), ["mass", "deflection"],
                  8, 3, seed=0)
    np.testing.assert_allclose(dialog.objective_values, here.objectives, rtol=1e-12)
    assert [d.values for d in dialog.designs] == [d.values for d in here.designs]
