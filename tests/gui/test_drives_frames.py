"""Editors for the drive data and the base and tool frames (issue 20, item 3): every edit one undoable command,
bad entries red with their message while the model keeps its value (and listed under Problems); Sizing uses
the project's gear ratios and rotor inertias, checked against Pinocchio's inverse dynamics plus N^2 Jm qdd;
Export C offers the drive terms once the project has them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from PySide6.QtCore import Qt

from designer.gui.drives_frames import DRIVE_COLUMNS, DriveTableModel
from designer.gui.export_options import CodeOptionsDialog
from designer.kinematics import NumericArm
from designer.model import Drive, Pose
from designer.model.extras import DRIVE_FIELDS
from designer.project import load_project, save_project
from tests.support.windows import open_window

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
GEAR = [62.6, 107.8, 53.7, 76.0, 71.9, 76.7]    # the PUMA 560's gear ratios (Corke)

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "puma560.json")


def col(name: str) -> int:
    return list(DRIVE_COLUMNS).index(name)   # the table's order (the gearbox first)


def test_every_drive_field_has_a_column_with_label_and_units(window):
    table = window.drives.drive_model
    assert table.columnCount() == len(DRIVE_FIELDS)
    for name in DRIVE_FIELDS:
        assert name in DRIVE_COLUMNS                      # a new field needs its one line in the table
        header = table.headerData(col(name), Qt.Orientation.Horizontal)
        assert header.replace("\n", " ").startswith(DRIVE_COLUMNS[name][0])   # the label, on narrow lines
        assert max(len(line) for line in header.split("\n")) <= 13
    assert table.fields[:3] == ["gear_ratio", "stiffness", "damping"]   # an elastic arm's first, no scrolling
    assert "N·m" in table.headerData(col("rated_torque"), Qt.Orientation.Horizontal)
    assert table.headerData(2, Qt.Orientation.Vertical) == "joint 3"


def test_drive_edits_are_commands_and_bad_entries_stay_red(window, tmp_path):
    doc, table = window.document, window.drives.drive_model
    assert doc.model.links[1].drive is None
    table.set_text(1, col("gear_ratio"), "107.8")
    table.set_text(1, col("motor_inertia"), "2e-4")
    assert doc.model.links[1].drive == Drive(gear_ratio=107.8, motor_inertia=2e-4)
    assert doc.undo_stack.undoText() == "Set motor inertia of joint 2 to 2e-4"
    # bad entries: the model keeps its value, the cell keeps the text in red with the message
    before = doc.model
    for text, why in (("-3", "above zero"), ("k1", "number"), ("1 +", "")):
        table.set_text(1, col("gear_ratio"), text)
        assert doc.model == before
        assert table.data(table.index(1, col("gear_ratio"))) == text
        message = window.statusBar().currentMessage()
        assert message.startswith("joint 2, gear ratio:") and why in message
    problems = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert sum("joint 2, gear ratio" in t for t in problems) == 1
    assert any("joint 2, gear ratio" in t and "(the model keeps 107.8)" in t for t in problems)
    table.set_text(2, col("peak_torque"), "-1")
    problems = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert any("joint 3, peak torque" in t and "(the model keeps no value)" in t for t in problems)
    table.set_text(2, col("peak_torque"), "")
    chosen: list[int] = []
    window.problems.linkChosen.connect(chosen.append)
    window.problems.itemClicked.emit(next(window.problems.item(k) for k in range(window.problems.count())
                                          if "joint 2, gear ratio" in window.problems.item(k).text()))
    assert chosen == [1]                                   # joint 2 moves link 2
    table.set_text(1, col("gear_ratio"), "")               # empty: not known
    assert doc.model.links[1].drive == Drive(motor_inertia=2e-4)
    table.set_text(1, col("viscous"), "0")                 # zero friction is a value
    assert doc.model.links[1].drive.viscous == 0.0
    # undo walks back every edit, to no drive at all
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert doc.model.links[1].drive is None
    doc.undo_stack.redo()
    assert doc.model.links[1].drive == Drive(gear_ratio=107.8)
    # and it is in the file
    save_project(doc.model, tmp_path / "p.json")
    assert load_project(tmp_path / "p.json").links[1].drive == Drive(gear_ratio=107.8)


def test_base_and_tool_frames_are_edited_exactly_with_undo(window):
    doc, frames = window.document, window.drives.frames_model
    assert doc.model.base is None and frames.data(frames.index(0, 2)) == "0"
    frames.set_text(0, 2, "0.6718")
    frames.set_text(1, 5, "pi/2")
    assert doc.model.base == Pose((0, 0, 0.6718), (0, 0, 0))
    assert doc.model.tool.rpy[2] == sp.pi / 2                 # exact, as typed
    assert frames.data(frames.index(1, 5)) == "pi/2"
    # the 3D view's arm moves with the base: the tool point rises by the base height
    arm = NumericArm.from_model(doc.model)
    z0 = NumericArm.from_model(load_project(ROBOTS / "puma560.json")).tool_pose(np.zeros(6))[2, 3]
    assert arm.tool_pose(np.zeros(6))[2, 3] == pytest.approx(z0 + 0.6718)
    before = doc.model
    frames.set_text(0, 3, "pi/")
    assert doc.model == before and window.statusBar().currentMessage().startswith("base frame, roll:")
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.model.base is None and doc.model.tool is None


def test_export_c_offers_the_drive_terms_once_the_project_has_them(window):
    assert not CodeOptionsDialog(window.document.model, "C").drives.isEnabled()
    window.drives.drive_model.set_text(0, col("viscous"), "1.5")
    assert CodeOptionsDialog(window.document.model, "C").drives.isEnabled()


def test_sizing_uses_the_projects_gears_and_rotors(qtbot, window):
    from tests.gui.test_explore_panel import pin_rnea
    from tests.support.explore_pin import PinArm
    table = window.drives.drive_model
    for i, n in enumerate(GEAR):
        table.set_text(i, col("gear_ratio"), str(n))
        table.set_text(i, col("motor_inertia"), "2e-4")
    view = window.explore.sizing_view
    assert view.gear.text() == "" and "from the project" in view.gear.placeholderText()
    assert "107.8" in view.gear.placeholderText()
    view.target.setText("60, 45, -30, 20, -40, 60")
    view.duration.setValue(0.8)
    view.steps.setValue(41)
    with qtbot.waitSignal(window.explore.jobEnded, timeout=120_000):
        assert view.run() is not None
    s = view.result.sizing
    ref = PinArm(NumericArm.from_model(window.document.model))
    for k in (5, 20, 33):
        tau = pin_rnea(ref, s.traj.q[k], s.traj.qd[k], s.traj.qdd[k]) + np.array(GEAR) ** 2 * 2e-4 * s.traj.qdd[k]
        np.testing.assert_allclose(s.torque[k], tau, rtol=1e-9, atol=1e-9)
    # still editable there for a what-if: a typed value wins over the project's
    view.gear.setText("1")
    with qtbot.waitSignal(window.explore.jobEnded, timeout=120_000):
        assert view.run() is not None
    k = 20
    tau = pin_rnea(ref, s.traj.q[k], s.traj.qd[k], s.traj.qdd[k]) + 2e-4 * s.traj.qdd[k]
    np.testing.assert_allclose(view.result.sizing.torque[k], tau, rtol=1e-9, atol=1e-9)


def test_a_bad_drive_cell_names_its_joint_in_the_tables_words(qtbot, window):
    model = DriveTableModel(window.document)
    model.set_text(4, col("rated_speed"), "0")
    err = model.error_at(4, col("rated_speed"))
    assert err is not None and err.message == "joint 5, rated speed: must be above zero, not 0"
