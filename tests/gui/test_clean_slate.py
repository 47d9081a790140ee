"""A project is a clean slate (issue 29): opening an example, New or an import replaces everything of
the previous project (its results in every view, its pose, its jobs, its unsaved mark, its messages).

Each example is opened in a window first after New (its reference state), then after each kind of
previous project (a serial arm, a closed chain, elastic joints) left with a result in every view, a
pose off home, a derivation still running and an unsaved edit discarded; the window must then be in
the reference state, with nothing of the previous project drawn, listed or running."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox, QTableWidget

from designer.dynamics.results import Method, SimplifyMode
from designer.gui.job_runner import JobRunner

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
EXAMPLES = sorted(p.name for p in ROBOTS.glob("*.json"))
# the kinds of project a user leaves behind: a serial arm, a closed chain, elastic joints
# (the tube arm with the README's requirements: elastic joints, a review and an optimizer's result left behind too)
PREVIOUS = ("puma560.json", "four_bar.json", "tube_arm_requirements.json")
LONG = 120_000   # ms: waits are for states, this only bounds a hung run on a very busy machine


class Questions:
    """Answers "Discard" to the unsaved-changes question (and counts it); any other box fails the test."""

    def __init__(self, monkeypatch):
        self.asked: list[str] = []

        def question(_parent, title, text, *args, **kwargs):
            self.asked.append(text)
            return QMessageBox.StandardButton.Discard

        def unexpected(_parent, title, text, *args, **kwargs):
            raise AssertionError(f"unexpected message box: {title}: {text}")
        monkeypatch.setattr(QMessageBox, "question", question)
        for kind in ("critical", "warning"):
            monkeypatch.setattr(QMessageBox, kind, unexpected)
        monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: QMessageBox.StandardButton.Ok)


@pytest.fixture
def questions(monkeypatch):
    return Questions(monkeypatch)


@pytest.fixture
def window(qtbot, tmp_path, questions):
    from designer.gui.main_window import MainWindow
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda win: win.document.undo_stack.setClean())
    w.show()
    qtbot.waitExposed(w)
    yield w
    for runner in w.findChildren(JobRunner):
        runner.cancel()
    qtbot.waitUntil(lambda: not any(r.busy for r in w.findChildren(JobRunner)), timeout=LONG)


# -- what the window shows ------------------------------------------------------------------------------
def drawn(widget) -> list[str]:
    """Every curve, scatter and image with data in the plots under ``widget``."""
    found = []
    for view in widget.findChildren(pg.GraphicsView):
        for item in view.scene().items():
            if not isinstance(item, pg.PlotItem):
                continue
            for data in item.items:
                if isinstance(data, pg.ImageItem):
                    if data.image is not None and data.image.size:
                        found.append(f"image in {item.titleLabel.text!r}")
                elif isinstance(data, (pg.PlotDataItem, pg.ScatterPlotItem)):
                    x = data.getData()[0]
                    if x is not None and len(x):
                        found.append(f"{len(x)} points in {item.titleLabel.text!r}")
    return found


def listed(widget) -> list[str]:
    """Every table cell with text under ``widget``."""
    return [f"{table.objectName() or type(table.parent()).__name__}[{r},{c}] {table.item(r, c).text()!r}"
            for table in widget.findChildren(QTableWidget)
            for r in range(table.rowCount()) for c in range(table.columnCount())
            if table.item(r, c) is not None and table.item(r, c).text()]


def axis_titles(widget) -> list[str]:
    """The axis titles of every plot under ``widget`` (colour bars' too), sorted; the Explore plots not built
    yet (never shown, nothing computed) are built first, so that both sides list the same plots."""
    from designer.gui.explore.plots import PlotBox
    for box in widget.findChildren(PlotBox):
        box.build()
    return sorted(item.labelText for view in widget.findChildren(pg.GraphicsView) for item in view.scene().items()
                  if isinstance(item, pg.AxisItem))


def state(w) -> dict:
    """What a newly opened project shows, to compare with the same project opened after New."""
    return {"title": w.windowTitle(), "modified": w.isWindowModified(), "dirty": w.document.dirty,
            "undo": w.undo_action.isEnabled(), "sliders": len(w.sliders.sliders), "q": list(w.sliders.values()),
            "design q": w.design.q.tolist(), "readout": w.readout.text(), "status": w.statusBar().currentMessage(),
            "tabs": [w.result_tabs.tabText(k) for k in range(w.result_tabs.count())],
            "simulate": w.simulate.status.text(), "history": w.document.undo_stack.count(),
            "ratings": [edit.text() for edit in (*w.explore.ratings_edits.values(), w.explore.payload.edit)],
            "explore axes": axis_titles(w.explore),
            "requirements": listed(w.requirements), "review": w.requirements.summary.text(),
            "cycle": w.requirements.cycle_info.text()}


def reviewed(qtbot, w) -> None:
    """A project with requirements is reviewed on opening: wait for it to be shown (its words and colours)."""
    panel, model = w.requirements, w.document.model
    if model.requirements.items:
        qtbot.waitUntil(lambda: panel.reviewed_model is model and not panel.runner.busy, timeout=LONG)


def assert_clean_slate(w, reference: dict) -> None:
    got = state(w)
    for key, value in reference.items():
        if key in ("q", "design q"):
            np.testing.assert_allclose(got[key], value, atol=1e-9, err_msg=key)
        else:
            assert got[key] == value, key
    assert w.simulate.result is None and not w.simulate.play_button.isEnabled()
    assert all(view.result is None for view in w.explore.views())
    assert drawn(w.simulate) == [] and drawn(w.explore) == []
    assert listed(w.explore) == []
    assert w.derivation.shown is None and not w.derivation.cache and w.derivation.view.entry_count() == 0
    assert w.arm_view.workspace_point_count() == 0
    dialog = w.requirements.optimize_dialog
    if dialog is not None:   # the Optimize dialog of the project before: its run, result and rows are gone
        assert dialog.found is None and not dialog.designs and not dialog.runner.busy
        assert dialog.summary.toPlainText() == "" and listed(dialog) == [] and not dialog.apply_button.isEnabled()
    assert not [r.title for r in w.findChildren(JobRunner) if r.busy and r is not w.coupling.runner]


# -- leaving results behind -----------------------------------------------------------------------------
def explore_job(qtbot, w, start) -> None:
    """Run an Explore view's job to its end (the four-bar's A/B too: its variant, whose loop does not close at the
    nominal pose, is assembled; it was refused before)."""
    with qtbot.waitSignal(w.explore.jobEnded, timeout=LONG) as blocker:
        assert start() is not None, w.explore.error_label.text()
    assert blocker.args[1] == "finished", w.explore.error_label.text()


def leave_results(qtbot, w) -> None:
    """A pose off home, a result in every view, a derivation running and an unsaved edit."""
    ranges = w.sliders.ranges()
    w.sliders.set_values(ranges[:, 0] + 0.56 * (ranges[:, 1] - ranges[:, 0]))
    assert not np.allclose(w.design.q, 0.0)
    sim = w.simulate
    sim.duration.setValue(0.2)
    with qtbot.waitSignal(sim.finished, timeout=LONG):
        assert sim.run() is not None, sim.status.text()
    assert drawn(sim)
    explore = w.explore
    explore.picker.set_metric("gravity[1]")
    model = w.document.model
    parameter = next(name for name in model.symbol_names() if name in model.parameter_values and name != "g")
    explore.workspace_view.samples.setValue(60)
    explore_job(qtbot, w, explore.workspace_view.compute)
    assert w.arm_view.workspace_point_count() > 0
    if explore.context.joints(model).n >= 2:
        explore.map_view.steps.setValue(5)
        explore.map_view.samples.setValue(40)
        explore_job(qtbot, w, explore.map_view.compute)
    sweep = explore.sweep_view
    sweep.params[0].setCurrentText(parameter)
    sweep.counts[0].setValue(3)
    sweep.samples.setValue(10)
    explore_job(qtbot, w, sweep.run)
    assert explore.pareto_view.result is not None
    compare = explore.compare_view
    compare.from_variant.setChecked(True)
    compare.parameter.setCurrentText(parameter)
    compare.samples.setValue(10)
    explore_job(qtbot, w, compare.compare)
    explore.ratings_edits["speed"].setText("2")   # what-ifs of this project's joints
    explore.ratings_edits["acceleration"].setText("5")
    explore.payload.edit.setText("0.5")
    if model.requirements.items:   # the review shown, and an optimizer's design found in the Optimize dialog
        reviewed(qtbot, w)
        assert listed(w.requirements)
        dialog = w.requirements.open_optimize()
        dialog.add_parameter("D2", 0.1, 0.15)
        dialog.starts.setValue(1)
        dialog.start()
        qtbot.waitUntil(lambda: dialog.found is not None and not dialog.runner.busy, timeout=LONG)
        assert dialog.summary.toPlainText() and listed(dialog)
    assert drawn(explore) and (listed(explore) or not model.is_serial)   # the A/B table, the map's statistics
    # the equations of a quick derivation on display, and a slow one still running when the project goes
    w.derivation.set_method(Method.LAGRANGE, SimplifyMode.OFF)
    with qtbot.waitSignal(w.derivation.derivationFinished, timeout=LONG):
        w.derivation.start()
    assert w.derivation.view.entry_count() > 0
    w.derivation.set_method(Method.NEWTON_EULER, SimplifyMode.FULL)
    w.derivation.start()
    assert w.derivation.busy
    w.document.apply(dataclasses.replace(model, name=f"{model.name} (edited)"), "Rename")
    assert w.document.dirty and w.isWindowModified()


# -- the tests ------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES)
def test_an_example_opens_the_same_after_any_kind_of_project(qtbot, window, questions, example):
    w = window
    w.new_project()
    assert w.open_example(ROBOTS / example)
    reviewed(qtbot, w)
    reference = state(w)
    assert reference["sliders"] == w.document.model.n and not reference["modified"]
    for previous in PREVIOUS:
        assert w.open_example(ROBOTS / previous)
        leave_results(qtbot, w)
        running = w.derivation.worker
        asked = len(questions.asked)
        assert w.open_example(ROBOTS / example)
        assert len(questions.asked) == asked + 1   # the unsaved edit was asked about (and discarded)
        reviewed(qtbot, w)
        assert_clean_slate(w, reference)
        # the previous project's derivation was cancelled; when it ends (a worker process's end is handled
        # by the time it is done), nothing of it is shown
        qtbot.waitUntil(lambda running=running: running.done, timeout=LONG)
        assert_clean_slate(w, {k: v for k, v in reference.items() if k != "status"})   # the status bar's 10 s


def test_jobs_running_when_another_project_opens_are_cancelled_and_their_results_dropped(qtbot, window):
    """A simulation, an Explore map, a derivation and the identification dialog's job still running:
    opening another project stops them at once (every job line idle, the old model's dialog closed), and
    what they deliver late is never shown for the new project."""
    from designer.gui import control_dialogs
    w = window
    assert w.open_example(ROBOTS / "puma560.json")
    w.simulate.duration.setValue(60.0)   # long by construction: seconds of integration
    w.explore.picker.set_metric("gravity[2]")
    w.explore.workspace_view.samples.setValue(200_000)
    w.derivation.set_method(Method.NEWTON_EULER, SimplifyMode.FULL)
    workers = [w.simulate.run(), w.explore.workspace_view.compute()]
    w.derivation.start()
    workers.append(w.derivation.worker)
    control_dialogs._identification(w)   # Arm > Identification: a dialog of this model, its job running
    dialog = w.control_dialog
    workers.append(dialog.worker)
    assert all(worker is not None and not worker.done for worker in workers)
    ended = []   # connected after the runners' own slots: called once those have handled the end
    for worker in workers:
        for signal in (worker.signals.finished, worker.signals.failed, worker.signals.cancelled):
            signal.connect(lambda *_a, worker=worker: ended.append(worker))
    # the new project is read and prepared off the GUI thread (gui/prepared.py): a job may end in that time,
    # while its project is still the open one; every other job is cancelled when the new project replaces it
    ended_before: list = []   # what ended before the document replaced the project
    reset = w.document.reset
    w.document.reset = lambda *a, **k: (ended_before.extend(ended), reset(*a, **k))
    assert w.open_example(ROBOTS / "palletizer_parallelogram.json")
    busy = [r for r in w.findChildren(JobRunner) if r.busy and r is not w.coupling.runner]
    assert not busy, [r.title for r in busy]
    assert not dialog.isVisible() and w.control_dialog is None
    assert w.simulate.run_button.isEnabled() and w.derivation.derive_button.isEnabled()
    qtbot.waitUntil(lambda: len(ended) == len(workers), timeout=LONG)
    assert all(worker.token.cancelled or worker in ended_before for worker in workers)
    # the simulation and the workspace map are long by construction: the open never waits for them (a step off the
    # GUI thread on the shared thread pool waited until they ended)
    assert workers[0] not in ended_before and workers[1] not in ended_before
    assert w.simulate.result is None and drawn(w.simulate) == [] and w.explore.workspace_view.result is None
    assert w.derivation.shown is None and w.arm_view.workspace_point_count() == 0
    assert "ancel" not in w.statusBar().currentMessage()   # no word of the old project's jobs
    assert w.statusBar().currentMessage().startswith("Opened the example palletizer_parallelogram.json")
    # the new project's own jobs run and show as usual
    w.simulate.duration.setValue(0.2)
    with qtbot.waitSignal(w.simulate.finished, timeout=LONG):
        assert w.simulate.run() is not None
    assert w.simulate.result.q.shape[1] == w.document.model.n and drawn(w.simulate)


TWO_LINK_MJCF = """<mujoco model="two">
  <worldbody>
    <body name="l1">
      <joint name="j1" type="hinge" axis="0 0 1"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/>
      <body name="l2" pos="0.5 0 0">
        <joint name="j2" type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

TWO_LINK_URDF = """<robot name="two">
  <link name="base"/>
  <link name="l1"><inertial><mass value="1"/><origin xyz="0.25 0 0"/>
    <inertia ixx="0.001" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l2"><inertial><mass value="1"/><origin xyz="0.2 0 0"/>
    <inertia ixx="0.001" iyy="0.015" izz="0.015" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.5 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
</robot>
"""


@pytest.mark.parametrize("kind", ["MJCF", "URDF"])
def test_importing_into_a_posed_elastic_arm_opens_the_import_at_home(qtbot, window, tmp_path, kind):
    """Issue 29 item 2: the tube arm posed, its mode animated, then a two-link import: no exception, two
    sliders at home, the read-out of the imported arm, nothing of the tube arm left."""
    from designer.gui import mjcf_dialogs, urdf_dialogs
    if kind == "MJCF":
        pytest.importorskip("mujoco")
    w = window
    assert w.open_example(ROBOTS / "tube_arm.json")
    w.sliders.set_values([0.4, -0.7, 0.9])
    assert "Hz" in w.readout.text()   # the elastic read-out at this pose
    assert w.mode_animation.start(1) == "" and w.mode_animation.running
    path = tmp_path / ("two.xml" if kind == "MJCF" else "two.urdf")
    path.write_text(TWO_LINK_MJCF if kind == "MJCF" else TWO_LINK_URDF)
    importer = mjcf_dialogs.import_mjcf_file if kind == "MJCF" else urdf_dialogs.import_urdf_file
    report = importer(w, path, options={})
    assert report is not None and w.document.model.n == 2
    assert len(w.sliders.sliders) == 2 and w.sliders.values() == [0.0, 0.0]
    np.testing.assert_array_equal(w.design.q, [0.0, 0.0])
    np.testing.assert_array_equal(w.arm_view.joint_values(), [0.0, 0.0])
    assert not w.mode_animation.running and w.readout.text().startswith("tool (") and "Hz" not in w.readout.text()
    assert w.statusBar().currentMessage() == report.text().splitlines()[0]
    # an import is unsaved, with nothing to undo; New asks about it, then starts clean
    assert w.document.dirty and w.isWindowModified() and not w.undo_action.isEnabled()
    w.new_project()
    assert not w.document.dirty and not w.isWindowModified() and w.statusBar().currentMessage() == ""
