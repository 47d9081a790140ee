"""File > Import MJCF… and Export MJCF… in the window: the URDF import's dialog (bodies for links,
no massless option), its report, refusals in a message box keeping the project on screen."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog

from designer.gui import mjcf_dialogs
from designer.mjcf import import_mjcf

from tests.gui.test_urdf_dialogs import ScriptedDialog, menu_action, open_file_returns

mujoco = pytest.importorskip("mujoco")
FILES = Path(__file__).resolve().parents[1] / "mjcf" / "files"
ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def test_import_panda_from_the_menu(window, boxes, monkeypatch):
    path = FILES / "panda.xml"
    open_file_returns(monkeypatch, path)

    def modified(d):
        d.convention.setCurrentText("modified")
    script = ScriptedDialog(monkeypatch, modified)
    menu_action(window, "Import MJCF…").trigger()
    dialog = script.seen[0]
    assert "MJCF" in dialog.windowTitle() and not dialog.massless.isVisibleTo(dialog)
    # the fingers are the ends; the hand where they part is proposed, as for URDF
    assert dialog.tip.currentText() == "hand" and "left_finger" in dialog.ends.text()
    doc = window.document
    assert doc.model == import_mjcf(path, tip="hand", convention="modified").model and doc.dirty
    (report,) = boxes.of("information")
    assert "locked at zero" in report and "MuJoCo's model of the file" in report and not boxes.of("critical")


def test_a_hostile_file_is_refused_and_the_project_kept(window, boxes, monkeypatch, tmp_path):
    before = window.document.model
    path = tmp_path / "bad.xml"
    path.write_text('<!DOCTYPE m [<!ENTITY a "x">]><mujoco/>')
    open_file_returns(monkeypatch, path)
    ScriptedDialog(monkeypatch)   # the dialog must not open
    assert mjcf_dialogs.import_mjcf_file(window) is None
    (error,) = boxes.of("critical")
    assert "bad.xml" in error and "document type declaration" in error
    assert window.document.model is before


def test_export_writes_a_file_mujoco_reads(window, boxes, monkeypatch, tmp_path):
    assert window.open_file(ROBOTS / "stanford_modified.json")
    target = tmp_path / "out"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "MJCF"))
    menu_action(window, "Export MJCF…").trigger()
    written = tmp_path / "out.xml"
    assert written.is_file() and not boxes.of("critical")
    mj = mujoco.MjModel.from_xml_path(str(written))
    from designer.kinematics import NumericArm
    from designer.numeric.recursive import mass_matrix
    arm = NumericArm.from_model(window.document.model)
    data = mujoco.MjData(mj)
    q = np.random.default_rng(2).uniform(-1, 1, arm.n)
    data.qpos[:] = q
    mujoco.mj_forward(mj, data)
    M = np.zeros((arm.n, arm.n))
    mujoco.mj_fullM(mj, data, M)
    assert np.allclose(M - np.diag(mj.dof_armature), mass_matrix(arm, q), rtol=1e-9, atol=1e-12)


def test_import_of_an_mjcf_with_connect_loops_opens_the_closed_chain(window, boxes, monkeypatch, tmp_path):
    from designer.mjcf.exporter import mjcf_text
    from designer.project import load_project
    path = tmp_path / "palletizer.xml"
    path.write_text(mjcf_text(load_project(ROBOTS / "palletizer_parallelogram.json")))
    open_file_returns(monkeypatch, path)
    script = ScriptedDialog(monkeypatch, lambda d: None)
    menu_action(window, "Import MJCF…").trigger()
    dialog = script.seen[0]
    # the plain rule would propose the column, where the branches part (a one-joint arm)
    assert dialog.tip.currentText() == "tool" and "closed chain" in dialog.ends.text()
    model = window.document.model
    assert len(model.loops) == 1 and sum(not link.actuated for link in model.links) == 2
    assert window.closed.mechanism is not None
    (report,) = boxes.of("information")
    assert "the file's connects" in report and not boxes.of("critical")


@pytest.mark.parametrize("allow", [True, False], ids=["allowed", "refused"])
def test_an_include_outside_the_folder_asks_for_it(window, boxes, monkeypatch, tmp_path, allow):
    """MetaWorld's models include ../scene/...: the import names the folder and reads it once allowed."""
    from PySide6.QtWidgets import QMessageBox
    before = window.document.model
    scene = tmp_path / "scene"
    scene.mkdir()
    (scene / "basic.xml").write_text('<mujoco><option timestep="0.001"/></mujoco>')
    path = tmp_path / "models" / "arm.xml"
    path.parent.mkdir()
    path.write_text('<mujoco><include file="../scene/basic.xml"/><worldbody><body name="l1">'
                    '<joint name="j1" axis="0 0 1"/><inertial mass="1" pos="0.1 0 0" diaginertia="1 1 1"/>'
                    '</body></worldbody></mujoco>')
    asked: list[str] = []

    def question(parent, title, text, *args, **kwargs):
        asked.append(text)
        return QMessageBox.StandardButton.Yes if allow else QMessageBox.StandardButton.No
    monkeypatch.setattr(QMessageBox, "question", question)
    open_file_returns(monkeypatch, path)
    script = ScriptedDialog(monkeypatch, lambda d: None)
    menu_action(window, "Import MJCF…").trigger()
    (text,) = asked
    assert f"Allow reading files below {scene}" in text and "outside the model's folder" in text
    if allow:
        assert len(script.seen) == 1 and len(window.document.model.links) == 1
        assert boxes.of("information") and not boxes.of("critical")
    else:   # refused as without the question, nothing read, the project on screen kept
        assert not script.seen and window.document.model is before
        (error,) = boxes.of("critical")
        assert "--allow-root" in error


def test_the_literal_box_takes_the_numbers_as_written(window, boxes, monkeypatch):
    """robosuite's Kinova3 writes its quarter turns as 0.707105 0.707108 0 0: unchecked the arm meant,
    checked the file as written (MuJoCo's model of it)."""
    path = FILES / "vendor" / "kinova3_robosuite.xml"
    open_file_returns(monkeypatch, path)
    script = ScriptedDialog(monkeypatch, lambda d: None, lambda d: d.literal.setChecked(True))
    mjcf_dialogs.import_mjcf_file(window)
    assert "this file writes 10 so" in script.seen[0].literal.text()
    assert window.document.model == import_mjcf(path).model
    window.document.undo_stack.setClean()   # no question about the unsaved import
    mjcf_dialogs.import_mjcf_file(window)
    assert window.document.model == import_mjcf(path, literal=True).model != import_mjcf(path).model
    first, second = boxes.of("information")[-2:]
    assert "--literal" in first and "--literal" not in second


def test_the_report_says_how_long_reading_and_importing_took(window, boxes, monkeypatch):
    """The window's import said "in 0.00 s" (only the command line's import timed itself): it is the read and the
    import, not the time the dialog stood open."""
    path = FILES / "panda.xml"
    open_file_returns(monkeypatch, path)
    ScriptedDialog(monkeypatch, lambda d: None)   # the dialog accepted as it opens
    report = mjcf_dialogs.import_mjcf_file(window)
    assert report is not None and report.seconds > 0
    seconds = float(boxes.of("information")[-1].splitlines()[0].rsplit(" in ", 1)[1].split()[0])
    assert seconds == pytest.approx(report.seconds, abs=0.006)
    window.document.undo_stack.setClean()
