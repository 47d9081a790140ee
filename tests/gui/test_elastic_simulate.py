"""The Simulate tab's elastic joints: the plotted tool deviation and spring deflections are the core's
(:mod:`designer.numeric.simulate`, run in the test), energy with springs and rotors balances the
motor torques' and the damping's work (conserved for a passive undamped arm), playback shows the link side,
bad inputs and Cancel leave the last result."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Drive
from designer.numeric.elastic import ElasticArm, elastic_joints
from designer.numeric import arm_dynamics
from designer.numeric.elastic import ElasticDynamics
from designer.numeric.simulate import PDControl, simulate, tool_deviation
from designer.project import load_project
from designer.project.io import dumps_project
from tests.support import robot_path
from tests.support.held_jobs import hold_jobs
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")


def _project(tmp_path, damping=0.0, rotor=1e-4, name="planar_two_link"):
    model = load_project(robot_path(name))
    ks = (2e3, 1e3, 1.5e3)
    links = tuple(dataclasses.replace(l, drive=Drive(stiffness=ks[i], damping=damping, gear_ratio=50.0 + 10 * i,
                                                     motor_inertia=rotor))
                  for i, l in enumerate(model.links))
    path = tmp_path / "elastic.json"
    path.write_text(dumps_project(dataclasses.replace(model, links=links)))
    return path


def _run(qtbot, panel):
    with qtbot.waitSignal(panel.finished, timeout=120_000):
        assert panel.run() is not None, panel.status.text()
    return panel.result


def _curves(plot):
    return [item.getData() for item in plot.listDataItems()]


def test_elastic_move_plots_the_cores_deviation_and_deflection_and_plays_the_link_side(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, _project(tmp_path, damping=3.0))
    panel = w.simulate
    assert panel.elastic.check.isVisibleTo(panel)
    q0 = np.array([0.4, -0.7])
    w.sliders.set_values(q0)
    panel.elastic.check.setChecked(True)
    panel.motion.setCurrentText("PD move")
    assert panel.elastic.isVisibleTo(panel)   # the gains row
    panel.target.setText("50, 20")
    panel.elastic.kp.setText("300, 150")
    panel.elastic.kd.setText("20")
    panel.duration.setValue(0.8)
    panel.elastic.hold.setValue(1.2)
    r = _run(qtbot, panel)
    assert r.t[-1] == pytest.approx(2.0)
    # the core, run here with the same control and sample times
    model = w.design.model
    arm, joints = NumericArm.from_model(model), elastic_joints(model)
    target = np.radians([50.0, 20.0])
    control = PDControl([300.0, 150.0], [20.0, 20.0], target.tolist(), q0.tolist(), 0.8)
    core = simulate(ElasticDynamics(arm_dynamics(arm), joints), q0, None, (0.0, 2.0), control, t_eval=r.t)
    rigid = simulate(ElasticDynamics(arm_dynamics(arm), joints.stiffened(math.inf)), q0, None, (0.0, 2.0), control,
                     t_eval=r.t)
    deviation = 1e3 * tool_deviation(arm, core.q, rigid.q)
    (t, plotted), = _curves(panel.elastic_plots.deviation)
    np.testing.assert_allclose(t, core.t)
    np.testing.assert_allclose(plotted, deviation, rtol=1e-9, atol=1e-12)
    assert plotted.max() > 1e-3   # the springs do show at the tool (a micron and more)
    springs = _curves(panel.elastic_plots.deflection)
    assert len(springs) == 2
    assert panel.elastic_plots.deflection.getAxis("left").labelText == "mrad"   # two revolute joints: not "mrad (mm)"
    spring = 1e3 * np.abs(core.theta / joints.gear - core.q).max()
    assert f"spring deflection up to {spring:.3g} mrad" in panel.status.text()
    for j, (_t, y) in enumerate(springs):
        np.testing.assert_allclose(y, 1e3 * (core.theta[:, j] / joints.gear[j] - core.q[:, j]), rtol=1e-9, atol=1e-12)
    # the torque plot made way for the two elastic ones (the tab keeps its height)
    assert panel.tau_plot.scene() is None and panel.elastic_plots.deviation.scene() is not None
    # energy balance, a physical law: E - E(0) = work of the motor torques - the damping's dissipation
    e = ElasticArm(arm, joints).energy(core.states())
    assert np.abs(e - e[0] - r.work).max() < 1e-3 * np.abs(e - e[0]).max()
    (_t, e_plotted), (_t2, work_plotted) = _curves(panel.e_plot)
    np.testing.assert_allclose(e_plotted, e - e[0], atol=1e-9)
    assert "tool deviation from the rigid arm up to" in panel.status.text()
    assert core.integrator and f"Integrator {core.integrator}." in panel.status.text()   # which method, and why
    # the arm reached the target: the motor-side PD with gravity compensation holds it there
    np.testing.assert_allclose(r.q[-1], target, atol=5e-3)   # settling (a 27° move)
    # playback: the link side, into the sliders and the 3D view
    k = len(r.t) // 3
    panel.scrub.setValue(k)
    np.testing.assert_allclose(w.arm_view.joint_values(), core.q[k], atol=1e-9)
    # a rigid run brings the torque plot back
    panel.elastic.check.setChecked(False)
    _run(qtbot, panel)
    assert panel.tau_plot.scene() is not None and panel.elastic_plots.deviation.scene() is None


def test_a_released_undamped_elastic_arm_keeps_its_energy(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, _project(tmp_path, damping=0.0))
    panel = w.simulate
    w.sliders.set_values(np.array([0.3, 0.9]))
    panel.elastic.check.setChecked(True)
    assert not panel.elastic.isVisibleTo(panel)   # no gains for a passive fall
    panel.duration.setValue(1.0)
    shown = []
    panel.progress.valueChanged.connect(shown.append)
    r = _run(qtbot, panel)
    # one bar through both runs (the elastic one, then the rigid reference), never back
    inside = [v for v in shown if 0 < v < 1000]
    assert inside == sorted(inside) and shown[-1] == 1000, shown
    assert r.tau is None and np.all(r.work == 0.0)
    assert np.ptp(r.energy) < 1e-5 * np.abs(r.energy).max()
    # it starts at rest with the springs holding gravity: deflection G(q0)/k, by the core's gravity
    from designer.numeric.engine import arm_dynamics
    G = arm_dynamics(panel.arm).G(np.array([0.3, 0.9]))
    np.testing.assert_allclose(r.deflection[0], G / np.array([2e3, 1e3]), rtol=1e-9)
    assert "damping's work differ by at most" in panel.status.text()
    from designer.gui.design_export import grab_figures
    figure = next(f for f in grab_figures(w)[0] if f.title == "Simulation")
    assert "deviation from the rigid arm" in figure.caption and "joint torques" not in figure.caption


def test_elastic_inputs_that_cannot_run_say_why_and_keep_the_last_result(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, _project(tmp_path))
    panel = w.simulate
    panel.elastic.check.setChecked(True)
    panel.duration.setValue(0.2)
    r = _run(qtbot, panel)
    panel.motion.setCurrentText("PD move")
    panel.target.setText("10 10")
    panel.elastic.kp.setText("1e3 abc")
    assert panel.run() is None and "Kp: '1e3 abc' is not a list of numbers" in panel.status.text()
    panel.elastic.kp.setText("-5")
    assert panel.run() is None and "Kp must be positive" in panel.status.text()
    panel.motion.setCurrentText("trajectory CSV")
    assert panel.run() is None and "CSV trajectory) is for the rigid arm" in panel.status.text()
    panel.motion.setCurrentText("passive fall")
    panel.limits.setCurrentIndex(panel.limits.findData("stop"))
    assert panel.run() is None and "end stops are not part of the elastic model" in panel.status.text()
    assert panel.result is r


def test_missing_rotor_inertia_is_named_and_a_rigid_project_has_no_check_box(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, _project(tmp_path, rotor=None))
    panel = w.simulate
    panel.elastic.check.setChecked(True)
    assert panel.run() is None and "q1, q2 need the motor's rotor inertia" in panel.status.text()
    w2 = open_window(qtbot, tmp_path, robot_path("planar_two_link"))
    assert not w2.simulate.elastic.check.isVisibleTo(w2.simulate) and not w2.simulate.elastic.on


def test_a_long_elastic_run_cancels(qtbot, tmp_path, monkeypatch):
    w = open_window(qtbot, tmp_path, _project(tmp_path, damping=0.0, name="puma560_three_link"))
    panel = w.simulate
    panel.elastic.check.setChecked(True)
    w.sliders.set_values(np.array([0.2, 0.5, -0.4]))
    panel.duration.setValue(60.0)
    shown = []
    panel.progress.valueChanged.connect(shown.append)
    hold_jobs(monkeypatch)   # the run waits for Cancel after its first step inside the span: no race with its end
    assert panel.run() is not None
    qtbot.waitUntil(lambda: any(0 < v < 1000 for v in shown), timeout=120_000)
    assert panel.busy
    with qtbot.waitSignal(panel.worker.signals.cancelled, timeout=120_000):
        panel.cancel_button.click()
    assert panel.status.text() == "Simulation cancelled" and panel.result is None


@pytest.mark.parametrize("seed", range(2))
def test_a_random_move_of_a_three_joint_arm_with_default_gains_balances_its_energy(qtbot, tmp_path, seed):
    """The PUMA 560's first three links, random pose, target and damping; the gains the window chose."""
    rng = np.random.default_rng(seed)
    w = open_window(qtbot, tmp_path, _project(tmp_path, damping=float(rng.uniform(0, 5)), rotor=2e-4,
                                              name="puma560_three_link"))
    panel = w.simulate
    q0, target = rng.uniform(-0.6, 0.6, 3), rng.uniform(-0.6, 0.6, 3)
    w.sliders.set_values(q0)
    panel.elastic.check.setChecked(True)
    panel.motion.setCurrentText("PD move")
    panel.target.setText(" ".join(f"{v:.6f}" for v in np.degrees(target)))
    panel.duration.setValue(0.5)
    panel.elastic.hold.setValue(0.3)
    r = _run(qtbot, panel)
    assert "default here" in panel.elastic.kp.placeholderText()   # the empty fields say what they stood for
    model = w.design.model
    arm, joints = NumericArm.from_model(model), elastic_joints(model)
    kp, kd = r.gains
    control = PDControl(list(kp), list(kd), np.radians(np.round(np.degrees(target), 6)).tolist(), q0.tolist(), 0.5)
    core = simulate(ElasticDynamics(arm_dynamics(arm), joints), q0, None, (0.0, 0.8), control, t_eval=r.t)
    rigid = simulate(ElasticDynamics(arm_dynamics(arm), joints.stiffened(math.inf)), q0, None, (0.0, 0.8), control,
                     t_eval=r.t)
    (_t, plotted), = _curves(panel.elastic_plots.deviation)
    np.testing.assert_allclose(plotted, 1e3 * tool_deviation(arm, core.q, rigid.q), rtol=1e-9, atol=1e-12)
    e = ElasticArm(arm, joints).energy(core.states())
    assert np.abs(e - e[0] - r.work).max() < 1e-3 * np.abs(e - e[0]).max()


