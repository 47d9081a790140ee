"""File > Import URDF… and Export URDF… in the window, and the notice when a version-1 file is saved."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog

from designer.gui import urdf_dialogs
from designer.kinematics import NumericArm
from designer.model import Link, Manipulator
from designer.urdf import import_urdf, read_urdf

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
UR5 = "ur_description/urdf/ur5_robot.urdf"
PANDA = "panda_description/urdf/panda.urdf"


def erd(relative: str) -> Path:
    """A URDF of the example-robot-data package (skips when it is not installed)."""
    from importlib import metadata
    try:
        dist = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))) / relative


def menu_action(window, text: str):
    file_menu = window.menuBar().actions()[0].menu()
    for action in file_menu.actions():
        if action.text().replace("&", "") == text:
            return action
    raise AssertionError(f"no File menu entry {text!r}")


class ScriptedDialog:
    """Stands in for the user of the import dialog: each exec() applies the next step."""

    def __init__(self, monkeypatch, *steps):
        self.steps = list(steps)
        self.seen: list[urdf_dialogs.ImportDialog] = []
        monkeypatch.setattr(urdf_dialogs.ImportDialog, "exec", lambda dialog: self.exec(dialog))

    def exec(self, dialog):
        self.seen.append(dialog)
        step = self.steps.pop(0)
        if step is None:
            return 0
        step(dialog)
        return 1


def open_file_returns(monkeypatch, path):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), "URDF (*.urdf *.xml)"))


def test_import_ur5_from_the_menu_opens_a_new_unsaved_project(window, boxes, monkeypatch):
    path = erd(UR5)
    open_file_returns(monkeypatch, path)
    script = ScriptedDialog(monkeypatch, lambda d: None)   # the defaults: the only end, standard DH
    menu_action(window, "Import URDF…").trigger()
    dialog = script.seen[0]
    expected_report = import_urdf(path)
    # the dialog proposes what the command line does: the root, and where the fixed ends part
    assert dialog.base.currentText() == read_urdf(path).root == "world"
    assert dialog.tip.currentText() == expected_report.chain.tip == "wrist_3_link"
    expected = expected_report.model
    doc = window.document
    assert doc.model == expected and doc.path is None and doc.dirty
    assert "untitled" in window.windowTitle() and "ur5_robot.urdf" in window.windowTitle()
    # the report is shown: the chain and what was lumped
    (report,) = boxes.of("information")
    assert "6 joints from 'world' to 'wrist_3_link'" in report and "lumped into" in report
    assert not boxes.of("critical")


def test_panda_dialog_lists_the_ends_and_the_user_picks_link8(window, boxes, monkeypatch):
    path = erd(PANDA)
    open_file_returns(monkeypatch, path)

    def link8_modified(d):
        d.tip.setCurrentText("panda_link8")
        d.convention.setCurrentText("modified")
        d.drop_rest.setChecked(True)
    script = ScriptedDialog(monkeypatch, link8_modified)
    report = urdf_dialogs.import_urdf_file(window)
    dialog = script.seen[0]
    # the ends of the tree (the fingers) are listed, the hand where they part is proposed
    assert "panda_leftfinger" in dialog.ends.text() and "panda_rightfinger" in dialog.ends.text()
    assert dialog.tip.itemText(0) == "panda_hand"
    tips = [dialog.tip.itemText(i) for i in range(dialog.tip.count())]
    assert "panda_link8" in tips
    model = window.document.model
    assert report is not None and model.n == 7 and model.convention.value == "modified"
    assert model == import_urdf(path, tip="panda_link8", convention="modified", drop_rest=True).model


def test_panda_to_the_hand_reports_locked_fingers(window, boxes, monkeypatch):
    open_file_returns(monkeypatch, erd(PANDA))
    ScriptedDialog(monkeypatch, lambda d: None)
    urdf_dialogs.import_urdf_file(window)
    (report,) = boxes.of("information")
    assert "locked at zero" in report and "panda_finger_joint1" in report and "panda_finger_joint2" in report
    assert window.document.model.n == 7


def test_refusal_names_the_joint_and_the_dialog_comes_back(window, boxes, monkeypatch, tmp_path):
    before = window.document.model
    text = erd(PANDA).read_text()
    # the second finger mimics the first: lumping it would need the first's motion
    assert "<mimic" in text
    path = tmp_path / "panda.urdf"
    path.write_text(text)
    open_file_returns(monkeypatch, path)

    def finger(d):
        d.tip.setCurrentText("panda_rightfinger")
    script = ScriptedDialog(monkeypatch, finger, None)   # refused, then the user cancels
    assert urdf_dialogs.import_urdf_file(window) is None
    assert len(script.seen) == 2
    (error,) = boxes.of("critical")
    assert "panda_finger_joint2" in error and "mimic" in error and "Traceback" not in error
    assert window.document.model is before


@pytest.mark.parametrize("content, words", [
    ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY x "y">]>\n<robot name="r"/>', "DOCTYPE"),
    ('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:macro name="m"/></robot>', "xacro"),
    ("<robot name='r'><link", "XML"),
])
def test_bad_files_are_refused_in_a_message_box(window, boxes, monkeypatch, tmp_path, content, words):
    before = window.document.model
    path = tmp_path / "bad.urdf"
    path.write_text(content)
    open_file_returns(monkeypatch, path)
    ScriptedDialog(monkeypatch)   # no step: the dialog must not open
    assert urdf_dialogs.import_urdf_file(window) is None
    (error,) = boxes.of("critical")
    assert "bad.urdf" in error and words.lower() in error.lower()
    assert window.document.model is before


def test_export_writes_a_urdf_pinocchio_reads(window, boxes, monkeypatch, tmp_path):
    pin = pytest.importorskip("pinocchio")
    assert window.open_file(ROBOTS / "puma560.json")
    target = tmp_path / "out"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "URDF"))
    menu_action(window, "Export URDF…").trigger()
    written = tmp_path / "out.urdf"
    assert written.is_file() and not boxes.of("critical")
    model = pin.buildModelFromUrdf(str(written))
    assert model.nq == 6
    # the mass matrix at a random state agrees with ours on the project
    arm = NumericArm.from_model(window.document.model)
    q = np.random.default_rng(3).uniform(-2, 2, 6)
    from designer.numeric.recursive import mass_matrix
    data = model.createData()
    M_pin = pin.crba(model, data, q)
    M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
    assert np.allclose(M_pin, mass_matrix(arm, q), rtol=1e-9, atol=1e-12)


def test_export_names_a_symbol_without_a_value(window, boxes, monkeypatch, tmp_path):
    model = Manipulator(links=(Link(a="L1", mass="m1", com=("-L1/2", 0, 0)),), parameters=(("L1", 0.5),))
    window.document.reset(model)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: pytest.fail("no file dialog after an error"))
    assert not urdf_dialogs.export_urdf_file(window)
    (error,) = boxes.of("critical")
    assert "m1" in error and "without a value" in error
    assert not list(tmp_path.glob("*.urdf"))


def test_saving_a_version_1_file_says_once_it_becomes_version_2(window, boxes, tmp_path):
    path = tmp_path / "pendulum.json"
    shutil.copy(ROBOTS / "double_pendulum.json", path)
    assert json.loads(path.read_text())["version"] == 1
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    assert window.open_file(path)
    assert window.save()
    notices = [m for m in messages if "version 2" in m]
    assert len(notices) == 1 and "version-1" in notices[0] and "pendulum.json" in notices[0]
    assert json.loads(path.read_text())["version"] == 2
    messages.clear()
    assert window.save()
    assert not [m for m in messages if "version 2" in m] and any("Saved" in m for m in messages)


def test_save_as_from_a_version_1_file_tells_too_and_a_version_2_file_does_not(window, boxes, tmp_path):
    path = tmp_path / "pendulum.json"
    shutil.copy(ROBOTS / "double_pendulum.json", path)
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    assert window.open_file(path)
    assert window.save_as(tmp_path / "copy.json")
    assert any("version 2" in m and "copy.json" in m for m in messages)
    assert json.loads(path.read_text())["version"] == 1     # the old file is left alone
    messages.clear()
    assert window.open_file(tmp_path / "copy.json") and window.save()
    assert not [m for m in messages if "version 2" in m]


def test_explore_rated_values_and_sizing_drive_come_from_the_project(qtbot):
    from dataclasses import replace

    from designer.gui.explore_panel import ExplorePanel
    from designer.model import Drive
    from designer.project import load_project
    model = load_project(ROBOTS / "puma560.json")
    drives = [Drive(rated_torque=50 + i, rated_speed=2.0, gear_ratio=100 - i) for i in range(6)]
    model = replace(model, links=tuple(replace(l, drive=d) for l, d in zip(model.links, drives)))
    panel = ExplorePanel()
    qtbot.addWidget(panel)
    panel.set_model(model)
    r = panel.ratings()
    np.testing.assert_array_equal(r.torque, 50 + np.arange(6))
    np.testing.assert_array_equal(r.speed, np.full(6, 2.0))
    assert r.acceleration is None
    assert "from the project" in panel.ratings_edits["torque"].placeholderText()
    assert "51" in panel.ratings_edits["torque"].placeholderText()
    assert "from the project" in panel.sizing_view.gear.placeholderText()
    panel.ratings_edits["torque"].setText("10")      # typed values override
    np.testing.assert_array_equal(panel.ratings().torque, np.full(6, 10.0))
    panel.set_model(load_project(ROBOTS / "puma560.json"))   # no drive data: asked as before
    panel.ratings_edits["torque"].clear()
    assert panel.ratings().torque is None
    assert "from the project" not in panel.ratings_edits["torque"].placeholderText()


def test_3d_view_places_the_arm_by_the_base_pose_and_draws_the_tool_frame(qtbot):
    from dataclasses import replace

    from designer.gui.view3d import ArmView
    from designer.model.extras import Pose
    from designer.project import load_project
    model = load_project(ROBOTS / "puma560.json")
    model = replace(model, base=Pose((0.2, -0.1, 0.5), (0.1, 0.0, 1.2)), tool=Pose((0.0, 0.02, 0.12), (0.3, 0, 0)))
    view = ArmView()
    qtbot.addWidget(view)
    view.resize(480, 360)
    view.show()
    qtbot.waitExposed(view)
    view.set_model(model)
    q = np.array([0.3, -0.6, 0.4, 0.2, 0.5, 0.1])
    view.set_joint_values(q)
    arm = NumericArm.from_model(model)
    # the joints sit on the axes in the world: base * (frame-0 axes), computed apart from the view
    T0 = arm.frames(q)
    origins, axes = arm.joint_axes(q, T0)
    R, t = arm.base[:3, :3], arm.base[:3, 3]
    for i, M in enumerate(view.parts["joints"]):
        np.testing.assert_allclose(M[:3, 3], R @ origins[i] + t, atol=1e-12)
        np.testing.assert_allclose(M[:3, 2] / np.linalg.norm(M[:3, 2]), R @ axes[i], atol=1e-12)
    np.testing.assert_allclose(view.parts["tool"][0], arm.tool_pose(q), atol=1e-12)
    assert np.linalg.norm(arm.tool_pose(q)[:3, 3] - (arm.base @ T0[-1])[:3, 3]) > 0.1
    # triads: the world's at the origin, then frames 0..n; a line from the world to frame 0; the tool
    # frame is the view's own, larger triad (its Show option)
    pos = np.asarray(view._items["triads"].pos)
    assert len(pos) == (1 + 7) * 6 + 2
    np.testing.assert_allclose(pos[0], 0, atol=1e-15)
    np.testing.assert_allclose(pos[-1], t, atol=1e-12)
    tool = np.asarray(view._items["tool"].pos)
    assert len(tool) == 6
    np.testing.assert_allclose(tool[0], arm.tool_pose(q)[:3, 3], atol=1e-12)
    # workspace points (frame 0 from the explore tools) are shown in the world too
    view.set_workspace_points(T0[-1, :3, 3][None], [1.0])
    np.testing.assert_allclose(np.asarray(view.workspace.pos)[0], R @ T0[-1, :3, 3] + t, atol=1e-12)


def test_import_of_a_mimic_loop_file_opens_the_closed_chain(window, boxes, monkeypatch, tmp_path):
    """The exported palletizer through File > Import URDF… with the dialog's proposals: the closed chain
    opens (passive joints, the loop), its report names the loop."""
    from designer.project import load_project
    from designer.urdf import urdf_text
    path = tmp_path / "palletizer.urdf"
    original = load_project(ROBOTS / "palletizer_parallelogram.json")
    path.write_text(urdf_text(original))
    open_file_returns(monkeypatch, path)
    script = ScriptedDialog(monkeypatch, lambda d: None)
    menu_action(window, "Import URDF…").trigger()
    assert script.seen[0].tip.currentText() == "tool"
    model = window.document.model
    assert len(model.loops) == 1 and sum(not link.actuated for link in model.links) == 2
    assert window.closed.mechanism is not None and not window.closed.problem   # posed by the closure
    (report,) = boxes.of("information")
    assert "revolute cut joint" in report and not boxes.of("critical")


def test_a_xacro_include_outside_the_folder_asks_for_it(window, boxes, monkeypatch, tmp_path):
    """The xacro file includes ../common/parts.xacro: the import names that folder, reads it once allowed."""
    pytest.importorskip("xacro")
    from PySide6.QtWidgets import QMessageBox

    from designer.urdf.pipeline import FileOptions
    from tests.urdf.test_allow_root import write
    path = write(tmp_path)
    asked: list[str] = []

    def question(parent, title, text, *args, **kwargs):
        asked.append(text)
        return QMessageBox.StandardButton.Yes
    monkeypatch.setattr(QMessageBox, "question", question)
    open_file_returns(monkeypatch, path)
    ScriptedDialog(monkeypatch, lambda d: None)
    report = urdf_dialogs.import_urdf_file(window, file_options=FileOptions())
    (text,) = asked
    assert f"Allow reading files below {tmp_path / 'common'}" in text
    assert report is not None and report.chain.joints == ["j1"] and not boxes.of("critical")


def test_the_literal_box_takes_the_numbers_as_written(window, boxes, monkeypatch):
    """The xArm7 writes 1.5708 for pi/2: the dialog says so by its box; unchecked, the arm meant (the
    report line says how far the file as written lies), checked, the file as written."""
    path = erd("xarm_description/urdf/xarm7.urdf")
    open_file_returns(monkeypatch, path)
    script = ScriptedDialog(monkeypatch, lambda d: None)
    urdf_dialogs.import_urdf_file(window)
    box = script.seen[0].literal
    assert not box.isChecked() and "this file writes 6 so" in box.text()
    assert window.document.model == import_urdf(path).model
    assert "--literal" in boxes.of("information")[-1]
    script = ScriptedDialog(monkeypatch, lambda d: d.literal.setChecked(True))
    window.document.undo_stack.setClean()   # no question about the unsaved import
    urdf_dialogs.import_urdf_file(window)
    assert window.document.model == import_urdf(path, literal=True).model != import_urdf(path).model
    assert "--literal" not in boxes.of("information")[-1]
