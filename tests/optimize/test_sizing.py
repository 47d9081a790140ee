"""Sizing along a cycle against an independent implementation: Duarte's closed-form two-link equations give
the joint torques, the test's own loop decides every pair's feasibility; the ranking must be those pairs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from designer.catalog import Catalog, Gearbox, Motor
from designer.explore.sizing import quintic
from designer.optimize.sizing import cycle_loads, size_cycle
from designer.project.io import load_project
from tests.support import robot_path

P = {"L1": 1.0, "L2": 0.8, "d1": 0.5, "d2": 0.4, "m1": 2.0, "m2": 1.0, "I1": 1 / 6, "I2": 0.8**2 / 12, "g": 9.81}


def duarte(q, qd, qdd):
    """tau and diag(M) of the planar two-link arm, written out (Duarte's notebook, In[10])."""
    L1, d1, d2, m1, m2, I1, I2, g = (P[k] for k in ("L1", "d1", "d2", "m1", "m2", "I1", "I2", "g"))
    c2, s2 = np.cos(q[:, 1]), np.sin(q[:, 1])
    M11 = I1 + I2 + m1 * d1**2 + m2 * (L1**2 + d2**2 + 2 * L1 * d2 * c2)
    M12 = I2 + m2 * (d2**2 + L1 * d2 * c2)
    M22 = I2 + m2 * d2**2 + 0 * c2
    h1 = -m2 * L1 * d2 * s2 * (2 * qd[:, 0] * qd[:, 1] + qd[:, 1] ** 2)
    h2 = m2 * L1 * d2 * s2 * qd[:, 0] ** 2
    G1 = g * ((m1 * d1 + m2 * L1) * np.cos(q[:, 0]) + m2 * d2 * np.cos(q[:, 0] + q[:, 1]))
    G2 = g * m2 * d2 * np.cos(q[:, 0] + q[:, 1])
    tau = np.column_stack([M11 * qdd[:, 0] + M12 * qdd[:, 1] + h1 + G1, M12 * qdd[:, 0] + M22 * qdd[:, 1] + h2 + G2])
    return tau, np.column_stack([M11, M22])


def _catalog() -> Catalog:
    gearboxes = {f"G{N}-{T}": Gearbox(f"G{N}-{T}", "planetary", N, T, 2 * T, mass=0.01 * T + 0.1 * N,
                                      inertia=1e-5, max_input_speed=600.0)
                 for N, T in itertools.product((5, 10, 20, 50, 100), (10, 30, 60))}
    motors = {f"M{T}": Motor(f"M{T}", T, 3 * T, 300.0, 500.0, 1e-5 * T, mass=0.5 * T)
              for T in (0.2, 0.5, 1.0, 3.0, 8.0)}
    return Catalog(gearboxes, motors)


def test_feasible_pairs_and_ranking_match_an_independent_check():
    model = load_project(robot_path("planar_two_link"))
    traj = quintic([-0.3, 0.2], [1.2, 1.4], 0.8, steps=801)
    tau, Mdiag = duarte(traj.q, traj.qd, traj.qdd)
    loads = cycle_loads(model, traj)
    for j, load in enumerate(loads):
        np.testing.assert_allclose(load.torque, tau[:, j], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(load.inertia, Mdiag[:, j], rtol=1e-9)
    cat = _catalog()
    result = size_cycle(model, traj, cat, inertia_ratio_limit=10.0)
    duration = traj.t[-1] - traj.t[0]
    some_feasible = some_not = False
    for j in (0, 1):
        expect = set()
        for g, m in itertools.product(cat.gearboxes.values(), cat.motors.values()):
            J = m.rotor_inertia + g.inertia
            total = tau[:, j] + g.ratio**2 * J * traj.qdd[:, j]
            peak = np.abs(total).max()
            rms = math.sqrt(np.trapezoid(total**2, traj.t) / duration)
            speed = np.abs(traj.qd[:, j]).max() * g.ratio
            ok = (peak <= g.peak_torque and rms <= g.rated_torque and speed <= g.max_input_speed
                  and peak / g.ratio <= m.peak_torque and rms / g.ratio <= m.rated_torque and speed <= m.max_speed
                  and Mdiag[:, j].max() / (g.ratio**2 * J) <= 10.0)
            if ok:
                expect.add((g.name, m.name))
        ranked, tried = result[j + 1].ranked, result[j + 1].tried
        assert tried == len(cat.gearboxes) * len(cat.motors)
        assert {(p.gearbox.name, p.motor.name) for p in ranked} == expect
        some_feasible |= bool(expect)
        some_not |= len(expect) < tried
        masses = [p.mass for p in ranked]
        assert masses == sorted(masses)
        assert all(p.margin >= 0 and p.mass_complete for p in ranked)
    assert some_feasible and some_not   # the case discriminates


def test_a_pair_reports_why_it_fails():
    model = load_project(robot_path("planar_two_link"))
    traj = quintic([0.0, 0.0], [1.0, 1.0], 0.5)
    load = cycle_loads(model, traj)[0]
    from designer.optimize.sizing import size_pair
    weak = size_pair(load, Gearbox("g", "planetary", 10, 1.0, 2.0), Motor("m", 10, 30, 300, 500, 1e-3))
    assert not weak.feasible and "gearbox peak torque" in weak.failed
    # the margin is allowed/actual - 1 of the peak joint torque, checked by hand
    assert weak.margins["gearbox peak torque"] == pytest.approx(2.0 / weak.peak_torque - 1)


def test_a_closed_chain_is_sized_in_its_actuated_joints():
    model = load_project(robot_path("palletizer_parallelogram"))
    from designer.explore.joints import explore_joints
    joints = explore_joints(model)
    q0 = np.zeros(joints.n)
    traj = quintic(q0, q0 + 0.2, 1.0, steps=101)
    loads = cycle_loads(model, traj)
    assert [ld.joint for ld in loads] == list(joints.numbers)
    # power balance along the cycle: the work of the joint torques is the change of the mechanism's energy
    from designer.numeric.mechanism import load_dynamics
    dyn = load_dynamics(model, springs=False).following()
    kinetic, potential = dyn.energy(traj.q, traj.qd)
    E = np.asarray(kinetic, float) + np.asarray(potential, float)
    power = sum(ld.torque * ld.speed for ld in loads)
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(traj.t))])
    np.testing.assert_allclose(work, E - E[0], atol=2e-3 * max(1.0, np.abs(E - E[0]).max()))


@pytest.mark.parametrize("robot", ["tube_arm", "puma560"])
def test_a_serial_arms_cycle_loads_equal_its_engines(robot):
    # the recursive algorithms run once on the cycle's columns (cycle_loads' serial path) against the engine's
    # generated code (the mechanism's tau and M), on random quintic moves
    from designer.numeric.engine import ArmDynamics
    from designer.numeric.mechanism import load_dynamics
    model = load_project(robot_path(robot))
    dyn = load_dynamics(model, springs=False)
    assert isinstance(dyn, ArmDynamics)
    rng = np.random.default_rng(3)
    for _ in range(3):
        traj = quintic(list(rng.uniform(-2, 2, dyn.n)), list(rng.uniform(-2, 2, dyn.n)), 0.7, steps=41)
        tau = dyn.tau(traj.q, traj.qd, traj.qdd)
        diagonal = np.diagonal(dyn.M(traj.q), axis1=-2, axis2=-1)
        loads = cycle_loads(model, traj, dyn=dyn)
        np.testing.assert_allclose(np.array([ld.torque for ld in loads]).T, tau, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(np.array([ld.inertia for ld in loads]).T, diagonal, rtol=1e-9, atol=1e-12)
