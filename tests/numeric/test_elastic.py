"""The elastic-joint model against Pinocchio, hand results and physical laws.

Pinocchio reference: the 2n-body model, the arm's chain plus one rotor body per elastic joint, its
axial inertia Jm about a joint of its own, and the springs as joint torques. The rotors hang on the
base: the reduced model's assumption (a rotor's kinetic energy is that of its own spin) then holds
exactly, so both sides must agree to rounding. A rigid joint's reflected inertia is Pinocchio's
``armature``.
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.model import Convention
from designer.numeric import arm_dynamics
from designer.numeric.elastic import ElasticArm, ElasticDynamics, ElasticJoints, ElasticModelError
from designer.numeric.simulate import PDControl, quintic, simulate
from tests.support.pin_reference import pin, pin_model, random_arm


def _joints(rng, n, rigid=()):
    k = rng.uniform(2e2, 2e3, n)
    k[list(rigid)] = np.inf
    return ElasticJoints.of(n, k, rng.uniform(0.0, 2.0, n), rng.uniform(2.0, 50.0, n) * rng.choice([-1, 1], n),
                            rng.uniform(1e-4, 1e-3, n))


def _pin_2n(arm, joints):
    model = pin_model(arm)
    for j in joints.elastic:
        jid = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), f"rotor{j + 1}")
        model.appendBodyToJoint(jid, pin.Inertia(0.0, np.zeros(3), np.diag([0.0, 0.0, joints.rotor[j]])),
                                pin.SE3.Identity())
    model.armature = np.concatenate([joints.reflected, np.zeros(joints.m)])
    return model


def _pin_accelerations(model, data, ours, joints, y, tau_m) -> np.ndarray:
    """(q'', theta_E'') of the state ``y`` under motor torques ``tau_m`` from Pinocchio's aba on the 2n-body model:
    the springs' torques on the links and on the rotors, a rigid joint driven through its gear."""
    E, N = joints.elastic, joints.gear
    q, th, qd, thd = ours.split(y)
    ts = ours.spring(q, th, qd, thd)
    tau = N * tau_m
    tau[E] = ts
    return pin.aba(model, data, np.concatenate([q, th]), np.concatenate([qd, thd]),
                   np.concatenate([tau, tau_m[E] - ts / N[E]]))


