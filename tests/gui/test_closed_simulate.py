"""Simulate drives a closed chain (issue 22): a move to a target of the actuated joints under the core's PD with
gravity compensation, in the worker with progress and Cancel, played back in the 3D view with the loops closed;
end stops on every joint of the tree, the passive ones included.

Independent sides: the target typed (the PD must bring the mechanism to rest there: Takegaki & Arimoto), the
loops' closure of every frame (the cut joint's two bars meeting, loop_scene.loop_bars), and the energy law
E - E(0) = the work of the torques (PD and stops), the work summed here from the plotted torques and rates.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from designer.gui import loop_scene
from designer.numeric.motion import work_done
from designer.project import load_project
from designer.project.io import dumps_project
from tests.support import robot_path
from tests.support.held_jobs import hold_jobs
from tests.support.windows import open_window

pytestmark = pytest.mark.usefixtures("no_dialogs")

TARGET_DEG = np.array([30.0, 20.0, 10.0, -40.0])   # q1, q2, q4, q6 of the palletizer


def _window(qtbot, tmp_path, model=None):
    if model is None:
        return open_window(qtbot, tmp_path, robot_path("palletizer_parallelogram"))
    path = tmp_path / "closed.json"
    path.write_text(dumps_project(model))
    return open_window(qtbot, tmp_path, path)


def _run(qtbot, sim, timeout=180_000):
    with qtbot.waitSignal(sim.finished, timeout=timeout):
        assert sim.run() is not None
        assert sim.busy   # the simulation runs in the worker: the window's thread is free meanwhile
    return sim.result


def test_a_closed_chain_moves_to_its_pd_target_with_the_loops_closed_in_every_frame(qtbot, tmp_path):
    w = _window(qtbot, tmp_path)
    sim, mech = w.simulate, w.closed.mechanism
    sim.motion.setCurrentText("PD move")
    assert sim.pd.isVisibleTo(sim) and "q1, q2, q4, q6" in sim.target.placeholderText()
    sim.target.setText(" ".join(f"{v:g}" for v in TARGET_DEG))
    sim.duration.setValue(1.0)
    sim.pd.hold.setValue(1.0)
    r = _run(qtbot, sim)
    act = list(mech.actuated)
    assert r.q.shape[1] == mech.tree.n and r.tau.shape[1] == len(act)
    np.testing.assert_allclose(r.q[-1, act], np.radians(TARGET_DEG), atol=2e-3)   # at rest on the target
    assert np.abs(r.qd[-1]).max() < 2e-2 and r.t[-1] == pytest.approx(2.0)
    for q in r.q[:: max(1, len(r.q) // 10)]:
        bars = loop_scene.loop_bars(mech.tree, mech.frames(q))
        assert np.abs(bars[:, 0, 1] - bars[:, 1, 1]).max() < 1e-9
    # the energy law with the work summed here from the torques and rates the tab holds (not the job's sum)
    e = r.energy
    work = work_done(r.t, r.tau, r.qd)
    assert np.abs(e - e[0] - work).max() < 2e-3 * np.ptp(e) + 1e-6
    assert "differ by at most" in sim.status.text() and "loop residual" in sim.status.text()
    names = [item.name() for item in sim.tau_plot.listDataItems()]
    assert names == ["τ1", "τ2", "τ4", "τ6"]
    # playback: the last frame is drawn, the passive joints where the loops put them
    sim.scrub.setValue(len(r.t) - 1)
    np.testing.assert_allclose(w.arm_view.joint_values(), r.q[-1])


def test_a_closed_chain_simulation_can_be_cancelled(qtbot, tmp_path, monkeypatch):
    w = _window(qtbot, tmp_path)
    sim = w.simulate
    sim.duration.setValue(60.0)
    # the fall is held after its first step inside the span until it is cancelled: on a loaded machine the
    # palletizer's 60 s fall (2-3 s of work) had ended before a cancel waiting for its progress landed
    hold_jobs(monkeypatch)
    shown = []
    sim.progress.valueChanged.connect(shown.append)
    assert sim.run() is not None
    qtbot.waitUntil(lambda: any(0 < v < 1000 for v in shown), timeout=120_000)
    assert sim.busy
    sim.cancel()
    qtbot.waitUntil(lambda: not sim.busy, timeout=120_000)
    assert sim.status.text() == "Simulation cancelled" and sim.run_button.isEnabled()


def test_end_stops_hold_a_passive_joint_of_a_closed_chain(qtbot, tmp_path):
    """The palletizer's forearm (link 3, passive: q3 = q4 - q2) limited to +-0.3 rad: released from 0.2 rad it
    falls onto its stop; warned, it runs through and the status names q3."""
    model = load_project(robot_path("palletizer_parallelogram"))
    links = list(model.links)
    links[2] = dataclasses.replace(links[2], limits=(-0.3, 0.3))
    w = _window(qtbot, tmp_path, dataclasses.replace(model, links=tuple(links)))
    sim, mech = w.simulate, w.closed.mechanism
    q = np.array(w.sliders.values())
    q[mech.actuated] = [0.0, 0.4, 0.6, 0.0]    # q3 = 0.2
    w.sliders.set_values(q)
    assert w.design.q[2] == pytest.approx(0.2)
    sim.duration.setValue(1.0)
    sim.limits.setCurrentIndex(sim.limits.findData("warn"))
    free = _run(qtbot, sim)
    assert "q3 passed its" in sim.status.text()
    sim.limits.setCurrentIndex(sim.limits.findData("stop"))
    held = _run(qtbot, sim)
    assert held.kind.endswith("end stops") and np.ptp(free.q[:, 2]) > np.ptp(held.q[:, 2])
    assert np.abs(held.q[:, 2]).max() < 0.3 + 0.06           # a 30 Hz stop: a few degrees past at most
    e = held.energy
    assert np.abs(e - e[0] - held.work).max() < 1e-4 * np.ptp(free.energy) + 1e-6   # E - E(0) = the stops' work
    # a pose past a limit: refused in one line before any work
    q[mech.actuated] = [0.0, 0.0, 0.6, 0.0]    # q3 = 0.6
    w.sliders.set_values(q)
    assert sim.run() is None and "q3 starts at" in sim.status.text() and "\n" not in sim.status.text()


def test_a_closed_chain_follows_a_csv_of_its_actuated_joints_with_pinocchios_torques(qtbot, tmp_path):
    """A quintic of q1, q2, q4, q6 written as a CSV named by the links: the tab's torques against Pinocchio's
    RNEA on the spanning tree fed with the closed pose and rates (the palletizer's W is constant: qd_tree = W
    qd_a, qdd_tree = W qdd_a), projected by W from differences of the closure; E - E(0) against the work."""
    import pinocchio as pin

    from designer.explore.sizing import quintic
    from designer.numeric.closed import ClosedDynamics
    from tests.support.closed_reference import pin_mechanism
    w = _window(qtbot, tmp_path)
    model = w.document.model
    cd = ClosedDynamics(model)
    start, target = np.array([0.0, 0.1, -0.1, 0.0]), np.radians(TARGET_DEG)
    traj = quintic(start, target, 1.0, 401)
    path = tmp_path / "move.csv"
    names = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in (1, 2, 4, 6)]
    rows = [",".join(["t", *names])] + [",".join(repr(float(v)) for v in (t, *q, *qd, *qdd))
                                       for t, q, qd, qdd in zip(traj.t, traj.q, traj.qd, traj.qdd)]
    path.write_text("\n".join(rows) + "\n")
    sim = w.simulate
    sim.motion.setCurrentText("trajectory CSV")
    assert "t, q1, q2, q4, q6" in sim.csv_path.placeholderText()
    sim.csv_path.setText(str(path))
    r = _run(qtbot, sim)
    assert r.tau.shape == (401, 4) and r.q.shape == (401, 6)
    pm, _, order = pin_mechanism(model)
    ours = np.argsort(order)
    e = 1e-6
    W = np.stack([(cd.positions(start + d) - cd.positions(start - d)) / (2 * e) for d in np.eye(4) * e], axis=1)
    for k in range(0, 401, 80):
        q_tree = cd.positions(traj.q[k])
        tau_tree = pin.rnea(pm, pm.createData(), q_tree[order], (W @ traj.qd[k])[order],
                            (W @ traj.qdd[k])[order])[ours]
        np.testing.assert_allclose(r.tau[k], W.T @ tau_tree, rtol=1e-6, atol=1e-6 * np.abs(tau_tree).max())
        np.testing.assert_allclose(r.q[k], q_tree, atol=1e-12)
    energy = r.energy
    assert np.abs(energy - energy[0] - r.work).max() < 1e-3 * np.ptp(energy)
    assert "joint torques (inverse dynamics)" in sim.tau_plot.titleLabel.text
    assert "torques' work differ by at most" in sim.status.text()
    # the serial numbering (q3 is passive here) is named in one line, before any work
    bad = tmp_path / "serial_names.csv"
    bad.write_text("t,q1,q2,q3,q4\n0,0,0,0,0\n0.1,0,0,0,0\n0.2,0,0,0,0\n")
    sim.csv_path.setText(str(bad))
    assert sim.run() is None and "missing column(s) q6" in sim.status.text() and "\n" not in sim.status.text()


def test_a_falls_status_gives_the_peak_force_its_cut_joint_carried(qtbot, tmp_path):
    """What the parallelogram's bearing must take along the fall, on the status line: the largest of the
    forces the core's cut-joint solve gives at the frames, recomputed here from the played-back states
    with the accelerations of the forward dynamics (no torque: a fall)."""
    from designer.numeric.closed import ClosedDynamics
    w = _window(qtbot, tmp_path)
    sim = w.simulate
    sim.duration.setValue(0.5)
    r = _run(qtbot, sim)
    cd = ClosedDynamics(load_project(robot_path("palletizer_parallelogram")))
    act = list(cd.act)
    peak = 0.0
    for q_tree, qd in zip(r.q, r.qd):
        qdd = cd.following(q_tree).qdd(q_tree[act], qd, np.zeros(cd.n))
        peak = max(peak, float(np.linalg.norm(cd.following(q_tree).cut_forces(q_tree[act], qd, qdd).force[0])))
    assert peak > 100.0                                   # the forearm's weight goes through the rod
    assert f"loops[1] (parallelogram): peak cut-joint force {peak:.3g} N" in sim.status.text()


def test_a_closed_chains_elastic_joints_start_holding_gravity_as_pinocchio_says(qtbot, tmp_path):
    """The elastic-joint model of a closed chain in the window: released at rest with its gearbox springs holding
    gravity, the springs' deflection at the start is G_a / k, G_a the actuated torques that hold the pose found
    from Pinocchio's constrained dynamics (q'' affine in tau: the torques that make the actuated q'' zero); every
    played-back frame closes the loops, and without damping the energy (springs and rotors in) stays."""
    pytest.importorskip("pinocchio")
    from tests.gui.test_closed_modes import K, QA, with_stiffness
    from tests.support.closed_reference import PinMechanism
    model = with_stiffness(load_project(robot_path("palletizer_parallelogram")))
    w = _window(qtbot, tmp_path, model)
    sim, mech = w.simulate, w.closed.mechanism
    q = np.array(w.sliders.values())
    q[mech.actuated] = QA
    w.sliders.set_values(q)
    assert sim.elastic.check.isVisibleTo(sim)
    sim.elastic.check.setChecked(True)
    sim.duration.setValue(0.2)
    r = _run(qtbot, sim)
    act = list(mech.actuated)
    assert r.q.shape[1] == mech.tree.n and r.elastic == tuple(act)
    for row in r.q[:: max(1, len(r.q) // 8)]:
        assert mech.closure.residual(row) < 1e-8
    pin = PinMechanism(model)
    q0, zero = r.q[0], np.zeros(mech.tree.n)
    base = pin.constrained(q0, zero, zero)[act]
    B = np.empty((len(act), len(act)))
    for k, j in enumerate(act):
        tau = zero.copy()
        tau[j] = 1.0
        B[:, k] = pin.constrained(q0, zero, tau)[act] - base
    G_a = -np.linalg.solve(B, base)
    np.testing.assert_allclose(r.deflection[0], G_a / np.array([K[j] for j in act]), rtol=1e-5, atol=1e-12)
    assert np.ptp(r.energy) < 1e-5 * np.abs(r.energy).max()
    assert r.deviation[0] < 1e-9 and "spring deflection up to" in sim.status.text()
    sim.scrub.setValue(len(r.t) - 1)
    np.testing.assert_allclose(w.arm_view.joint_values(), r.q[-1])


def test_a_motion_through_the_parallelograms_fold_is_warned_on_the_status_line(qtbot, tmp_path):
    """The crank driven (trajectory CSV) until the forearm stands at pi/2, where the parallelogram folds flat: the
    status line says the cut force there is a near-singular pose's, naming the loop and the condition number
    numpy's SVD of Pinocchio's loop Jacobian gives at the last frame (designer/numeric/near_singular.py)."""
    pytest.importorskip("pinocchio")
    from designer.numeric.closed import ClosedDynamics
    from tests.numeric.test_near_singular import pin_condition
    w = _window(qtbot, tmp_path)
    cd = ClosedDynamics(w.document.model)
    t = np.linspace(0.0, 1.0, 51)
    q4 = 1.5705 * t   # q3 = q4 - q2 follows
    path = tmp_path / "fold.csv"
    names = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in (1, 2, 4, 6)]
    path.write_text("\n".join([",".join(["t", *names])] + [
        ",".join(repr(float(v)) for v in (ti, 0, 0, qi, 0, 0, 0, 1.5705, 0, 0, 0, 0, 0)) for ti, qi in zip(t, q4)])
        + "\n")
    sim = w.simulate
    sim.motion.setCurrentText("trajectory CSV")
    sim.csv_path.setText(str(path))
    r = _run(qtbot, sim)
    kappa = pin_condition(w.document.model, r.q[-1], list(cd.pas))
    text = sim.status.text()
    assert "Warning: loops[1] (parallelogram) is near a singular pose at t = 1 s" in text, text
    assert f"condition number {kappa:.3g}" in text and "not a real load" in text, text


def test_an_elastic_run_at_the_parallelograms_fold_is_warned_on_the_status_line(qtbot, tmp_path):
    """The elastic palletizer released with its crank 1e-4 rad from the fold: the status line gives what a rigid run's
    gives (the residual, the cut joint's peak, the near-singular warning with the condition number of Pinocchio's
    loop Jacobian, the largest over the run's frames) after the elastic run's own words."""
    pytest.importorskip("pinocchio")
    from designer.numeric.closed import ClosedDynamics
    from tests.gui.test_closed_modes import with_stiffness
    from tests.numeric.test_near_singular import pin_condition
    model = with_stiffness(load_project(robot_path("palletizer_parallelogram")))
    w = _window(qtbot, tmp_path, model)
    cd = ClosedDynamics(model)
    w.sliders.set_values(cd.positions(np.array([0.0, 0.0, 1.5705, 0.0])))
    sim = w.simulate
    sim.elastic.check.setChecked(True)
    sim.duration.setValue(0.1)
    r = _run(qtbot, sim)
    kappa = max(pin_condition(model, q, list(cd.pas)) for q in r.q)
    text = sim.status.text()
    assert text.startswith("elastic passive fall") and "spring deflection up to" in text, text
    assert "largest loop residual" in text and "loops[1] (parallelogram): peak cut-joint force" in text, text
    assert "Warning: loops[1] (parallelogram) is near a singular pose" in text, text
    assert f"condition number {kappa:.3g}" in text, text
