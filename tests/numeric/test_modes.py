"""Natural frequencies, tool compliance and sag, and the 4n-state linearization of elastic joints.

Independent sides: scipy.linalg.eigh on Pinocchio's crba with the same K; hand formulas for one
joint; Pinocchio's forward kinematics under joint deflections for the compliance and the sag;
finite differences of the forward dynamics for the linear model.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import eigh

from designer.control.linearize import elastic_linearize
from designer.model import Convention
from designer.numeric.elastic import ElasticArm, ElasticJoints
from designer.numeric.engine import arm_dynamics
from designer.numeric.modes import free_modes, locked_modes, lowest_frequency
from designer.numeric.stiffness import sag, tool_compliance
from tests.support.explore_pin import PinArm
from tests.support.pin_reference import pin, random_arm


def _joints(rng, n, rigid=()):
    k = rng.uniform(1e3, 5e4, n)
    k[list(rigid)] = np.inf
    return ElasticJoints.of(n, k, 0.0, rng.uniform(5.0, 100.0, n), rng.uniform(1e-5, 5e-4, n))


@pytest.mark.parametrize("seed", range(5))
def test_locked_frequencies_match_scipy_eigh_on_pinocchio_crba(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    arm = random_arm(rng, n, Convention.STANDARD if seed % 2 else Convention.MODIFIED)
    rigid = [0] if seed >= 3 else []
    joints = _joints(rng, n, rigid)
    ref = PinArm(arm)
    Q = rng.uniform(-np.pi, np.pi, (4, n))
    modes = locked_modes(arm_dynamics(arm).M(Q), joints)
    E = joints.elastic
    for q, f, V in zip(Q, modes.frequency, modes.shape):
        M = ref.M(q)[np.ix_(E, E)]
        w2 = eigh(np.diag(joints.stiffness[E]), M, eigvals_only=True)
        np.testing.assert_allclose(f, np.sqrt(w2) / (2 * np.pi), rtol=1e-9)
        # each shape solves K v = w^2 M v and leaves the rigid joints still
        for j in range(len(E)):
            v = V[E, j]
            np.testing.assert_allclose(joints.stiffness[E] * v, (2 * np.pi * f[j]) ** 2 * M @ v, rtol=1e-7,
                                       atol=1e-7 * np.abs(joints.stiffness[E] * v).max())
        assert np.all(V[rigid] == 0)


def test_one_joint_locked_and_free_against_the_hand_formulas():
    """A single elastic joint with a rigid link of inertia J about its axis: sqrt(k/J) with the motor
    locked, sqrt(k (J + N^2 Jm) / (J N^2 Jm)) with it free (the two-mass oscillator)."""
    rng = np.random.default_rng(2)
    arm = random_arm(rng, 1, Convention.STANDARD, joints="R", loads=False)
    k, N, Jm = 2.5e3, 40.0, 2e-4
    joints = ElasticJoints.of(1, k, 0.0, N, Jm)
    M = arm_dynamics(arm).M(np.zeros(1))
    J = float(M[0, 0])
    assert locked_modes(M, joints).frequency[0] == pytest.approx(np.sqrt(k / J) / (2 * np.pi), rel=1e-12)
    free = free_modes(M, joints)
    assert free.frequency[0] == pytest.approx(np.sqrt(k * (J + N ** 2 * Jm) / (J * N ** 2 * Jm)) / (2 * np.pi),
                                              rel=1e-10)
    # the link and the motor swing against each other, amplitudes in inverse ratio of their inertias
    assert free.shape[0, 0] / free.shape[1, 0] == pytest.approx(-N ** 2 * Jm / J, rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_free_frequencies_are_the_linear_models_oscillations(seed):
    """The free-motor frequencies are the imaginary parts of the 4n-state model's eigenvalues (undamped,
    no gravity: dG/dq left out on both sides), computed from an independent linearization."""
    rng = np.random.default_rng(seed)
    arm = random_arm(rng, 3, Convention.STANDARD)
    arm = type(arm)(**{**arm.__dict__, "gravity": np.zeros(3)})
    joints = _joints(rng, 3, [1] if seed == 2 else [])
    q = rng.uniform(-1, 1, 3)
    f = free_modes(arm_dynamics(arm).M(q), joints).frequency
    lin = elastic_linearize(arm, joints, q)
    osc = np.sort(np.abs(np.linalg.eigvals(lin.A).imag))[::2] / (2 * np.pi)
    np.testing.assert_allclose(np.sort(osc[osc > 1e-6 * osc.max()]), f, rtol=1e-7)


def test_frequencies_grow_as_the_square_root_of_the_stiffness():
    rng = np.random.default_rng(4)
    arm = random_arm(rng, 4, Convention.STANDARD)
    joints = _joints(rng, 4)
    M = arm_dynamics(arm).M(rng.uniform(-1, 1, (10, 4)))
    for motors in ("locked", "free"):
        f1 = lowest_frequency(M, joints, motors)
        f2 = lowest_frequency(M, joints.stiffened(1e6), motors)
        np.testing.assert_allclose(f2, 1e3 * f1, rtol=1e-8)
    assert np.all(lowest_frequency(M, joints.stiffened(np.inf)) == np.inf)


def _rotation_vector(R):
    return pin.log3(R)


@pytest.mark.parametrize("seed", range(4))
def test_tool_compliance_matches_the_tool_motion_under_the_joint_deflections(seed):
    """C F is the tool's displacement (and rotation) when each joint yields by F's torque over its
    stiffness, measured with Pinocchio's forward kinematics and Jacobian by finite differences."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    arm = random_arm(rng, n, Convention.STANDARD)
    joints = _joints(rng, n, [n - 1] if seed % 2 else [])
    ref = PinArm(arm)
    q = rng.uniform(-np.pi, np.pi, n)
    C = tool_compliance(arm, joints, q)
    np.testing.assert_allclose(C, C.T, atol=1e-15)
    comp = np.where(np.isfinite(joints.stiffness), 1 / joints.stiffness, 0.0)
    for _ in range(3):
        F = rng.normal(size=6) * [100, 100, 100, 10, 10, 10]
        eps = 1e-4
        dq = eps * comp * (ref.J(q).T @ F)
        pin.framesForwardKinematics(ref.model, ref.data, q)
        before = ref.data.oMf[ref.tool].copy()
        pin.framesForwardKinematics(ref.model, ref.data, q + dq)
        after = ref.data.oMf[ref.tool]
        motion = np.concatenate([after.translation - before.translation,
                                 _rotation_vector(after.rotation @ before.rotation.T)]) / eps
        np.testing.assert_allclose(C @ F, motion, rtol=1e-3, atol=1e-3 * np.abs(motion).max())


