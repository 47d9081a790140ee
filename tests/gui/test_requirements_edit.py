"""The Requirements tab's typed edits (gui/requirements_edit.py): where a requirement holds (poses, a box) and the
cycle's waypoints typed, each bad entry refused with the message opening such a file gives and nothing lost, each
good one an undoable edit the review then evaluates; each driven joint's catalog gearbox and motor chosen, the
drive's figures then the items' (read here from the catalog files themselves)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from designer.project import load_project, save_project
from tests.support.windows import open_window

ROOT = Path(__file__).resolve().parents[2]
ROBOTS = ROOT / "robots"
CATALOGS = ROOT / "resources" / "catalogs"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "tube_arm_requirements.json")


def wait_reviewed(qtbot, panel, model):
    qtbot.waitUntil(lambda: panel.reviewed_model is not None and panel._current(model, panel.reviewed_model)
                    and panel.outcomes is not None and not panel.runner.busy, timeout=120_000)


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def test_typed_poses_and_box_are_edits_the_review_evaluates(qtbot, window):
    panel = window.requirements
    doc = window.document
    original = doc.model.requirements
    wait_reviewed(qtbot, panel, doc.model)
    panel.table.setCurrentCell(0, 0)
    assert panel.where_edit.text() == "zero" and panel.where_label.text() == "Where 1:"
    # two typed poses: the sag is evaluated at both, its worst one of them
    type_into(qtbot, panel.where_edit, "poses: 0 -0.6 1.2; 0.5, -1.0, 1.6")
    assert doc.model.requirements.items[0].where.poses == ((0.0, -0.6, 1.2), (0.5, -1.0, 1.6))
    wait_reviewed(qtbot, panel, doc.model)
    assert panel.outcomes[0].pose in doc.model.requirements.items[0].where.poses
    assert panel.table.item(0, 6).text() != ""
    # a box of joint values: written as the file has it
    assert panel.set_where_text(0, "box: lo -0.5 -1 0.5; hi 0.5 -0.2 1.5; samples 16")
    w = doc.model.requirements.items[0].where
    assert (w.kind, w.lo, w.hi, w.samples) == ("box", (-0.5, -1.0, 0.5), (0.5, -0.2, 1.5), 16)
    assert panel.where_edit.text() == "box: lo -0.5 -1 0.5; hi 0.5 -0.2 1.5; samples 16"
    wait_reviewed(qtbot, panel, doc.model)
    assert panel.outcomes[0].error == "" and math.isfinite(panel.outcomes[0].value)

    # bad entries: each refused with what and where; the requirement stays as it was, its text shown again
    before = doc.model.requirements
    depth = doc.undo_stack.count()
    for text, message in [
            ("poses: 0 0", "requirements[1].where.poses: has 2 joint value(s), the arm's metrics take 3"),
            ("poses: 0 0 x", "requirement 1, where, pose 1: 'x' is not a number"),
            ("box: lo 1 1 1; hi 0 0 0", "requirements[1].where.box: hi must not be below lo"),
            ("box: lo 0 0 0; hi 1 1 1; samples 0", "requirements[1].where.box.samples: must be a whole number"),
            ("box: lo 0 0 0", "requirement 1, where: the box needs its hi"),
            ("everywhere", "requirement 1, where: write zero, cycle, poses:"),
            ("poses: 0 0 nan", "requirements[1].where.poses[1][3]: not a finite number")]:
        assert not panel.set_where_text(0, text)
        assert panel.summary.text().startswith(message), (text, panel.summary.text())
        assert doc.model.requirements == before and doc.undo_stack.count() == depth
        assert panel.where_edit.text() == "box: lo -0.5 -1 0.5; hi 0.5 -0.2 1.5; samples 16"
    # typed "cycle" and "zero"; then Undo takes every edit back
    assert panel.set_where_text(0, "cycle") and doc.model.requirements.items[0].where.kind == "cycle"
    assert panel.set_where_text(0, "zero") and doc.model.requirements.items[0].where.kind == "zero"
    assert doc.undo_stack.count() == depth + 2
    doc.undo_stack.undo()
    assert doc.model.requirements.items[0].where.kind == "cycle"
    for _ in range(3):
        doc.undo_stack.undo()
    assert doc.undo_stack.index() == depth - 2 and doc.model.requirements == original
    wait_reviewed(qtbot, panel, doc.model)


def test_typed_waypoints_make_the_cycle(qtbot, window, tmp_path):
    panel = window.requirements
    doc = window.document
    wait_reviewed(qtbot, panel, doc.model)
    assert panel.waypoints_edit.text() == "0 -0.6 1.2; 1.5 -1 1.6; 1.5 -0.5 0.9; 0 -0.6 1.2"
    type_into(qtbot, panel.waypoints_edit, "0 -0.6 1.2; 1 -1 1.6; 0 -0.6 1.2")
    c = doc.model.requirements.cycle
    assert c.waypoints == ((0.0, -0.6, 1.2), (1.0, -1.0, 1.6), (0.0, -0.6, 1.2)) and c.time == 3.0
    wait_reviewed(qtbot, panel, doc.model)
    # saved: the file holds the typed cycle
    path = tmp_path / "typed.json"
    save_project(doc.model, path)
    assert json.loads(path.read_text())["cycle"]["waypoints"] == [[0, -0.6, 1.2], [1, -1, 1.6], [0, -0.6, 1.2]]
    before = doc.model.requirements
    for text, message in [("0 -0.6 1.2", "cycle.waypoints: needs at least two waypoints"),
                          ("0 0; 1 1", "cycle.waypoints: has 2 joint value(s), the arm's metrics take 3"),
                          ("0 0 0; 1 1", "cycle.waypoints: the poses have different numbers of joint values"),
                          ("0 0 0; 1 1 q", "cycle waypoints, pose 2: 'q' is not a number"),
                          ("", "a requirement holds along the cycle: change its Where first")]:
        assert not panel.set_waypoints_text(text)
        assert panel.summary.text().startswith(message), (text, panel.summary.text())
        assert doc.model.requirements == before
        assert panel.waypoints_edit.text() == "0 -0.6 1.2; 1 -1 1.6; 0 -0.6 1.2"
    doc.undo_stack.undo()
    assert doc.model.requirements == load_project(ROBOTS / "tube_arm_requirements.json").requirements
    wait_reviewed(qtbot, panel, doc.model)


def test_clicking_a_row_poses_the_arm_where_it_is_worst(qtbot, window):
    panel = window.requirements
    window.result_tabs.setCurrentWidget(panel)
    wait_reviewed(qtbot, panel, window.document.model)
    row = 5   # gravity[2] over a box: its worst sample is no pose the sliders had
    worst = panel.outcomes[row].pose
    assert worst is not None and not np.allclose(worst, window.sliders.values())
    rect = panel.table.visualItemRect(panel.table.item(row, 0))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    np.testing.assert_allclose(window.sliders.values(), worst, atol=1e-12)
    assert panel.where_label.text() == f"Where {row + 1}:" and panel.where_edit.text().startswith("box: lo ")


def _raw(name: str, kind: str) -> dict:
    for path in CATALOGS.glob("*.json"):
        for entry in json.loads(path.read_text()).get(kind, []):
            if entry["name"] == name:
                return entry
    raise KeyError(name)


def test_a_drive_names_catalog_items_its_figures_follow(qtbot, window, tmp_path):
    panel = window.requirements
    doc = window.document
    drives = panel.drives
    before = doc.model
    assert drives.table.rowCount() == 3
    gearbox, motor = "NPT025-MF-10", "SGMSH-15A"
    box = drives.combo(1, 1)
    assert box.currentText() == "(none)" and box.findText(gearbox) > 0
    box.setCurrentText(gearbox)
    box.textActivated.emit(gearbox)   # as the user's choice in the list
    d = doc.model.links[1].drive
    g = _raw(gearbox, "gearboxes")
    assert (d.gearbox, d.motor) == (gearbox, None)
    assert d.gear_ratio == g["ratio"] and d.rated_torque == g["rated_torque_Nm"]
    assert d.peak_torque == g["peak_torque_Nm"]
    assert d.stiffness == pytest.approx(g["stiffness_Nm_per_arcmin"] * 60 * 180 / math.pi, rel=1e-12)
    assert d.damping == before.links[1].drive.damping   # not a catalog figure: the drive's own stays
    assert doc.model.links[0].drive == before.links[0].drive
    # then a motor: the ratings at the joint are the smaller of the gearbox's and the motor's times the ratio
    assert drives.choose(1, gearbox, motor)
    m = _raw(motor, "motors")
    d = doc.model.links[1].drive
    N = g["ratio"]
    assert d.rated_torque == pytest.approx(min(g["rated_torque_Nm"], m["rated_torque_Nm"] * N), rel=1e-12)
    assert d.peak_torque == pytest.approx(min(g["peak_torque_Nm"], m["peak_torque_Nm"] * N), rel=1e-12)
    assert d.motor_inertia == pytest.approx((m["rotor_inertia_kgcm2"] + g["inertia_kgcm2"]) * 1e-4, rel=1e-12)
    assert drives.combo(1, 2).currentText() == motor and "N 10" in drives.table.item(1, 3).text()
    # saved and opened again: the file names the items, and its drive is the same
    path = tmp_path / "drives.json"
    save_project(doc.model, path)
    assert json.loads(path.read_text())["links"][1]["drive"]["gearbox"] == gearbox
    assert load_project(path).links[1].drive == d
    # back to none: the catalog's figures go, the drive's own damping stays; each step undoes
    assert drives.choose(1, None, None)
    d = doc.model.links[1].drive
    assert (d.gearbox, d.motor, d.gear_ratio, d.rated_torque) == (None, None, None, None)
    assert d.damping == before.links[1].drive.damping
    for _ in range(3):
        doc.undo_stack.undo()
    assert doc.model == before and drives.combo(1, 1).currentText() == "(none)"


def test_user_catalogs_beside_the_project_and_a_bad_one(qtbot, window, tmp_path):
    panel = window.requirements
    doc = window.document
    drives = panel.drives
    project = tmp_path / "arm.json"
    save_project(doc.model, project)
    mine = {"format": "manipulator-designer catalog", "version": 1,
            "gearboxes": [{"name": "MY-GEAR-50", "kind": "strain-wave", "ratio": 50, "rated_torque_Nm": 40,
                           "peak_torque_Nm": 80, "source": "test", "date": "2026"}]}
    (tmp_path / "mine.catalog.json").write_text(json.dumps(mine))
    doc.mark_saved(project)   # the project's folder now holds a user catalog: read when its path is set
    assert drives.combo(0, 1).findText("MY-GEAR-50") > 0
    assert drives.choose(0, "MY-GEAR-50", None)
    assert doc.model.links[0].drive.gear_ratio == 50
    # a broken user catalog: said with its field; the choices offered fall back, nothing of the project changes
    mine["gearboxes"][0]["ratio"] = "fifty"
    (tmp_path / "mine.catalog.json").write_text(json.dumps(mine))
    model = doc.model
    drives.reload_button.click()
    assert "ratio" in panel.summary.text() and "mine.catalog.json" in panel.summary.text()
    assert doc.model == model and drives.combo(0, 1).currentText() == "MY-GEAR-50"
    assert not drives.choose(1, "NPT025-MF-10", None)
    assert doc.model == model and "no catalogs" in panel.summary.text()


def test_a_trajectory_file_typed_as_the_cycle(qtbot, window, tmp_path):
    from designer.review import review
    panel = window.requirements
    doc = window.document
    project = tmp_path / "arm.json"
    save_project(doc.model, project)
    doc.mark_saved(project)
    t = np.linspace(0.0, 2.0, 201)
    s = 0.5 - 0.5 * np.cos(np.pi * t / 2.0)   # a rest-to-rest sweep of joint 1 over 2 s
    rows = ["t,q1,q2,q3"] + [f"{a:.6f},{1.2 * b:.9f},-0.6,1.2" for a, b in zip(t, s)]
    (tmp_path / "sweep.csv").write_text("\n".join(rows) + "\n")
    wait_reviewed(qtbot, panel, doc.model)
    assert panel.set_waypoints_text("file: sweep.csv")
    assert doc.model.requirements.cycle.trajectory == str((tmp_path / "sweep.csv").resolve())
    assert panel.waypoints_edit.text() == f"file: {(tmp_path / 'sweep.csv').resolve()}"
    wait_reviewed(qtbot, panel, doc.model)
    expected = review(doc.model, strict=False)   # the core's review of the same model, here
    assert [o.value for o in panel.outcomes] == pytest.approx([o.value for o in expected], nan_ok=True)
    row = 2   # torque load along the cycle: its worst sample lies on the sweep
    assert panel.outcomes[row].time is not None and 0.0 <= panel.outcomes[row].time <= 2.0
    # saved: the file names the trajectory relative to the project's folder
    save_project(doc.model, project)
    assert json.loads(project.read_text())["cycle"] == {"trajectory": "sweep.csv"}
    before = doc.model.requirements
    (tmp_path / "bad.csv").write_text("t,q1,q2,q3\n0,0,0,0\n1,x,0,0\n2,0,0,0\n")
    for text, message in [("file: none.csv", f"cycle.trajectory: no file {(tmp_path / 'none.csv').resolve()}"),
                          ("file: bad.csv", "cycle.trajectory: "),
                          ("file:", "cycle: after 'file:' give a CSV file")]:
        assert not panel.set_waypoints_text(text)
        assert panel.summary.text().startswith(message), (text, panel.summary.text())
        assert doc.model.requirements == before
    assert "line 3, column q1: not a number" in (panel.set_waypoints_text("file: bad.csv") or panel.summary.text())
    doc.undo_stack.undo()
    assert doc.model.requirements.cycle.waypoints[0] == (0.0, -0.6, 1.2)
    wait_reviewed(qtbot, panel, doc.model)


def test_an_unknown_metric_is_refused_in_its_cell(qtbot, window):
    panel = window.requirements
    doc = window.document
    before = doc.model.requirements
    panel.table.item(1, 0).setText("frequncy")
    assert doc.model.requirements == before and panel.table.item(1, 0).text() == "frequency"
    assert panel.summary.text().startswith("requirement 2: unknown metric 'frequncy' (known: M, coupling")
    panel.table.item(1, 0).setText("freq[")
    assert doc.model.requirements == before
    assert panel.summary.text() == "requirement 2: write a metric name, name[i] or name[i,j]"
    panel.table.item(1, 0).setText("frequency_links")   # a known one: one undoable edit
    assert doc.model.requirements.items[1].metric == "frequency_links"
    doc.undo_stack.undo()
    assert doc.model.requirements == before


def test_a_time_optimal_cycle_stays_time_optimal_when_a_file_is_typed(qtbot, window, tmp_path):
    # the cycle re-timed from a trajectory file (review/timing.py: time_optimal_path) keeps "time-optimal"
    from dataclasses import replace

    from designer.review import review
    panel = window.requirements
    doc = window.document
    req = doc.model.requirements
    doc.apply(replace(doc.model, requirements=replace(req, cycle=replace(req.cycle, time=0.0,
                                                                          timing="time-optimal"))), "time-optimal")
    project = tmp_path / "arm.json"
    save_project(doc.model, project)
    doc.mark_saved(project)
    (tmp_path / "line.csv").write_text("t,q1,q2,q3\n0,0,-0.6,1.2\n1,0.6,-0.8,1.4\n2,1.2,-1.0,1.6\n")
    assert panel.set_waypoints_text("file: line.csv")
    c = doc.model.requirements.cycle
    assert c.trajectory.endswith("line.csv") and c.timing == "time-optimal"
    assert panel.cycle_label.text() == "Cycle (time-optimal):"
    wait_reviewed(qtbot, panel, doc.model)
    expected = review(doc.model, strict=False)   # the core's review: the file's path re-timed
    assert [o.value for o in panel.outcomes] == pytest.approx([o.value for o in expected], nan_ok=True)
    assert any("re-timing of the path in" in o.note for o in panel.outcomes)
    save_project(doc.model, project)
    assert json.loads(project.read_text())["cycle"] == {"trajectory": "line.csv", "timing": "time-optimal"}


@pytest.mark.parametrize("kind", ["waypoints", "file"])
def test_the_time_optimal_switch_is_one_undoable_edit_the_review_times(qtbot, window, tmp_path, kind):
    """The cycle (waypoints, or a trajectory file) switched to time-optimal and back: one undoable edit each, the
    review's cycle time the core's (review.cycle_motion, the file's path re-timed), the project file round-trips."""
    from designer.review import cycle_motion
    panel = window.requirements
    doc = window.document
    project = tmp_path / "arm.json"
    save_project(doc.model, project)
    doc.mark_saved(project)
    if kind == "file":
        (tmp_path / "line.csv").write_text("t,q1,q2,q3\n0,0,-0.6,1.2\n5,0.6,-0.8,1.4\n10,1.2,-1.0,1.6\n")
        assert panel.set_waypoints_text("file: line.csv")
    wait_reviewed(qtbot, panel, doc.model)
    before = doc.model.requirements
    assert before.cycle.timing == "" and not panel.time_optimal.isChecked()
    own = cycle_motion(doc.model, project=project)[0].t[-1]
    panel.time_optimal.click()   # as the user does
    c = doc.model.requirements.cycle
    assert c.timing == "time-optimal" and panel.time_optimal.isChecked()
    assert panel.cycle_label.text() == "Cycle (time-optimal):"
    wait_reviewed(qtbot, panel, doc.model)
    fast = cycle_motion(doc.model, project=project)[0].t[-1]
    assert fast < own
    assert panel.cycle_info.text().startswith(f"Cycle time {fast:.4g} s (time-optimal")
    save_project(doc.model, project)
    saved = json.loads(project.read_text())["cycle"]
    assert saved["timing"] == "time-optimal" and "time" not in saved
    assert load_project(project).requirements.cycle == c
    doc.undo_stack.undo()   # one edit: back to the cycle's own timing
    assert doc.model.requirements == before and not panel.time_optimal.isChecked()
    wait_reviewed(qtbot, panel, doc.model)
    assert panel.cycle_info.text().startswith(f"Cycle time {own:.4g} s")
    panel.time_optimal.click()
    panel.time_optimal.click()   # and off again by the switch: the own timing, the cycle time shown kept
    assert doc.model.requirements.cycle.timing == ""
    if kind == "waypoints":
        assert doc.model.requirements.cycle.time == pytest.approx(panel.cycle_time.value())


def test_the_time_optimal_switch_without_a_cycle_is_refused(qtbot, window):
    from dataclasses import replace
    panel = window.requirements
    doc = window.document
    req = doc.model.requirements
    doc.apply(replace(doc.model, requirements=replace(req, items=tuple(r for r in req.items
                                                                       if r.where.kind != "cycle"))), "no cycle reqs")
    assert panel.clear_cycle()
    assert not panel.time_optimal.isEnabled()
    before = doc.model.requirements
    assert not panel.set_time_optimal(True)
    assert doc.model.requirements == before and "no cycle" in panel.summary.text()