def test_the_elastic_controls_and_plots_fit_a_laptop_screen(qtbot, tmp_path):
    from PySide6.QtCore import QPoint, QRect
    w = open_window(qtbot, tmp_path, robot_path("tube_arm"))
    screen = QRect(0, 0, 1366, 738)   # 1366 x 768 less a task bar
    w.fit_to_screen(screen)
    w.result_tabs.setCurrentWidget(w.simulate)
    panel = w.simulate
    panel.elastic.check.setChecked(True)
    panel.motion.setCurrentText("PD move")
    panel.target.setText("30 -40 60")
    panel.duration.setValue(0.3)
    panel.elastic.hold.setValue(0.1)
    _run(qtbot, panel)
    qtbot.wait(50)
    assert w.width() <= screen.width() and w.height() <= screen.height()

    def inside(widget):
        rect = QRect(widget.mapTo(w, QPoint(0, 0)), widget.size())
        return widget.isVisible() and w.rect().contains(rect)
    for widget in (panel.elastic.check, panel.elastic.kp, panel.elastic.kd, panel.elastic.hold, panel.run_button,
                   panel.play_button, panel.plots):
        assert inside(widget), widget
    # four plots share the height: none is squashed below a readable size. What counts is each data area
    # (the view box): 32 px each when every plot had a 30 px title, its own time values and a legend over
    # its curves; one time axis, 20 px titles and one legend under the plots give each about 49 px
    for plot in (panel.q_plot, panel.elastic_plots.deviation, panel.elastic_plots.deflection, panel.e_plot):
        assert plot.vb.geometry().height() >= 45, plot.vb.geometry()
    assert inside(w.arm_view) and w.arm_view.width() >= 250


def test_the_run_buttons_tip_says_what_an_elastic_run_does(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, _project(tmp_path))
    panel = w.simulate
    rigid = panel.run_button.toolTip()
    panel.elastic.check.setChecked(True)
    assert "elastic arm" in panel.run_button.toolTip()
    panel.motion.setCurrentText("PD move")
    assert "motor-side PD" in panel.run_button.toolTip()
    panel.motion.setCurrentText("passive fall")
    panel.elastic.check.setChecked(False)
    assert panel.run_button.toolTip() == rigid
