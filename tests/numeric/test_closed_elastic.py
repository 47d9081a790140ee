"""The elastic-joint model of closed chains (numeric/closed_elastic.py over numeric/elastic.py) against
independent sides:

- energy: a passive elastic palletizer and random four-bars, stiff and soft springs, keep the energy the
  test adds up itself: the links' kinetic and potential energy from Pinocchio on the spanning tree (its
  velocities from a W of central differences of the closure), the rotors' 1/2 Jm theta'^2 and the springs'
  1/2 k (theta/N - q)^2;
- K -> infinity: the elastic motion approaches the rigid closed-chain simulation with the rotors' reflected
  inertia (numeric/simulate.py, --drives), which is integrated by its own code;
- linearize: finite differences of the simulation's right-hand side give A and B.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from designer.control.linearize import elastic_linearize_closed
from designer.model.extras import Drive
from designer.numeric.closed import ClosedDynamics
from designer.numeric.elastic import ElasticArm, ElasticDynamics, ElasticModelError, elastic_joints
from designer.numeric.simulate import simulate
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, pin_mechanism


def with_gearboxes(model, k: float, rng, rotor=(1e-4, 1e-3)):
    """``model`` with a drive of stiffness k (N m/rad, times a random factor), gear ratio and rotor on each
    actuated joint; the first of several stays rigid (its rotor's N^2 Jm then adds to M_a)."""
    act = [i for i, link in enumerate(model.links) if link.actuated]
    links = list(model.links)
    for i in act:
        rigid = len(act) > 1 and i == act[0]
        links[i] = replace(links[i], drive=Drive(stiffness=None if rigid else float(k * rng.uniform(0.5, 2.0)),
                                                 gear_ratio=float(rng.uniform(20, 120)),
                                                 motor_inertia=float(rng.uniform(*rotor))))
    return replace(model, links=tuple(links))


def palletizer():
    loaded = load_project(robot_path("palletizer_parallelogram"))
    return getattr(loaded, "model", loaded)


def mechanism(kind: str, k: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    base = palletizer() if kind == "palletizer" else four_bar(rng, mounted=kind == "mounted")
    return with_gearboxes(base, k, rng)


def elastic(model, follow=True):
    cd = ClosedDynamics(model)
    return cd, ElasticArm(None, elastic_joints(model), cd.following() if follow else cd)


class Energy:
    """The whole energy at elastic states, added up in the test (module docstring)."""

    def __init__(self, model, cd, joints):
        import pinocchio as pin
        self.pin, self.cd, self.joints = pin, cd, joints
        self.pm, _, self.order = pin_mechanism(model)
        self.data = self.pm.createData()

    def __call__(self, q_a, theta, qd_a, thetad) -> float:
        cd, pin, o, j = self.cd, self.pin, self.order, self.joints
        q = cd.positions(q_a)
        e = 1e-6
        W = np.stack([(cd.closure.solve(q_a + d, q) - cd.closure.solve(q_a - d, q)) / (2 * e)
                      for d in np.eye(cd.n) * e], 1)
        qd = W @ qd_a
        links = (pin.computeKineticEnergy(self.pm, self.data, q[o], qd[o])
                 + pin.computePotentialEnergy(self.pm, self.data, q[o]))
        E, N = j.elastic, j.gear
        rotors = 0.5 * np.sum(j.rotor[E] * thetad ** 2) + 0.5 * np.sum((N ** 2 * j.rotor)[j.rigid] * qd_a[j.rigid] ** 2)
        springs = 0.5 * np.sum(j.stiffness[E] * (theta / N[E] - q_a[E]) ** 2)
        return float(links + rotors + springs)


def _start(ea, q0, seed):
    """At rest at q0 with the springs holding gravity, then each motor turned by up to 20 mrad (joint side) and the
    links set moving: every spring and link works."""
    rng = np.random.default_rng(seed)
    y = ea.equilibrium(np.asarray(q0, dtype=float))
    n, m = ea.n, ea.m
    y[n:n + m] += ea.NE * rng.uniform(-0.02, 0.02, m)
    y[n + m:2 * n + m] = rng.uniform(-0.5, 0.5, n)
    return y


#: (mechanism, stiffness scale N m/rad, seconds): a few periods of the fastest spring mode (the stiff four-bar's
#: crank rings at about 100 Hz, the palletizer's wrist at 200 Hz), more of the soft ones
CASES = [("palletizer", 2e5, 0.015), ("palletizer", 2e3, 0.1), ("plain", 1e4, 0.03), ("plain", 50.0, 0.15),
         ("mounted", 1e4, 0.03)]


@pytest.mark.parametrize("kind,k,seconds", CASES, ids=[f"{a}-{b:g}" for a, b, _ in CASES])
def test_a_passive_elastic_closed_chain_keeps_its_energy(kind, k, seconds):
    model = mechanism(kind, k, seed=3)
    cd, ea = elastic(model)
    q0 = [0.1, 0.2, 0.3, -0.2][:cd.n]
    y0 = _start(ea, q0, seed=1)
    k = ea.n + ea.m
    traj = simulate(ElasticDynamics(cd.following(), ea.joints), y0[:k], y0[k:], (0.0, seconds), rtol=1e-9, atol=1e-11)
    energy = Energy(model, cd, ea.joints)
    rows = np.linspace(0, len(traj.t) - 1, 12).astype(int)
    E = np.array([energy(traj.q[r], traj.theta[r], traj.qd[r], traj.thetad[r]) for r in rows])
    springs = np.array([0.5 * np.sum(ea.k * (traj.theta[r] / ea.NE - traj.q[r][ea.E]) ** 2) for r in rows])
    swing = max(np.ptp(springs), np.ptp(E - springs))   # the energy the motion moves between its stores
    assert swing > 1e-4 * abs(E[0])
    assert np.abs(E - E[0]).max() < 1e-6 * swing, (np.abs(E - E[0]).max(), swing)
    # the energy the model reports is the same sum
    np.testing.assert_allclose(ea.energy(traj.states()[rows]) - ea.energy(traj.states()[0]), E - E[0],
                               atol=1e-6 * swing)


@pytest.mark.parametrize("kind", ["palletizer", "mounted"])
def test_very_stiff_springs_approach_the_rigid_closed_simulation(kind):
    """The rigid arm with its rotors turning with their joints (reflected inertia N^2 Jm on the actuated
    coordinates, simulate --drives) is the K -> infinity limit: the gap shrinks as K grows. Both start moving
    with free motors, the springs preloaded by what turns the rotors with their links (N^2 Jm q''), so that
    the spring modes stay quiet and the integrator follows the slow motion."""
    q0 = np.array([0.1, 0.2, 0.3, -0.2] if kind == "palletizer" else [0.1, 0.2])
    qd0 = np.array([0.3, -0.4, 0.2, 0.5])[:len(q0)]
    t = np.linspace(0.0, 0.25, 6)
    gaps = []
    for k in (1e5, 1e7):
        model = mechanism(kind, k, seed=4)
        cd, ea = elastic(model)
        y0 = ea.rigid_state(q0, qd0)
        rigid_model = ElasticArm(None, ea.joints.stiffened(np.inf), cd)
        qdd = rigid_model.accelerations(np.concatenate([q0, qd0]), np.zeros(ea.n))[0]
        y0[ea.n:ea.n + ea.m] += ea.NE * (-ea.NE ** 2 * ea.Jm * qdd[ea.E]) / ea.k
        k = ea.n + ea.m
        traj = simulate(ElasticDynamics(cd.following(), ea.joints), y0[:k], y0[k:], (0.0, t[-1]), rtol=1e-8,
                        atol=1e-10, t_eval=t)
        rigid = simulate(ClosedDynamics(model), q0, qd0, (0.0, t[-1]), t_eval=t, drives=True)
        assert np.ptp(rigid.q, axis=0).max() > 0.02          # the arm moves
        gaps.append(np.abs(traj.q - rigid.q).max())
    assert gaps[1] < 0.05 * gaps[0] and gaps[1] < 1e-4, gaps


@pytest.mark.parametrize("kind", ["palletizer", "plain", "mounted"])
def test_finite_differences_of_the_right_hand_side_give_the_linear_model(kind):
    """Soft springs (30 to 120 N m/rad) keep the link side's own derivatives (gravity's, the velocity terms')
    a visible part of A."""
    model = mechanism(kind, 60.0, seed=5)
    cd, ea = elastic(model, follow=False)
    rng = np.random.default_rng(2)
    n, m, E, NE = ea.n, ea.m, ea.E, ea.NE
    q0, qd0, qdd0 = rng.uniform(-0.2, 0.2, n), rng.uniform(-0.5, 0.5, n), rng.uniform(-1, 1, n)
    lm = elastic_linearize_closed(cd, ea.joints, q0, qd0, qdd0)
    # the operating point's state: the springs carry the link side's torque at qdd0 (tau_a by the tree's RNEA)
    tau_a = cd.tau(q0, qd0, qdd0)
    y0 = np.concatenate([q0, NE * (q0[E] + tau_a[E] / ea.k), qd0, NE * qd0[E]])
    rhs = ea.scalar_rhs(lambda t, s: list(lm.tau0))
    np.testing.assert_allclose(rhs(0.0, y0)[n + m:2 * n + m], qdd0, atol=1e-8)    # it is the operating point
    h = 1e-6
    A = np.stack([(rhs(0.0, y0 + d) - rhs(0.0, y0 - d)) / (2 * h) for d in np.eye(ea.size) * h], axis=1)
    link = slice(n + m, 2 * n + m)    # the link side's rows, to their own scale
    np.testing.assert_allclose(lm.A[link], A[link], rtol=1e-6, atol=1e-7 * np.abs(A[link]).max())
    np.testing.assert_allclose(lm.A, A, rtol=1e-6, atol=1e-7 * np.abs(A).max())
    B = np.stack([(ea.derivative(y0, lm.tau0 + d) - ea.derivative(y0, lm.tau0 - d)) / (2 * h)
                  for d in np.eye(n) * h], axis=1)
    np.testing.assert_allclose(lm.B, B, rtol=1e-6, atol=1e-7 * np.abs(B).max())


@pytest.mark.parametrize("kind", ["palletizer", "mounted"])
def test_at_the_equilibrium_the_springs_hold_gravity(kind):
    """theta/N - q = G_a / k with G_a = W^T (Pinocchio's RNEA gravity of the spanning tree), W by central
    differences of the closure; the links then stay at rest."""
    import pinocchio as pin
    model = mechanism(kind, 1e4, seed=6)
    cd, ea = elastic(model, follow=False)
    q0 = np.array([0.2, -0.1, 0.3, 0.1][:cd.n])
    y = ea.equilibrium(q0)
    pm, _, o = pin_mechanism(model)
    q = cd.positions(q0)
    e = 1e-6
    W = np.stack([(cd.closure.solve(q0 + d, q) - cd.closure.solve(q0 - d, q)) / (2 * e) for d in np.eye(cd.n) * e], 1)
    g = np.empty(len(q))
    g[o] = pin.rnea(pm, pm.createData(), q[o], np.zeros(len(q)), np.zeros(len(q)))
    G = W.T @ g
    assert np.abs(G[ea.E]).max() > 1.0
    n, m = ea.n, ea.m
    np.testing.assert_allclose(ea.k * (y[n:n + m] / ea.NE - q0[ea.E]), G[ea.E], rtol=1e-7)
    # at rest there with the rigid joints' motors holding their gravity (N tau_m = G)
    tau_m = np.where(np.isin(np.arange(n), ea.E), 0.0, G / ea.N)
    tau_m[ea.E] = G[ea.E] / ea.NE      # and the elastic motors holding their springs
    qdd, thetadd = ea.accelerations(y, tau_m)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-7 * np.abs(G).max())
    np.testing.assert_allclose(thetadd * ea.Jm * ea.NE, 0.0, atol=1e-7 * np.abs(G).max())


def test_a_passive_joint_with_stiffness_is_refused_naming_it():
    model = mechanism("palletizer", 1e5)
    links = list(model.links)
    links[4] = replace(links[4], drive=Drive(stiffness=1e4))
    with pytest.raises(ElasticModelError, match=r"passive joint\(s\) 5 .*only the actuated joints"):
        elastic_joints(replace(model, links=tuple(links)))


def test_a_parallelograms_right_hand_side_is_flat_code_and_the_checked_path():
    """The elastic palletizer (a linear closure, joint 1 rigid with its rotor) runs its right-hand side as traced flat
    code (Python, and C when there is a compiler); both give the checked path's numbers (M_a + R, h_a, G_a solved
    with numpy) at random states. A four-bar (nonlinear closure) keeps the checked path."""
    rng = np.random.default_rng(5)
    cd, ea = elastic(mechanism("palletizer", 2e4))
    assert ea.flat is not None and len(ea.R) == 1 and ea.reflected[ea.R[0]] > 0
    native = ea.flat.native
    par = np.concatenate([ea.N, ea.reflected, ea.k, ea.d, ea.Jm])
    for _ in range(5):
        y = np.concatenate([rng.uniform(-0.8, 0.8, ea.n), ea.NE * rng.uniform(-0.8, 0.8, ea.m),
                            rng.normal(size=ea.n + ea.m)])
        tau_m = rng.normal(size=ea.n)
        want = ea.derivative(y, tau_m)
        out = np.array(ea.flat.python(y.tolist(), tau_m.tolist(), par.tolist()))
        got = np.concatenate([y[ea.n + ea.m:], out[:ea.n], out[2 * ea.n:]])
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
        if native is not None:
            dy = np.empty(ea.size)
            assert native.rhs(y, tau_m, par, dy)
            np.testing.assert_allclose(dy, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
    assert elastic(mechanism("plain", 1e4))[1].flat is None
