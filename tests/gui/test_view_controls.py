"""The 3D view's camera (fit, reset, presets), its drawing options remembered per user, and a map
click that poses the arm."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QVector3D

from tests.support.arms import six_link
from designer.gui import arm_scene
from designer.gui.view3d_controls import OPTIONS, PRESETS, camera_axes, fit_distance
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def arm_view(make_arm_view):
    return make_arm_view(520, 400)


def _ndc(view, points) -> np.ndarray:
    """Normalised device coordinates (-1..1 is on screen) of world points, as pyqtgraph projects them."""
    vp = view.view.getViewport()
    P = view.view.projectionMatrix(vp, vp) * view.view.viewMatrix()
    out = []
    for p in points:
        v = P.map(QVector3D(*map(float, p)))
        out.append((v.x(), v.y()))
    return np.array(out)


def _camera(view) -> dict:
    camera = view.camera()
    return {**camera, "center": tuple(camera["center"])}


def _reach_sphere(arm) -> tuple[np.ndarray, float]:
    """Centre and radius of a sphere no pose can leave, computed here from the DH numbers: the base
    origin and the sum of |a|, |d| and prismatic strokes, plus the tool offset."""
    strokes = [max(abs(lo), abs(hi)) for (lo, hi), rev in zip(arm.limits, arm.revolute) if not rev]
    radius = np.abs(arm.dh[:, 0]).sum() + np.abs(arm.dh[:, 2]).sum() + sum(strokes)
    return arm.base[:3, 3], max(radius, 0.1) + np.linalg.norm(arm.tool[:3, 3])


@pytest.mark.parametrize("robot", ["horn_three_dof", "scara", "puma560", "stanford_modified"])
def test_fit_puts_every_pose_on_screen_and_fills_it(qtbot, arm_view, robot):
    arm_view.set_model(load_project(ROBOTS / f"{robot}.json"))
    arm = arm_view.arm
    centre, radius = _reach_sphere(arm)
    rng = np.random.default_rng(7)
    lo = np.where(np.isnan(arm.limits[:, 0]), -np.pi, arm.limits[:, 0])
    hi = np.where(np.isnan(arm.limits[:, 1]), np.pi, arm.limits[:, 1])
    for name in PRESETS:
        arm_view.set_view(name)
        camera = _camera(arm_view)
        # the sphere's extreme points along the camera's right and up axes fill the view
        right, up, _back = camera_axes(camera["elevation"], camera["azimuth"])
        rim = centre + radius * np.array([right, -right, up, -up])
        assert np.abs(_ndc(arm_view, rim)).max() >= 0.6, name      # the reach is not tiny
        # every pose stays on screen without a new fit (q2 at 41 deg pushed the PUMA out before)
        for q in rng.uniform(lo, hi, size=(12, arm.n)):
            arm_view.set_joint_values(q)
            ndc = _ndc(arm_view, arm_view.scene_points())
            assert np.all(np.abs(ndc) <= 1.0), (name, q, np.abs(ndc).max())
        assert _camera(arm_view) == camera   # moving joints never re-fits
    # the view is centred on the reach sphere
    arm_view.reset_camera()
    ndc = _ndc(arm_view, [centre])
    assert np.abs(ndc).max() < 0.2


def test_an_edit_refits_only_when_the_reach_changes_much(qtbot, arm_view):
    model = load_project(ROBOTS / "puma560.json")
    arm_view.set_model(model)
    arm_view.view.setCameraPosition(elevation=10.0, azimuth=20.0, distance=3.0)
    before = _camera(arm_view)
    arm_view.set_model(model.with_parameters({"a2": 0.45}))        # reach 4 % longer: the camera stays
    assert _camera(arm_view) == before
    arm_view.set_model(model.with_parameters({"a2": 1.5}))         # twice the reach: fitted again, same direction
    after = _camera(arm_view)
    assert after["distance"] > before["distance"] * 1.3
    assert (after["elevation"], after["azimuth"]) == (before["elevation"], before["azimuth"])


def test_a_camera_moved_after_a_resize_stays_where_the_user_put_it(qtbot, arm_view):
    """A resize fits the camera to the new size in the next turn of the event loop, unless the user moves the
    camera first: the move is kept, and the view stops following its size."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication
    arm_view.set_model(load_project(ROBOTS / "puma560.json"))
    arm_view.view.resize(300, 500)   # the fit for this size is queued
    press = QMouseEvent(QEvent.Type.MouseButtonPress, QPointF(10, 10), QPointF(10, 10), Qt.MouseButton.LeftButton,
                        Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(arm_view.view, press)
    arm_view.view.setCameraPosition(distance=9.0, elevation=55.0, azimuth=12.0)
    moved = _camera(arm_view)
    qtbot.waitUntil(lambda: arm_view.view.width() == 300)
    QApplication.processEvents()
    assert _camera(arm_view) == moved
    arm_view.view.resize(320, 520)   # not followed any more
    QApplication.processEvents()
    assert _camera(arm_view) == moved


def test_presets_look_along_the_named_axes(arm_view):
    arm_view.set_model(six_link())
    arm_view.set_view("front")
    right, up, back = camera_axes(arm_view.camera()["elevation"], arm_view.camera()["azimuth"])
    np.testing.assert_allclose(back, [0, -1, 0], atol=1e-12)   # from the front: x to the right, z up
    np.testing.assert_allclose(right, [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(up, [0, 0, 1], atol=1e-12)
    arm_view.set_view("top")
    assert arm_view.camera()["elevation"] == 90
    arm_view.set_view("side")
    np.testing.assert_allclose(camera_axes(0, arm_view.camera()["azimuth"])[2], [1, 0, 0], atol=1e-12)


def test_fit_distance_of_a_known_sphere():
    # a sphere of radius 1 seen by a square view with a 90 degree field just fits at 1 / sin(45 deg):
    # there the rays along the field's edges touch it (points on its great circles stand in for it)
    t = np.linspace(0, 2 * np.pi, 3601)
    ring = np.column_stack([np.cos(t), np.sin(t), np.zeros_like(t)])
    pts = np.vstack([ring, ring[:, [0, 2, 1]], ring[:, [2, 0, 1]]])
    centre, distance = fit_distance(pts, 90.0, 100, 100, elevation=0.0, azimuth=-90.0)
    np.testing.assert_allclose(centre, 0, atol=1e-9)
    assert distance == pytest.approx(1.08 * np.sqrt(2.0), rel=1e-5)
    _, wide = fit_distance(pts, 90.0, 200, 100, elevation=0.0, azimuth=-90.0)   # half as tall: the height limits
    assert wide > distance


def test_options_are_remembered_for_the_next_view(qtbot, arm_view, private_settings):
    from designer.gui.view3d import ArmView
    arm_view.set_model(six_link())
    assert QSettings().fileName().startswith(str(private_settings))   # nothing leaks to the user's file
    arm_view.show_inertia = True
    arm_view.set_option("show_grid", False)
    arm_view.toolbar.option_actions["show_base"].setChecked(False)
    assert not arm_view.show_base and arm_view.parts["base"].any()
    fresh = ArmView()
    qtbot.addWidget(fresh)
    assert fresh.show_inertia and not fresh.show_grid and not fresh.show_base
    assert fresh.toolbar.option_actions["show_inertia"].isChecked()
    assert set(OPTIONS) <= {n for n in dir(fresh) if n.startswith("show_")}


def test_base_gravity_and_tool_toggles_change_the_picture(qtbot, arm_view):
    arm_view.set_model(six_link())
    arm_view.reset_camera()
    qtbot.wait(20)
    for name in ("show_base", "show_gravity", "show_tool", "show_com"):
        before = np.asarray(arm_view.view.renderToArray((800, 600)), dtype=np.int16)
        arm_view.set_option(name, False)
        after = np.asarray(arm_view.view.renderToArray((800, 600)), dtype=np.int16)
        arm_view.set_option(name, True)
        assert (np.abs(after - before)[..., :3].sum(axis=-1) > 30).sum() > 20, name


def test_gravity_arrow_points_along_gravity():
    seg = arm_scene.gravity_arrow(np.array([0.0, -9.81, 0.0]), 1.0)
    shaft = seg[1] - seg[0]
    np.testing.assert_allclose(shaft / np.linalg.norm(shaft), [0, -1, 0], atol=1e-12)
    assert np.linalg.norm(shaft) == pytest.approx(0.25)
    assert len(arm_scene.gravity_arrow(np.zeros(3), 1.0)) == 0


def test_a_map_click_poses_the_arm(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_project(ROBOTS / "planar_two_link.json"), settings=settings,
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.show()
    view = window.explore.map_view
    view.joint_x.setCurrentIndex(0)
    view.joint_y.setCurrentIndex(1)
    view.steps.setValue(11)
    view.samples.setValue(0)
    with qtbot.waitSignal(window.explore.jobEnded, timeout=120_000):
        view.compute()
    q = view.pose_at(30.0, -45.0)   # degrees on the axes
    np.testing.assert_allclose(q, np.radians([30.0, -45.0]))
    assert view.pose_at(400.0, 0.0) is None   # outside the map
    with qtbot.waitSignal(window.sliders.valuesChanged):
        window.explore.poseRequested.emit(q)
    np.testing.assert_allclose(window.sliders.values(), q)
    np.testing.assert_allclose(window.arm_view.joint_values(), q)
