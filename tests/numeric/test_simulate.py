"""Simulation: physical laws on random arms, PD regulation, torque tables and the job."""

from __future__ import annotations

import numpy as np
import pytest

from designer.jobs import CancelToken, Cancelled, run
from designer.model import Convention
from designer.numeric import arm_dynamics
from designer.numeric.simulate import PDControl, TorqueTable, Trajectory, energy, simulate, simulate_job

from tests.support.pin_reference import random_arm


@pytest.mark.parametrize("convention,joints", [(Convention.STANDARD, "RRPRRRR"), (Convention.MODIFIED, "RPRRRPRR")])
def test_passive_arm_conserves_energy(convention, joints):
    arm = random_arm(np.random.default_rng(21), 7, convention, joints)
    q0 = np.random.default_rng(1).uniform(-1, 1, arm.n)
    traj = simulate(arm, q0, np.zeros(arm.n), (0, 0.5), rtol=1e-11, atol=1e-12)
    kinetic, potential = arm_dynamics(arm).energy(traj.q, traj.qd)
    E = kinetic + potential
    # relative to the energy that moves between kinetic and potential over the run
    assert np.ptp(kinetic) > 0.1
    assert np.max(np.abs(E - E[0])) / np.ptp(kinetic) < 1e-7
    np.testing.assert_allclose(energy(arm, traj.q, traj.qd), E)
    assert traj.tau is None and traj.steps == len(traj.t) - 1 and traj.evaluations > traj.steps


def test_pd_regulation_reaches_the_target():
    """Kp (r - q) - Kd qd + G(q) brings any arm to rest at r (Takegaki & Arimoto)."""
    arm = random_arm(np.random.default_rng(8), 4, Convention.STANDARD, "RPRR", loads=False)
    target = np.array([0.8, 0.1, -0.6, 1.2])
    pd = PDControl([40.0] * 4, [25.0] * 4, target.tolist())
    traj = simulate(arm, np.zeros(4), np.zeros(4), (0, 8.0), torque=pd, t_eval=np.linspace(0, 8, 81))
    assert np.max(np.abs(traj.q[0] - target)) > 0.5
    np.testing.assert_allclose(traj.q[-1], target, atol=1e-4)
    np.testing.assert_allclose(traj.qd[-1], 0.0, atol=1e-3)
    # the recorded torque at rest is the gravity torque alone
    np.testing.assert_allclose(traj.tau[-1], arm_dynamics(arm).G(traj.q[-1]), atol=1e-2)


def test_torque_table_is_read_linearly():
    arm = random_arm(np.random.default_rng(3), 3, Convention.MODIFIED, "RRP")
    times, tau = np.array([0.0, 0.2, 0.5]), np.array([[1.0, -2.0, 3.0], [0.0, 1.0, 2.0], [4.0, 0.0, -1.0]])
    table = TorqueTable(times, tau)
    np.testing.assert_allclose(table(0.1), [0.5, -0.5, 2.5])
    np.testing.assert_allclose(table(0.9), tau[-1])  # held after the last row

    def by_hand(t, q, qd):
        return [np.interp(t, times, tau[:, j]) for j in range(3)]

    t = np.linspace(0, 0.6, 7)
    a = simulate(arm, np.zeros(3), np.zeros(3), (0, 0.6), torque=table, t_eval=t, rtol=1e-10, atol=1e-12)
    b = simulate(arm, np.zeros(3), np.zeros(3), (0, 0.6), torque=by_hand, t_eval=t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.q, b.q, atol=1e-9)
    with pytest.raises(ValueError, match="times must increase"):
        TorqueTable([0.0, 0.0], [[1.0], [2.0]])


def test_job_reports_progress_per_step_and_cancels():
    arm = random_arm(np.random.default_rng(5), 3, Convention.STANDARD, "RRR")
    steps = []
    pd = PDControl([10.0] * 3, [5.0] * 3, [0.1, 0.2, 0.3])
    traj = run(simulate_job(arm, np.zeros(3), np.zeros(3), (0, 1.0), torque=pd, interval=0), steps.append)
    # one report at the start and one after every step, at t / T of that step
    assert len(steps) == traj.steps + 1 and steps[0].fraction == 0.0
    np.testing.assert_array_equal([s.fraction for s in steps[1:]], traj.t[1:])
    assert isinstance(traj, Trajectory) and f"{traj.steps} steps" in steps[-1].detail
    # the result does not depend on how often progress is reported
    quiet = simulate(arm, np.zeros(3), np.zeros(3), (0, 1.0), torque=pd)
    np.testing.assert_array_equal(quiet.q, traj.q)
    token = CancelToken()
    seen = []

    def cancel_third(step):
        seen.append(step)
        if len(seen) == 3:
            token.cancel()
    with pytest.raises(Cancelled):
        run(simulate_job(arm, np.zeros(3), np.zeros(3), (0, 1.0), torque=pd, interval=0, token=token), cancel_third)
    assert len(seen) == 3     # the step after the cancel raised before reporting


def test_every_run_answers_the_closed_chains_extras_and_its_energy():
    """One Trajectory for every mechanism: a serial arm's run answers what a closed chain adds as the mechanism
    without loops (its tree positions are its q, no residual, no cut joint), and its energies are Pinocchio's
    (computed here on the rows); a passive run keeps their sum."""
    from tests.support.pin_reference import pin, pin_model
    arm = random_arm(np.random.default_rng(5), 4, Convention.STANDARD, "RRPR")
    traj = simulate(arm, np.full(4, 0.3), np.zeros(4), (0, 0.3), rtol=1e-11, atol=1e-12)
    np.testing.assert_array_equal(traj.q_tree, traj.q)
    assert not traj.residual.any() and traj.cut_force.shape == (len(traj.t), 0, 3) and not traj.motors
    model = pin_model(arm)
    data = model.createData()
    kinetic = [pin.computeKineticEnergy(model, data, q, qd) for q, qd in zip(traj.q, traj.qd)]
    potential = np.array([pin.computePotentialEnergy(model, data, q) for q in traj.q])
    np.testing.assert_allclose(traj.kinetic, kinetic, rtol=1e-9, atol=1e-9 * max(kinetic))
    # Pinocchio's potential has its own zero: compare changes
    np.testing.assert_allclose(traj.potential - traj.potential[0], potential - potential[0], atol=1e-8 * max(kinetic))
    E = traj.kinetic + traj.potential
    assert np.ptp(traj.kinetic) > 1e-3 and np.ptp(E) < 1e-7 * np.ptp(traj.kinetic)