def test_sag_under_gravity_and_payload_matches_pinocchio():
    rng = np.random.default_rng(9)
    arm = random_arm(rng, 5, Convention.STANDARD)
    joints = _joints(rng, 5)
    joints = joints.stiffened(1e3)   # deflections of micrometres: first order holds to 1e-6
    ref = PinArm(arm)
    q = rng.uniform(-np.pi, np.pi, 5)
    payload = 3.0
    J = ref.J(q)
    hold = ref.G(q) - J[:3].T @ (payload * arm.gravity)
    dq = -hold / joints.stiffness
    moved = ref.tool_position(q + dq) - ref.tool_position(q)
    ours = sag(arm, joints, q, payload)
    np.testing.assert_allclose(ours, moved, rtol=1e-5, atol=1e-5 * np.abs(moved).max())


@pytest.mark.parametrize("seed", range(3))
def test_linear_model_matches_finite_differences_of_the_forward_dynamics(seed):
    rng = np.random.default_rng(seed)
    n = 3
    arm = random_arm(rng, n, Convention.STANDARD)
    joints = ElasticJoints.of(n, rng.uniform(1e2, 1e3, n), rng.uniform(0, 1, n), rng.uniform(5, 20, n),
                              rng.uniform(1e-3, 1e-2, n))
    if seed == 2:
        joints = ElasticJoints.of(n, [np.inf, 500.0, 300.0], 0.5, [10.0, 12.0, 8.0], 2e-3)
    model = ElasticArm(arm, joints)
    q0, qd0, qdd0 = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    lin = elastic_linearize(arm, joints, q0, qd0, qdd0)
    E, NE = model.E, model.NE
    tau_s = lin.M[E] @ qdd0 + (model.dyn.tau(q0, qd0, qdd0) - model.dyn.M(q0) @ qdd0)[E]
    th0 = NE * (q0[E] + tau_s / model.k)
    y0 = np.concatenate([q0, th0, qd0, NE * qd0[E]])
    f0 = model.derivative(y0, lin.tau0)
    np.testing.assert_allclose(f0, np.concatenate([qd0, NE * qd0[E], qdd0, NE * qdd0[E]]), atol=1e-8)
    h = 1e-6
    A = np.column_stack([(model.derivative(y0 + h * e, lin.tau0) - model.derivative(y0 - h * e, lin.tau0)) / (2 * h)
                         for e in np.eye(model.size)])
    B = np.column_stack([(model.derivative(y0, lin.tau0 + h * e) - model.derivative(y0, lin.tau0 - h * e)) / (2 * h)
                         for e in np.eye(n)])
    np.testing.assert_allclose(lin.A, A, rtol=1e-5, atol=1e-5 * np.abs(A).max())
    np.testing.assert_allclose(lin.B, B, rtol=1e-5, atol=1e-5 * np.abs(B).max())


@pytest.mark.parametrize("seed", range(3))
def test_free_frequencies_match_eigh_on_the_2n_body_pinocchio_model(seed):
    """The full model's frequencies from the 2n-body Pinocchio model (rotors as bodies on their own joints,
    its crba the mass matrix in (q, theta)) and the spring stiffness in (q, theta): [[K, -K/N], [-K/N, K/N^2]]."""
    from tests.numeric.test_elastic import _pin_2n
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    arm = random_arm(rng, n, Convention.STANDARD)
    joints = _joints(rng, n, [0] if seed == 2 else [])
    model = _pin_2n(arm, joints)
    data = model.createData()
    E, m = joints.elastic, joints.m
    q = rng.uniform(-np.pi, np.pi, n)
    Mf = pin.crba(model, data, np.concatenate([q, np.zeros(m)]))
    Mf = np.triu(Mf) + np.triu(Mf, 1).T
    k, N = joints.stiffness[E], joints.gear[E]
    Kf = np.zeros((n + m, n + m))
    Kf[E, E], Kf[n + np.arange(m), n + np.arange(m)] = k, k / N ** 2
    Kf[E, n + np.arange(m)] = Kf[n + np.arange(m), E] = -k / N
    w2 = eigh(Kf, Mf, eigvals_only=True)[n:]          # the n rigid-chain modes are at zero
    ours = free_modes(arm_dynamics(arm).M(q), joints).frequency
    np.testing.assert_allclose(ours, np.sqrt(w2) / (2 * np.pi), rtol=1e-7)
