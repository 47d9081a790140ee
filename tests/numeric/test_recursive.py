"""The numeric recursive dynamics against Pinocchio and against physical laws."""

from __future__ import annotations

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric import arm_dynamics, recursive as rec
from designer.project import load_project

from tests.support.pin_reference import pin, pin_model, random_arm
from tests.support import robot_path

CASES = [(Convention.STANDARD, "RRRRRR"), (Convention.MODIFIED, "RRPRRRR"), (Convention.STANDARD, "RPRPR"),
         (Convention.MODIFIED, "PRPR"), (Convention.STANDARD, None), (Convention.MODIFIED, None)]


def _close(a, b, tol=1e-10):
    scale = max(1.0, float(np.max(np.abs(b))))
    assert np.max(np.abs(np.asarray(a) - np.asarray(b))) <= tol * scale, (a, b)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("convention,joints", CASES)
def test_matches_pinocchio(seed, convention, joints):
    rng = np.random.default_rng(seed)
    arm = random_arm(rng, 5, convention, joints)
    model = pin_model(arm)
    data = model.createData()
    for _ in range(3):
        q, qd, qdd = (rng.uniform(-2, 2, arm.n) for _ in range(3))
        _close(rec.rnea(arm, q, qd, qdd), pin.rnea(model, data, q, qd, qdd))
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        _close(rec.mass_matrix(arm, q), M)
        _close(rec.gravity_torque(arm, q), pin.computeGeneralizedGravity(model, data, q))
        _close(rec.bias(arm, q, qd),
               pin.nonLinearEffects(model, data, q, qd) - pin.computeGeneralizedGravity(model, data, q))
        C_pin = pin.computeCoriolisMatrix(model, data, q, qd)
        _close(rec.coriolis_matrix(arm, q, qd) @ qd, C_pin @ qd)


@pytest.mark.parametrize("convention", list(Convention))
def test_coefficients_rebuild_tau(convention):
    rng = np.random.default_rng(7)
    arm = random_arm(rng, 6, convention)
    q, qd, qdd = (rng.uniform(-2, 2, arm.n) for _ in range(3))
    B, C = rec.coriolis_coefficients(arm, q)
    n = arm.n
    assert B.shape == (n, n * (n - 1) // 2) and C.shape == (n, n)
    qq = np.array([qd[j] * qd[k] for j in range(n) for k in range(j + 1, n)])
    tau = rec.mass_matrix(arm, q) @ qdd + 2 * B @ qq + C @ qd**2 + rec.gravity_torque(arm, q)
    _close(tau, rec.rnea(arm, q, qd, qdd))


@pytest.mark.parametrize("convention", list(Convention))
def test_christoffel_from_mass_matrix_derivatives(convention):
    """Gamma_ijk = (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) / 2, by central differences of M."""
    rng = np.random.default_rng(11)
    arm = random_arm(rng, 4, convention)
    q = rng.uniform(-2, 2, arm.n)
    eps = 1e-6
    dM = np.array([(rec.mass_matrix(arm, q + eps * e) - rec.mass_matrix(arm, q - eps * e)) / (2 * eps)
                   for e in np.eye(arm.n)])  # dM[k] = dM/dq_k
    expected = 0.5 * (np.einsum("kij->ijk", dM) + np.einsum("jik->ijk", dM) - dM)
    assert np.allclose(rec.christoffel(arm, q), expected, atol=1e-6)
    # dM/dt - 2C skew-symmetric
    qd = rng.uniform(-2, 2, arm.n)
    S = np.einsum("kij,k->ij", dM, qd) - 2 * rec.coriolis_matrix(arm, q, qd)
    assert np.allclose(S, -S.T, atol=1e-6)


def test_mass_matrix_positive_definite():
    rng = np.random.default_rng(3)
    for convention in Convention:
        arm = random_arm(rng, 7, convention)
        for _ in range(5):
            M = rec.mass_matrix(arm, rng.uniform(-3, 3, arm.n))
            assert np.allclose(M, M.T) and np.linalg.eigvalsh(M).min() > 0


def test_double_pendulum_gravity_by_hand():
    """ROBMAT's double pendulum, gravity g along base x: G by statics of two point masses."""
    arm = NumericArm.from_model(load_project(robot_path("double_pendulum")))
    L1, L2, m1, m2, g = 1.0, 0.8, 2.0, 1.0, 9.81
    q1, q2 = 0.3, -1.1
    G = [-(m1 + m2) * g * L1 * np.sin(q1) - m2 * g * L2 * np.sin(q1 + q2), -m2 * g * L2 * np.sin(q1 + q2)]
    # torque holding the arm = -(generalized gravity force) = d V/dq with V = -g m x
    _close(rec.gravity_torque(arm, [q1, q2]), -np.array(G))
    M11 = m1 * L1**2 + m2 * (L1**2 + L2**2 + 2 * L1 * L2 * np.cos(q2))
    _close(rec.mass_matrix(arm, [q1, q2])[0, 0], M11)


def test_energy_derivative_is_power():
    """d(T+V)/dt = qd . (tau - ...) : with tau = rnea(q, qd, qdd), dE/dt = qd . tau."""
    rng = np.random.default_rng(5)
    arm = random_arm(rng, 5, Convention.MODIFIED)
    q, qd, qdd = (rng.uniform(-1, 1, arm.n) for _ in range(3))
    tau = rec.rnea(arm, q, qd, qdd)
    E = lambda t: float(sum(arm_dynamics(arm).energy(q + t * qd + 0.5 * t * t * qdd, qd + t * qdd)))  # noqa: E731
    h = 1e-5
    assert abs((E(h) - E(-h)) / (2 * h) - qd @ tau) < 1e-6 * max(1, abs(qd @ tau))


def test_wrong_length():
    arm = random_arm(np.random.default_rng(0), 3, Convention.STANDARD)
    with pytest.raises(ValueError, match="qd"):
        rec.rnea(arm, [0, 0, 0], [0, 0], [0, 0, 0])
