"""Elastic joints in the window: the read-out's frequency, the mode animation, the compliance ellipsoid."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import eigh

from designer.project.io import dumps_project
from tests.explore.test_elastic_metrics import _elastic_two_link
from tests.support import robot_path
from tests.support.windows import open_window


def _window(qtbot, tmp_path):
    path = tmp_path / "elastic.json"
    path.write_text(dumps_project(_elastic_two_link()))
    return open_window(qtbot, tmp_path, path)


def test_readout_shows_the_lowest_frequency_at_the_slider_pose(qtbot, tmp_path):
    w = _window(qtbot, tmp_path)
    w.design.set_pose([0.3, 1.1])
    text = w.readout.text()
    assert "natural frequency" in text and "Hz" in text
    from designer.numeric.engine import arm_dynamics
    f = np.sqrt(eigh(np.diag([2e3, 1e3]), arm_dynamics(w.design.arm).M(np.array([0.3, 1.1])),
                     eigvals_only=True)[0]) / (2 * np.pi)
    assert f"{f:.3g} Hz" in text


def test_rigid_project_readout_has_no_frequency(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, robot_path("planar_two_link"))
    assert "frequency" not in w.readout.text()
    assert "no elastic joints" in w.mode_animation.start(1)


def test_mode_animation_moves_the_drawn_arm_along_the_shape_and_stop_restores_it(qtbot, tmp_path):
    w = _window(qtbot, tmp_path)
    w.design.set_pose([0.3, 1.1])
    assert w.mode_animation.start(1) == ""
    shape = w.mode_animation.shape
    qtbot.waitUntil(lambda: np.abs(w.arm_view.joint_values() - [0.3, 1.1]).max() > 0.02, timeout=120_000)
    moved = w.arm_view.joint_values() - [0.3, 1.1]
    assert abs(moved @ shape) / (np.linalg.norm(moved) * np.linalg.norm(shape)) > 0.999   # along v_1
    assert np.allclose(w.design.q, [0.3, 1.1])   # the pose itself stays
    w.mode_animation.stop()
    assert np.allclose(w.arm_view.joint_values(), [0.3, 1.1])
    assert "modes 1 to 2" in w.mode_animation.start(3)


def test_compliance_ellipsoid_follows_the_pose(qtbot, tmp_path):
    w = _window(qtbot, tmp_path)
    assert w.stiffness_ellipsoid_action in w.arm_view.toolbar.show_menu.actions()
    w.stiffness_ellipsoid_action.setChecked(True)
    w.design.set_pose([0.0, 0.0])
    stretched = w.stiffness_ellipsoid.semi_axes.copy()
    # a planar arm: the out-of-plane compliance is zero, the in-plane ones are not
    assert stretched[0] < 1e-12 * stretched[-1] and stretched[-1] > 0
    w.design.set_pose([0.0, 1.5])
    assert not np.allclose(w.stiffness_ellipsoid.semi_axes, stretched)


def test_explore_panel_maps_the_lowest_frequency_from_the_drive_data(qtbot, tmp_path):
    """The Explore map of ``frequency`` takes the stiffness from the project; cells against scipy's eigh."""
    from designer.gui.explore_panel import ExplorePanel
    model = _elastic_two_link()
    panel = ExplorePanel()
    qtbot.addWidget(panel)
    panel.set_model(model)
    panel.set_joint_values(np.array([0.2, 0.4]))
    panel.show()
    panel.picker.set_metric("frequency")
    view = panel.map_view
    view.steps.setValue(7)
    view.samples.setValue(0)
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000) as blocker:
        assert view.compute() is not None, panel.error_label.text()
    assert blocker.args[1] == "finished"
    grid = view.result.grid
    from designer.kinematics import NumericArm
    from designer.numeric.engine import arm_dynamics
    dyn = arm_dynamics(NumericArm.from_model(model))
    for iy, ix in [(0, 0), (3, 5), (6, 2)]:
        q = np.array([grid.x[ix], grid.y[iy]])
        w2 = eigh(np.diag([2e3, 1e3]), dyn.M(q), eigvals_only=True)[0]
        assert view.heat.image.image[iy, ix] == pytest.approx(np.sqrt(w2) / (2 * np.pi), rel=1e-9)


def test_the_compliance_ellipsoid_says_why_it_draws_nothing_on_a_rigid_arm(qtbot, tmp_path):
    """Switched on for an arm without stiffness it did nothing: now the status bar says why."""
    w = open_window(qtbot, tmp_path, robot_path("planar_two_link"))
    w.stiffness_ellipsoid_action.setChecked(True)
    message = w.statusBar().currentMessage()
    assert message.startswith("No tool compliance ellipsoid: no elastic joints") and "stiffness" in message
    assert not w.stiffness_ellipsoid.semi_axes.any()
    w.stiffness_ellipsoid_action.setChecked(False)
    elastic = _window(qtbot, tmp_path)   # with stiffness: drawn, and nothing said
    elastic.stiffness_ellipsoid_action.setChecked(True)
    assert "ellipsoid" not in elastic.statusBar().currentMessage() and elastic.stiffness_ellipsoid.semi_axes.any()


def test_a_gravity_without_value_keeps_the_read_out_frequencies_and_names_what_the_sag_lacks():
    """The frequencies do not depend on gravity (K v = w^2 M v): with the gravity's symbol unvalued they equal the
    valued model's; the sag, which does, names the symbol instead of a number."""
    import sympy as sp
    from dataclasses import replace as _replace
    from designer.gui.modes import elastic_summary
    from designer.project import load_project
    model = load_project(robot_path("tube_arm"))
    model = getattr(model, "model", model)
    q = np.array([0.3, -0.4, 0.7])
    valued = elastic_summary(model, q).split("\n")
    unvalued = elastic_summary(_replace(model, gravity=(0, 0, -sp.Symbol("gg"))), q).split("\n")
    assert unvalued[0] == valued[0] and unvalued[0].startswith("lowest natural frequency")
    assert unvalued[1] == valued[1] and valued[1].endswith(" Hz with rigid links")
    assert unvalued[2] == "tool sag: no value for gg"
    assert valued[2].startswith("tool sag ") and valued[2].endswith(" mm")
