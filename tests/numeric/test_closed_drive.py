"""End stops and the moving-reference PD of a closed chain's simulation (numeric/closed_drive.py).

Independent sides:
- the serial engine (numeric/simulate.py with numeric/end_stops.py) on the 3-link arm that a parallelogram with
  massless bars is (q3 = q4 - q2): with the same stop on the passive elbow q3, the two falls agree;
- the energy law: E - E(0) equals the stops' work (integrated with the motion) on a random four-bar whose
  passive joint meets its stop, and the work of the PD torques plus the stops' on a driven palletizer;
- the PD reaches its target: at rest there (Takegaki & Arimoto: gravity compensation, positive gains).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.jobs import run
from designer.kinematics import NumericArm
from designer.model import Manipulator
from designer.numeric.closed import ClosedDynamics
from designer.numeric.closed_drive import closed_end_stops_for, closed_gains
from designer.numeric.simulate import PDControl, simulate, simulate_job
from designer.numeric.end_stops import EndStops, end_stops_for
from designer.numeric.motion import work_done
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, parallelogram_arm


def _limited(model, limits: dict):
    links = tuple(replace(link, limits=limits.get(i, (-20, 20))) for i, link in enumerate(model.links))
    return replace(model, links=links)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_stop_on_a_parallelograms_passive_elbow_is_the_serial_arms_stop(seed):
    model = _limited(parallelogram_arm(np.random.default_rng(seed), bars_mass=False), {2: (-0.3, 0.25)})
    serial = Manipulator(links=tuple(replace(link, actuated=True) for link in model.links[:3]),
                         convention=model.convention, gravity=model.gravity)
    arm = NumericArm.from_model(serial)
    q_serial = np.array([0.2, 0.6, 0.1])   # the elbow falls onto a stop 0.15-0.4 rad away
    stops = end_stops_for(arm, q_serial)
    cd = ClosedDynamics(model)
    tree_stops = EndStops(stops.limits + ((np.nan, np.nan),) * 2, stops.stiffness + (0.0, 0.0),
                          stops.damping + (0.0, 0.0))
    qa = np.array([q_serial[0], q_serial[1], q_serial[1] + q_serial[2]])   # q4 = q2 + q3
    t = np.linspace(0.0, 1.2, 121)
    ours = simulate(cd, qa, np.zeros(3), (0.0, 1.2), t_eval=t, end_stops=tree_stops)
    theirs = simulate(arm, q_serial, np.zeros(3), (0.0, 1.2), t_eval=t, end_stops=stops)
    assert np.abs(theirs.stop_work).max() > 1e-2   # the elbow met a stop (J)
    np.testing.assert_allclose(ours.q_tree[:, :3], theirs.q, atol=2e-6)
    np.testing.assert_allclose(ours.stop_work, theirs.stop_work, atol=1e-6 * np.abs(theirs.stop_work).max() + 1e-9)


@pytest.mark.parametrize("seed", [3])   # about 1500 right-hand sides of 3-8 ms (a four-bar's loop and W each)
def test_a_four_bars_passive_joint_rests_on_its_stop_and_the_energy_is_the_stops_work(seed):
    model = four_bar(np.random.default_rng(seed), mounted=True)
    cd0 = ClosedDynamics(model)
    q0 = cd0.positions(np.zeros(cd0.n))
    # the rocker's joint (passive, the last link) may turn 0.05 rad either way from where it starts; the crank
    # 0.6 rad (a rocker's stop alone cannot hold a crank that carries it past the rocker's extreme angle, and
    # these four-bars close for 0.7 rad of crank only)
    rocker, crank = len(model.links) - 1, len(model.links) - 3
    model = _limited(model, {rocker: (float(q0[rocker]) - 0.05, float(q0[rocker]) + 0.05),
                             crank: (float(q0[crank]) - 0.6, float(q0[crank]) + 0.6)})
    cd = ClosedDynamics(model)
    stops = closed_end_stops_for(cd, np.zeros(cd.n))
    traj = simulate(cd, np.zeros(cd.n), np.zeros(cd.n), (0.0, 0.4), t_eval=np.linspace(0, 0.4, 81),
                           end_stops=stops, rtol=1e-6, atol=1e-8)
    energy = traj.kinetic + traj.potential
    scale = max(float(np.ptp(traj.potential)), 1e-3)
    assert np.abs(traj.stop_work).max() > 0.1 * scale   # it met a stop and rests there
    np.testing.assert_allclose(energy - energy[0], traj.stop_work, atol=1e-6 * scale)
    # a stop at 30 Hz holds the joint within a few degrees of its limits
    lo, hi = q0[rocker] - 0.05, q0[rocker] + 0.05
    assert traj.q_tree[:, rocker].min() > lo - 0.1 and traj.q_tree[:, rocker].max() < hi + 0.1
    assert traj.residual.max() < 1e-9


def test_a_start_past_a_passive_limit_is_named():
    model = load_project(robot_path("palletizer_parallelogram"))
    cd = ClosedDynamics(model)
    with pytest.raises(ValueError, match="q3 starts at"):   # q3 = q4 - q2 = -2 rad, its limits +-pi/2
        closed_end_stops_for(cd, [0.0, 1.0, -1.0, 0.0])


def test_the_pd_brings_the_palletizer_to_its_target_and_the_energy_is_the_work():
    model = load_project(robot_path("palletizer_parallelogram"))
    cd = ClosedDynamics(model)
    start, target = np.array([0.0, 0.1, -0.1, 0.0]), np.array([0.6, 0.4, 0.2, -0.5])
    kp, kd = closed_gains(cd, start)
    control = PDControl(kp.tolist(), kd.tolist(), target.tolist(), start.tolist(), 1.0)
    t = np.linspace(0.0, 2.5, 2501)
    traj = run(simulate_job(cd, start, np.zeros(4), (0.0, 2.5), torque=control, t_eval=t))
    np.testing.assert_allclose(traj.q[-1], target, atol=2e-3)
    assert np.abs(traj.qd[-1]).max() < 1e-2
    energy = traj.kinetic + traj.potential
    work = work_done(traj.t, traj.tau, traj.qd)
    assert np.abs(energy - energy[0] - work).max() < 1e-4 * np.ptp(energy)
    assert traj.residual.max() < 1e-9
