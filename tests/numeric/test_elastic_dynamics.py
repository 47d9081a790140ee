"""ElasticDynamics, Spong's model as a mechanism answering the numeric Dynamics protocol over (q, theta_E):
against Pinocchio's two-body-per-joint model (the arm's chain plus a rotor body per elastic joint, tests of
test_elastic.py), the energy it reports (G is the gradient of its potential), the protocol's laws (M symmetric
positive definite, tau and qdd inverse to each other, h the Christoffel form plus the dampers), a passive closed
chain's energy added up by the test itself (test_closed_elastic.Energy), and load_dynamics choosing it by the
drive data."""

from __future__ import annotations

import numpy as np
import pytest

from designer.model import Convention
from designer.numeric import arm_dynamics
from designer.numeric.elastic import ElasticDynamics, ElasticJoints, ElasticModelError
from designer.numeric.mechanism import load_dynamics
from designer.numeric.protocol import Dynamics
from designer.project import load_project
from tests.numeric.test_elastic import _joints, _pin_2n
from tests.support import robot_path
from tests.support.pin_reference import pin, random_arm


def _serial(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    rigid = [i for i in range(n) if rng.random() < 0.4] if seed % 2 else []
    arm = random_arm(rng, n, Convention.STANDARD if seed % 3 else Convention.MODIFIED)
    joints = _joints(rng, n, rigid)
    return rng, arm, joints, ElasticDynamics(arm_dynamics(arm), joints)


@pytest.mark.parametrize("seed", range(6))
def test_mass_matrix_and_forward_dynamics_match_pinocchio_on_the_2n_body_model(seed):
    rng, arm, joints, dyn = _serial(seed)
    assert isinstance(dyn, Dynamics) and dyn.n == arm.n + joints.m
    model = _pin_2n(arm, joints)
    data = model.createData()
    E = joints.elastic
    for _ in range(4):
        x, xd, tau_m = rng.normal(size=dyn.n), rng.normal(size=dyn.n), rng.normal(size=arm.n)
        M = pin.crba(model, data, x)
        M = np.triu(M) + np.triu(M, 1).T
        np.testing.assert_allclose(dyn.M(x), M, rtol=1e-10, atol=1e-12 * np.abs(M).max())
        # the springs and dampers as joint torques on Pinocchio's side, computed here from their definition
        q, th = x[:arm.n], x[arm.n:]
        qd, thd = xd[:arm.n], xd[arm.n:]
        spring = joints.stiffness[E] * (th / joints.gear[E] - q[E]) + joints.damping[E] * (thd / joints.gear[E] - qd[E])
        link = joints.gear * tau_m
        link[E] = spring
        expected = pin.aba(model, data, x, xd, np.concatenate([link, tau_m[E] - spring / joints.gear[E]]))
        np.testing.assert_allclose(dyn.qdd(x, xd, dyn.generalized(tau_m)), expected, rtol=1e-9,
                                   atol=1e-9 * np.abs(expected).max())


@pytest.mark.parametrize("seed", range(4))
def test_protocol_laws_over_a_batch(seed):
    rng, arm, joints, dyn = _serial(seed)
    x, xd, xdd = (rng.normal(size=(3, 2, dyn.n)) for _ in range(3))
    M = dyn.M(x)
    assert M.shape == (3, 2, dyn.n, dyn.n)
    np.testing.assert_allclose(M, np.swapaxes(M, -1, -2), atol=1e-12 * np.abs(M).max())
    assert np.linalg.eigvalsh(M).min() > 0
    tau = dyn.tau(x, xd, xdd)
    np.testing.assert_allclose(dyn.qdd(x, xd, tau), xdd, rtol=1e-8, atol=1e-8 * np.abs(xdd).max())
    # h: the Christoffel form of the link side plus the dampers, d (theta'/N - q'_E)
    E = joints.elastic
    N = joints.gear[E]
    damper = joints.damping[E] * (xd[..., arm.n:] / N - xd[..., E])
    quadratic = np.einsum("...j,...ijk,...k->...i", xd, dyn.christoffel(x), xd)
    quadratic[..., E] -= damper
    quadratic[..., arm.n:] += damper / N
    np.testing.assert_allclose(dyn.h(x, xd), quadratic, rtol=1e-9, atol=1e-9 * np.abs(quadratic).max())
    # G is the gradient of the potential energy the engine reports (central differences)
    e = 1e-6
    x0 = x[0, 0]
    grad = np.array([(dyn.energy(x0 + d, 0 * x0)[1] - dyn.energy(x0 - d, 0 * x0)[1]) / (2 * e)
                     for d in np.eye(dyn.n) * e])
    np.testing.assert_allclose(dyn.G(x0), grad, rtol=1e-6, atol=1e-6 * np.abs(grad).max())
    # the kinetic energy is 1/2 x'^T M x'
    kinetic = dyn.energy(x, xd)[0]
    np.testing.assert_allclose(kinetic, 0.5 * np.einsum("...i,...ij,...j->...", xd, M, xd), rtol=1e-10)
    # the Jacobians: the link side's, the motors' columns zero
    Jv, Jw = dyn.com_jacobians(x)
    assert Jv.shape[-1] == dyn.n and not Jv[..., arm.n:].any() and not dyn.tool_jacobian(x)[..., arm.n:].any()
    np.testing.assert_allclose(dyn.tool_jacobian(x)[..., :arm.n], arm_dynamics(arm).tool_jacobian(x[..., :arm.n]))


def test_a_rigid_arm_is_the_case_without_springs():
    """m = 0: the link side with the rotors' reflected inertia on M's diagonal (Pinocchio's armature)."""
    rng = np.random.default_rng(4)
    arm = random_arm(rng, 3, Convention.STANDARD)
    joints = _joints(rng, 3, rigid=range(3))
    dyn = ElasticDynamics(arm_dynamics(arm), joints)
    assert dyn.n == 3
    x = rng.normal(size=3)
    np.testing.assert_allclose(dyn.M(x), arm_dynamics(arm).M(x) + np.diag(joints.gear ** 2 * joints.rotor))
    np.testing.assert_allclose(dyn.G(x), arm_dynamics(arm).G(x))


def test_a_passive_elastic_closed_chain_keeps_the_energy_the_test_adds_up():
    """A soft-sprung four-bar integrated through the protocol alone (qdd of the following engine); its energy summed
    by test_closed_elastic.Energy (Pinocchio on the spanning tree, rotors and springs from their definitions)."""
    from scipy.integrate import solve_ivp
    from tests.numeric.test_closed_elastic import Energy, mechanism
    model = mechanism("plain", 50.0, seed=3)
    dyn = load_dynamics(model)
    assert isinstance(dyn, ElasticDynamics)
    follow = dyn.following()
    n = dyn.n
    x0 = follow.equilibrium([0.1])
    x0[1:] += 0.02 * follow.model.NE
    xd0 = np.concatenate([[0.4], np.zeros(n - 1)])
    zero = np.zeros(n)
    sol = solve_ivp(lambda t, y: np.concatenate([y[n:], follow.qdd(y[:n], y[n:], zero)]), (0.0, 0.15),
                    np.concatenate([x0, xd0]), method="DOP853", rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 0.15, 12))
    link = dyn.link.n
    energy = Energy(model, dyn.link, dyn.joints)
    E = np.array([energy(y[:link], y[link:n], y[n:n + link], y[n + link:]) for y in sol.y.T])
    ours = np.sum(dyn.energy(sol.y.T[:, :n], sol.y.T[:, n:]), axis=0)
    swing = np.ptp(ours)
    springs = dyn.energy(sol.y.T[:, :n], 0 * sol.y.T[:, n:])[1]
    assert np.ptp(springs) > 1e-4 * abs(E[0])
    assert np.abs(E - E[0]).max() < 1e-6 * max(np.ptp(springs), 1e-12)
    np.testing.assert_allclose(ours - ours[0], E - E[0], atol=1e-6 * np.ptp(springs) + 1e-12)
    assert swing < 1e-6 * np.ptp(springs) + 1e-12
    # the closed chain's extras are the link side's
    np.testing.assert_allclose(dyn.positions(x0), dyn.link.positions(x0[:link]))
    assert dyn.residual(x0) < 1e-9


def test_load_dynamics_gives_the_elastic_model_where_the_drive_data_have_springs():
    loaded = load_project(robot_path("tube_arm"))
    model = getattr(loaded, "model", loaded)
    dyn = load_dynamics(model)
    assert isinstance(dyn, ElasticDynamics) and dyn.n == 6 and dyn.link.n == 3
    assert load_dynamics(model, springs=False).n == 3
    rigid = load_project(robot_path("puma560"))
    assert load_dynamics(getattr(rigid, "model", rigid)).n == 6
    with pytest.raises(ElasticModelError, match="stiffness of joint"):
        ElasticJoints.of(2, [1e3, 0.0])
