"""Driven motions (designer.numeric.motion): the torques are Pinocchio's inverse dynamics along the
trajectory, and the energy gained is the torques' work, on random arms of both conventions with
prismatic joints and seven joints."""

from __future__ import annotations

import numpy as np
import pytest

from designer.explore.sizing import quintic
from designer.jobs import CancelToken, run
from designer.model import Convention
from designer.numeric.motion import driven_job, passive_job, work_done
from tests.support.pin_reference import pin, pin_model, random_arm


@pytest.mark.parametrize("seed, n, convention", [(11, 3, Convention.STANDARD), (12, 7, Convention.MODIFIED)])
def test_a_quintic_is_driven_by_pinocchios_torques_and_gains_their_work(seed, n, convention):
    rng = np.random.default_rng(seed)
    arm = random_arm(rng, n, convention)
    traj = quintic(rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n), 0.8, 2001)
    r = run(driven_job(arm, traj.t, traj.q, traj.qd, traj.qdd, "quintic move", CancelToken(), chunk=300))
    model = pin_model(arm)
    data = model.createData()
    for k in (0, 333, 1000, 1777, 2000):
        np.testing.assert_allclose(r.tau[k], pin.rnea(model, data, traj.q[k], traj.qd[k], traj.qdd[k]),
                                   rtol=1e-9, atol=1e-9)
    gain = r.energy - r.energy[0]
    assert np.abs(gain - r.work).max() <= 1e-5 * max(np.abs(r.work).max(), np.abs(gain).max()) + 1e-12
    assert np.abs(r.work).max() > 1e-3            # the move does work: the check is not 0 = 0


def test_work_done_of_a_constant_power_grows_linearly():
    t = np.linspace(0.0, 2.0, 5)
    tau, qd = np.full((5, 2), [2.0, 1.0]), np.full((5, 2), [0.5, -1.0])   # power 2*0.5 - 1 = 0
    np.testing.assert_allclose(work_done(t, tau, qd), 0.0)
    np.testing.assert_allclose(work_done(t, tau, np.full((5, 2), [1.0, 1.0])), 3.0 * t)   # power 3 W


def test_a_passive_fall_keeps_its_energy_and_has_no_torques():
    arm = random_arm(np.random.default_rng(3), 4, Convention.STANDARD, joints="RRRR")
    r = run(passive_job(arm, np.full(4, 0.3), 0.5, 26, CancelToken()))
    assert r.tau is None and r.work is None
    assert np.ptp(r.energy) <= 1e-6 * np.abs(r.energy).max()


def test_a_closed_chains_driven_torques_give_pinocchio_the_motion_back():
    """driven_job over a closed chain's Dynamics (the palletizer's parallelogram, any mechanism goes the same way):
    its actuated torques, applied to Pinocchio's constrained dynamics of the whole tree (the passive joints free),
    give back the trajectory's actuated accelerations; the energy gained is their work; every row's tree pose closes
    the loops, and the cut joint's peak force is named by its loop."""
    pytest.importorskip("pinocchio")
    from designer.numeric.mechanism import load_dynamics
    from designer.project import load_project
    from tests.support import robot_path
    from tests.support.closed_reference import PinMechanism
    model = load_project(robot_path("palletizer_parallelogram"))
    dyn = load_dynamics(model, springs=False)
    act = list(dyn.actuated)
    traj = quintic(np.array([0.0, 0.1, -0.1, 0.0]), np.radians([30.0, 20.0, 10.0, -40.0]), 1.0, 201)
    r = run(driven_job(dyn, traj.t, traj.q, traj.qd, traj.qdd, "quintic move", CancelToken(), chunk=64,
                       limits="ignore", limits_of=dyn.tree.arm, loop_names=["rod"]))
    assert r.q.shape == (201, 6) and r.tau.shape == (201, 4) and r.given and r.residual < 1e-9
    assert [name for name, _peak, _t in r.cut_peaks] == ["rod"] and r.cut_peaks[0][1] > 100.0
    pin = PinMechanism(model)
    e = 1e-6
    for k in (37, 100, 163):
        start = r.q[k]
        W = np.stack([(dyn.positions(traj.q[k] + d) - dyn.positions(traj.q[k] - d)) / (2 * e)
                      for d in np.eye(4) * e], axis=1)
        tau_tree = np.zeros(6)
        tau_tree[act] = r.tau[k]
        qdd = pin.constrained(start, W @ traj.qd[k], tau_tree)[act]
        np.testing.assert_allclose(qdd, traj.qdd[k], rtol=1e-5, atol=1e-5 * np.abs(traj.qdd).max())
    gain = r.energy - r.energy[0]
    assert np.abs(gain - r.work).max() <= 1e-3 * np.abs(r.work).max()