@pytest.mark.parametrize("seed", range(6))
def test_forward_dynamics_matches_pinocchio_aba_on_the_2n_body_model(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    rigid = [i for i in range(n) if rng.random() < 0.3] if seed % 2 else []
    arm = random_arm(rng, n, Convention.STANDARD if seed % 3 else Convention.MODIFIED)
    joints = _joints(rng, n, rigid)
    ours = ElasticArm(arm, joints)
    model = _pin_2n(arm, joints)
    data = model.createData()
    for _ in range(5):
        y = rng.normal(size=ours.size)
        tau_m = rng.normal(size=n)
        qdd, thdd = ours.accelerations(y, tau_m)
        a = _pin_accelerations(model, data, ours, joints, y, tau_m)
        np.testing.assert_allclose(np.concatenate([qdd, thdd]), a, rtol=1e-9, atol=1e-9 * np.abs(a).max())



@pytest.mark.parametrize("seed", range(4))
def test_the_integrators_right_hand_side_matches_pinocchio_with_rigid_joints_carrying_rotors(seed):
    """scalar_rhs (the traced flat code, as generated Python and as machine code) against Pinocchio's aba on the
    2n-body model, with rigid joints whose rotors' reflected inertia is Pinocchio's armature."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 7))
    rigid = sorted(set(rng.choice(n, size=max(1, n // 2), replace=False).tolist()))
    arm = random_arm(rng, n, list(Convention)[seed % 2])
    joints = _joints(rng, n, rigid if seed else [])
    ours = ElasticArm(arm, joints)
    assert ours.flat is not None
    model = _pin_2n(arm, joints)
    data = model.createData()
    native = ours.flat.native
    par = np.concatenate([ours.N, ours.reflected, ours.k, ours.d, ours.Jm])
    for _ in range(5):
        y = rng.normal(size=ours.size)
        tau_m = rng.normal(size=n)
        _, _, qd, thd = ours.split(y)
        a = _pin_accelerations(model, data, ours, joints, y, tau_m)
        want = np.concatenate([qd, thd, a])
        law = tau_m.tolist()
        got = ours.scalar_rhs(lambda t, s, u=law: u)(0.0, y)   # a fresh arm's first call: the Python
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())
        flat = np.array(ours.flat.python(y.tolist(), tau_m.tolist(), par.tolist()))   # q'', pivots, theta''
        np.testing.assert_allclose(np.concatenate([flat[:n], flat[2 * n:]]), a, rtol=1e-9, atol=1e-9 * np.abs(a).max())
        if native is not None:
            dy = np.empty(ours.size)
            assert native.rhs(y, tau_m, par, dy)
            np.testing.assert_allclose(dy, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def test_energy_with_springs_is_conserved_without_control_and_falls_with_damping():
    rng = np.random.default_rng(3)
    arm = random_arm(rng, 3, Convention.STANDARD)
    joints = _joints(rng, 3)
    undamped = ElasticJoints(joints.stiffness, np.zeros(3), joints.gear, joints.rotor)
    ours = ElasticArm(arm, undamped)
    y0 = ours.equilibrium(rng.uniform(-1, 1, 3))
    y0[3:6] += rng.uniform(-0.5, 0.5, 3) * np.abs(joints.gear)   # motors off their rest angles
    y0[6:9] = rng.uniform(-1, 1, 3)
    n = ours.n + ours.m
    run = simulate(ElasticDynamics(arm_dynamics(arm), undamped), y0[:n], y0[n:], (0.0, 0.5), method="DOP853",
                   rtol=1e-10, atol=1e-12)
    e = ours.energy(run.states())
    assert np.ptp(e) < 1e-7 * np.abs(e).max()
    assert np.ptp(run.theta[:, 0]) > 1e-2   # the motors did move
    damped = simulate(ElasticDynamics(arm_dynamics(arm), joints), y0[:n], y0[n:], (0.0, 0.5), method="Radau",
                      rtol=1e-9, atol=1e-11)
    e = ElasticArm(arm, joints).energy(damped.states())
    assert e[-1] < e[0] - 1e-3 * abs(e[0]) and np.all(np.diff(e) < 1e-7 * np.abs(e).max())


def test_two_mass_oscillator_rings_at_the_hand_frequency():
    """One joint, no gravity, no damping: the link (inertia J) and the motor (N^2 Jm at the joint)
    oscillate against the spring at w = sqrt(k (1/J + 1/(N^2 Jm))), read from the motion's zero crossings."""
    rng = np.random.default_rng(5)
    arm = random_arm(rng, 1, Convention.STANDARD, joints="R", loads=False)
    arm = type(arm)(**{**arm.__dict__, "gravity": np.zeros(3)})
    ours = ElasticArm(arm, ElasticJoints.of(1, 400.0, 0.0, 20.0, 5e-4))
    J = float(ours.dyn.M(np.zeros(1))[0, 0])
    w = np.sqrt(400.0 * (1 / J + 1 / (20.0 ** 2 * 5e-4)))
    y0 = np.array([0.0, 20.0 * 0.01, 0.0, 0.0])    # the motor 0.01 rad (joint side) ahead, at rest
    t = np.linspace(0, 20 * 2 * np.pi / w, 4001)
    run = simulate(ElasticDynamics(arm_dynamics(arm), ours.joints), y0[:2], y0[2:], (0.0, t[-1]), method="DOP853",
                   rtol=1e-10, atol=1e-13, t_eval=t)
    deflection = run.theta[:, 0] / 20.0 - run.q[:, 0]
    up = np.flatnonzero((deflection[:-1] < 0) & (deflection[1:] >= 0))
    crossings = t[up] - deflection[up] * (t[up + 1] - t[up]) / (deflection[up + 1] - deflection[up])
    period = np.diff(crossings).mean()
    assert period == pytest.approx(2 * np.pi / w, rel=1e-6)


def test_stiff_joints_recover_the_rigid_arm_with_reflected_inertia():
    """K -> infinity: the elastic run under the motor PD approaches the rigid arm (Pinocchio's aba
    with armature N^2 Jm) under the same PD at the joint, integrated by scipy."""
    from scipy.integrate import solve_ivp
    rng = np.random.default_rng(8)
    arm = random_arm(rng, 3, Convention.STANDARD)
    n = 3
    N, Jm = np.array([30.0, 40.0, 20.0]), np.array([3e-4, 2e-4, 1e-4])
    kp, kd = np.array([300.0, 200.0, 100.0]), np.array([30.0, 20.0, 10.0])
    start, target = np.zeros(n), np.array([0.5, -0.4, 0.3])
    pd = PDControl(kp, kd, target, start, 0.5)
    model = pin_model(arm)
    model.armature = N ** 2 * Jm
    data = model.createData()

    def rigid(t, y):
        qr, vr = (np.array(v) for v in quintic(start, target, 0.5, t))
        u = kp * (qr - y[:n]) + kd * (vr - y[n:]) + pin.computeGeneralizedGravity(model, data, qr)
        return np.concatenate([y[n:], pin.aba(model, data, y[:n], y[n:], u)])
    t = np.linspace(0, 1.0, 51)
    ref = solve_ivp(rigid, (0, 1.0), np.zeros(2 * n), method="Radau", rtol=1e-10, atol=1e-12, t_eval=t).y[:n].T
    errors = []
    for k in (1e4, 1e6):
        joints = ElasticJoints.of(n, k, 0.02 * np.sqrt(k), N, Jm)
        run = simulate(ElasticDynamics(arm_dynamics(arm), joints), start, None, (0.0, 1.0), pd, method="Radau",
                       rtol=1e-8, atol=1e-10, t_eval=t)
        errors.append(np.abs(run.q - ref).max())
    assert errors[1] < 2e-4 and errors[1] < errors[0] / 50   # the gap falls as 1/k


def test_motor_pd_holds_the_target_against_gravity():
    rng = np.random.default_rng(11)
    arm = random_arm(rng, 2, Convention.STANDARD, joints="RR")
    joints = ElasticJoints.of(2, [3e3, 2e3], [5.0, 5.0], [50.0, 30.0], [3e-4, 3e-4])
    target = np.array([0.4, -0.3])
    run = simulate(ElasticDynamics(arm_dynamics(arm), joints), [0.0, 0.0], None, (0.0, 6.0),
                   PDControl([400.0, 300.0], [60.0, 40.0], target, [0.0, 0.0], 1.0))
    np.testing.assert_allclose(run.q[-1], target, atol=1e-6)


def test_bad_drive_data_is_refused_with_the_joint_named():
    rng = np.random.default_rng(0)
    arm = random_arm(rng, 2, Convention.STANDARD)
    with pytest.raises(ElasticModelError, match="joint.* 2.*motor_inertia"):
        ElasticArm(arm, ElasticJoints.of(2, [1e3, 1e3], 0.0, 10.0, [1e-4, 0.0]))
    with pytest.raises(ElasticModelError, match="stiffness of joint"):
        ElasticJoints.of(2, [1e3, -1.0])
