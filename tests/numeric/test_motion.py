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
