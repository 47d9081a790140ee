"""Visual meshes in the 3D view: drawn in place of the sticks (other pixels), switched off by Show >
Meshes (the stick picture again), a bad mesh listed in Problems and drawn as a stick; the import
dialog's xacro and density fields (pytest-qt under Xvfb, QT_QPA_PLATFORM=xcb)."""

from __future__ import annotations

import numpy as np
import pytest

from designer.model import Link, Manipulator
from designer.model.visual import Visual
from tests.gui import test_view3d

pytest.importorskip("pytestqt")
trimesh = pytest.importorskip("trimesh")

arm_view = test_view3d.arm_view   # the same view fixture and pixel grab as the stick figure's tests
_render = test_view3d._render


def _arm(visuals=((), ())) -> Manipulator:
    return Manipulator(links=(Link(a=0.4, mass=1, visuals=visuals[0]), Link(a=0.3, mass=1, visuals=visuals[1])))


def test_meshes_replace_the_sticks_and_switch_off(qtbot, arm_view, tmp_path):
    # a big slab on each link: its pixels cannot be the sticks'
    trimesh.creation.box((0.3, 0.15, 0.1)).export(tmp_path / "slab.stl")
    slab = Visual(str(tmp_path / "slab.stl"), xyz=(-0.15, 0, 0), color=(0.1, 0.6, 0.9, 1))
    arm_view.set_model(_arm())
    arm_view.set_joint_values([0.4, 0.6])
    sticks = _render(arm_view)
    with qtbot.waitSignal(arm_view.meshes.loaded, timeout=120_000):
        arm_view.set_model(_arm(((slab,), (slab,))))
    assert arm_view.meshes.drawn_frames() == {1, 2} and arm_view.meshes.problems == []
    with_meshes = _render(arm_view)
    changed = np.abs(with_meshes - sticks).max(axis=2) > 40
    # the view frames the arm's whole reach sphere (0.7 m here), so the slabs cover about 1.5 % of it
    assert changed.mean() > 0.01
    # the slab's colour (B > R, bluish) is on screen
    blue = (with_meshes[..., 0] > 150) & (with_meshes[..., 2] < 80)
    assert blue.sum() > 200
    arm_view.set_option("show_meshes", False)
    assert arm_view.meshes.drawn_frames() == set()
    assert np.abs(_render(arm_view) - sticks).max() <= 2
    arm_view.set_option("show_meshes", True)
    assert np.abs(_render(arm_view) - with_meshes).max() <= 2


def test_a_bad_mesh_is_a_problem_and_a_stick(qtbot, arm_view, tmp_path):
    (tmp_path / "junk.stl").write_bytes(b"\x00" * 50)
    good = tmp_path / "ok.stl"
    trimesh.creation.box((0.1, 0.1, 0.1)).export(good)
    with qtbot.waitSignal(arm_view.meshes.loaded, timeout=120_000):
        arm_view.set_model(_arm(((Visual(str(good)),), (Visual(str(tmp_path / "junk.stl")), Visual("/nowhere/x.dae")))))
    problems = [str(p) for p in arm_view.meshes.problems]
    assert len(problems) == 2 and problems[0].startswith("links[2].visual: ") and "junk.stl" in problems[0]
    assert "no such file" in problems[1]
    assert arm_view.meshes.drawn_frames() == {1}
    stick = arm_view._items["solids"]
    assert stick is not None   # link 2 keeps its sticks: the view is still drawn
    assert _render(arm_view).std() > 0


def test_problems_panel_lists_the_mesh_warning(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    window = MainWindow()
    qtbot.addWidget(window)
    (tmp_path / "junk.stl").write_bytes(b"garbage")
    with qtbot.waitSignal(window.arm_view.meshes.loaded, timeout=120_000):
        window.document.reset(_arm(((Visual(str(tmp_path / "junk.stl")),), ())), None, origin="test", dirty=False)
    texts = [window.problems.item(k).text() for k in range(window.problems.count())]
    assert any("junk.stl" in t and t.startswith("warning") for t in texts)


def test_import_dialog_asks_for_xacro_folders_and_density(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QDialog, QMessageBox
    from designer.gui import urdf_dialogs
    from designer.gui.main_window import MainWindow
    from tests.urdf.test_meshes import _arm as box_arm
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "arm.urdf").write_text(box_arm(tmp_path / "pkg", False, 1.0))
    (tmp_path / "pkg" / "arm.urdf.xacro").write_text(
        '<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:arg name="part" default="none"/>'
        '<xacro:include filename="$(arg part)"/></robot>')
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: QMessageBox.StandardButton.Ok)
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text, *a: shown.append(text))
    window = MainWindow()
    qtbot.addWidget(window)
    window.maybe_save = lambda: True
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)

    def answer(dialog):
        dialog.args.setText("part:=arm.urdf")
        return QDialog.DialogCode.Accepted
    monkeypatch.setattr(QDialog, "exec", lambda self: answer(self) if hasattr(self, "args") else _import(self))

    def _import(dialog):
        dialog.density.setText("2700")
        return QDialog.DialogCode.Accepted
    report = urdf_dialogs.import_urdf_file(window, tmp_path / "pkg" / "arm.urdf.xacro")
    assert shown == [] and report is not None
    assert any("2700 kg/m^3" in n for n in report.notes)
    assert float(window.document.model.links[0].mass) == pytest.approx(2700 * 0.1 * 0.1 * 0.4, rel=1e-6)


def test_design_report_figure_shows_the_meshes(qtbot, tmp_path):
    """The report's 3D figure waits for meshes still loading and holds them (the slab's colour)."""
    from PySide6.QtGui import QImage
    from designer.gui.design_export import grab_figures
    from designer.gui.main_window import MainWindow
    trimesh.creation.box((0.3, 0.15, 0.1)).export(tmp_path / "slab.stl")
    slab = Visual(str(tmp_path / "slab.stl"), xyz=(-0.15, 0, 0), color=(0.1, 0.6, 0.9, 1))
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    window.document.reset(_arm(((slab,), (slab,))), None, origin="test", dirty=False)
    figures, _notes = grab_figures(window)   # right away: the meshes are still loading
    assert not window.arm_view.meshes.pending
    figure = figures[0]
    assert "meshes" in figure.title
    image = QImage()
    assert image.loadFromData(figure.png, "PNG")
    pixels = np.array([[image.pixelColor(x, y).getRgb()[:3] for x in range(0, image.width(), 4)]
                       for y in range(0, image.height(), 4)])
    bluish = (pixels[..., 2] > 150) & (pixels[..., 0] < 80)
    assert bluish.sum() > 50


def test_show_meshes_is_in_the_show_menu_and_remembered(qtbot, arm_view):
    from designer.gui.view3d import ArmView
    action = arm_view.toolbar.option_actions["show_meshes"]
    assert action.isChecked() and "Meshes" in action.text()
    action.setChecked(False)
    assert not arm_view.show_meshes
    fresh = ArmView()
    qtbot.addWidget(fresh)
    assert not fresh.show_meshes and not fresh.meshes.visible
