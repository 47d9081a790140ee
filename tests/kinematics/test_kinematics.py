"""Kinematics against independent routes: Pinocchio, hand trigonometry, Craig's formula."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from designer.kinematics import (NumericArm, com_jacobians, com_positions, frames, joint_axes, link_transform,
                                 tool_jacobian)
from designer.model import Convention, Inertia, JointType, Link, Manipulator, symbol

pin = pytest.importorskip("pinocchio")

STD, MOD = Convention.STANDARD, Convention.MODIFIED


# -- elementary transforms, written out independently of designer.kinematics -------------------

def Rz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def Rx(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def Tx(x):
    T = np.eye(4)
    T[0, 3] = x
    return T


def Tz(z):
    T = np.eye(4)
    T[2, 3] = z
    return T


def se3(T: np.ndarray):
    return pin.SE3(T[:3, :3].copy(), T[:3, 3].copy())


# -- random arms ----------------------------------------------------------------------------

def random_model(rng, n: int, convention: Convention, joints: str | None = None) -> Manipulator:
    joints = joints or "".join(rng.choice(["R", "P"], size=n))
    links = []
    for kind in joints:
        links.append(Link(
            joint=JointType(kind), a=float(rng.uniform(-0.7, 0.7)), alpha=float(rng.uniform(-np.pi, np.pi)),
            d=float(rng.uniform(-0.5, 0.5)), theta=float(rng.uniform(-np.pi, np.pi)),
            mass=float(rng.uniform(0.5, 3)), com=tuple(float(v) for v in rng.uniform(-0.3, 0.3, 3)),
            inertia=Inertia(0.1, 0.1, 0.1)))
    return Manipulator(links=tuple(links), convention=convention, gravity=(0, 0, -9.81))


def pinocchio_model(model: Manipulator):
    """A Pinocchio model from the DH table; frames F{i} (DH frame i) and C{i} (COM of link i).

    Each DH transform splits into the joint's own motion about/along local z and a fixed part:
    standard  A_i(q) = Rz/Tz(q) * Rz(theta) Tz(d) Tx(a) Rx(alpha)  (joint i sits at frame i-1),
    modified  A_i(q) = Rx(alpha) Tx(a) Rz(theta) Tz(d) * Rz/Tz(q)  (joint i sits at frame i).
    """
    pm = pin.Model()
    parent = 0
    after_joint = np.eye(4)  # DH frame i-1 seen from the previous joint's frame
    for i, link in enumerate(model.links, start=1):
        a, alpha, d, theta = (float(v) for v in (link.a, link.alpha, link.d, link.theta))
        if model.convention is STD:
            placement = after_joint
            to_frame = Rz(theta) @ Tz(d) @ Tx(a) @ Rx(alpha)
        else:
            placement = after_joint @ Rx(alpha) @ Tx(a) @ Rz(theta) @ Tz(d)
            to_frame = np.eye(4)
        joint = pin.JointModelRZ() if link.is_revolute else pin.JointModelPZ()
        jid = pm.addJoint(parent, joint, se3(placement), f"J{i}")
        pm.addFrame(pin.Frame(f"F{i}", jid, se3(to_frame), pin.FrameType.OP_FRAME))
        com = np.eye(4)
        com[:3, 3] = [float(c) for c in link.com]
        pm.addFrame(pin.Frame(f"C{i}", jid, se3(to_frame @ com), pin.FrameType.OP_FRAME))
        parent, after_joint = jid, to_frame
    return pm


def pin_state(pm, q):
    data = pm.createData()
    q = np.asarray(q, float)
    pin.forwardKinematics(pm, data, q)
    pin.updateFramePlacements(pm, data)
    pin.computeJointJacobians(pm, data, q)
    return data


def frame_jacobian(pm, data, name):
    J = pin.getFrameJacobian(pm, data, pm.getFrameId(name), pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
    return np.asarray(J).reshape(6, pm.nv)


CASES = [(conv, seed) for conv in (STD, MOD) for seed in range(6)]


@pytest.mark.parametrize("convention, seed", CASES)
def test_numeric_kinematics_match_pinocchio(convention, seed):
    rng = np.random.default_rng(100 + seed)
    n = 1 + seed % 6
    joints = None if seed else "R" * n  # seed 0: revolute only; others mixed
    if seed == 5:
        joints = "P" * n
    model = random_model(rng, n, convention, joints)
    arm = NumericArm.from_model(model)
    pm = pinocchio_model(model)
    for _ in range(4):
        q = rng.uniform(-np.pi, np.pi, n)
        data = pin_state(pm, q)
        T = arm.frames(q)
        np.testing.assert_allclose(T[0], np.eye(4), atol=1e-14)
        for i in range(1, n + 1):
            np.testing.assert_allclose(T[i], data.oMf[pm.getFrameId(f"F{i}")].homogeneous, atol=1e-10)
        origins, axes = arm.joint_axes(q)
        for j in range(n):
            oMj = data.oMi[j + 1]
            np.testing.assert_allclose(axes[j], oMj.rotation[:, 2], atol=1e-10)
            if arm.revolute[j]:
                np.testing.assert_allclose(origins[j], oMj.translation, atol=1e-10)
            else:  # Pinocchio's frame slides with the joint: the same line, another point on it
                np.testing.assert_allclose(np.cross(origins[j] - oMj.translation, axes[j]), 0, atol=1e-10)
        np.testing.assert_allclose(arm.tool_jacobian(q), frame_jacobian(pm, data, f"F{n}"), atol=1e-10)
        coms = arm.com_positions(q)
        Jc = arm.com_jacobians(q)
        for i in range(n):
            np.testing.assert_allclose(coms[i], data.oMf[pm.getFrameId(f"C{i + 1}")].translation, atol=1e-10)
            np.testing.assert_allclose(Jc[i], frame_jacobian(pm, data, f"C{i + 1}"), atol=1e-10)


def test_point_jacobian_matches_pinocchio_joint_jacobian():
    rng = np.random.default_rng(5)
    model = random_model(rng, 4, STD, "RPRR")
    arm, pm = NumericArm.from_model(model), pinocchio_model(model)
    q = rng.uniform(-1, 1, 4)
    data = pin_state(pm, q)
    point = rng.normal(size=3)  # a point rigidly attached to link 3 (moves with joint 3)
    J = pin.computeJointJacobian(pm, pm.createData(), q, 3)  # LOCAL, at joint 3's origin
    oMj = data.oMi[3]
    # shift the joint-origin twist to the point and rotate into base axes
    v = oMj.rotation @ J[:3] + np.cross(oMj.rotation @ J[3:], point - oMj.translation, axis=0)
    w = oMj.rotation @ J[3:]
    np.testing.assert_allclose(arm.point_jacobian(q, point, 3), np.vstack([v, w]), atol=1e-10)


@pytest.mark.parametrize("convention", [STD, MOD])
def test_symbolic_matches_numeric(convention):
    rng = np.random.default_rng(11)
    model = random_model(rng, 3, convention, "RPR")
    arm = NumericArm.from_model(model)
    Ts, Js, Jcs, coms = frames(model), tool_jacobian(model), com_jacobians(model), com_positions(model)
    axes = joint_axes(model)
    for _ in range(3):
        q = rng.uniform(-2, 2, 3)
        subs = dict(zip(model.q, q))
        num = lambda M, subs=subs: np.array(M.subs(subs).evalf(), dtype=float)  # noqa: E731
        T = arm.frames(q)
        for i in range(4):
            np.testing.assert_allclose(num(Ts[i]), T[i], atol=1e-12)
        np.testing.assert_allclose(num(Js), arm.tool_jacobian(q), atol=1e-12)
        Jc = arm.com_jacobians(q)
        for i in range(3):
            np.testing.assert_allclose(num(Jcs[i]), Jc[i], atol=1e-12)
            np.testing.assert_allclose(num(coms[i]).ravel(), arm.com_positions(q)[i], atol=1e-12)
        origins, dirs = arm.joint_axes(q)
        for j, ax in enumerate(axes):
            np.testing.assert_allclose(num(ax.origin).ravel(), origins[j], atol=1e-12)
            np.testing.assert_allclose(num(ax.axis).ravel(), dirs[j], atol=1e-12)
            assert ax.revolute == bool(arm.revolute[j])


def test_symbolic_parameters_and_overrides():
    L1, L2 = symbol("L1"), symbol("L2")
    model = Manipulator(links=(Link(a=L1, mass=1), Link(a=L2, mass=1)), parameters={"L1": 1.0, "L2": 0.5},
                        gravity=(0, 0, -9.81))
    q = [0.3, -0.8]
    tip = NumericArm.from_model(model).frames(q)[-1][:2, 3]
    assert tip == pytest.approx([np.cos(0.3) + 0.5 * np.cos(-0.5), np.sin(0.3) + 0.5 * np.sin(-0.5)])
    tip = NumericArm.from_model(model, {"L2": 2.0}).frames(q)[-1][:2, 3]
    assert tip == pytest.approx([np.cos(0.3) + 2 * np.cos(-0.5), np.sin(0.3) + 2 * np.sin(-0.5)])


# -- hand derivations ------------------------------------------------------------------------

def test_planar_two_link_by_hand():
    L1, L2 = symbol("L1"), symbol("L2")
    model = Manipulator(links=(Link(a=L1), Link(a=L2)))
    q1, q2 = model.q
    T = frames(model)[-1]
    expected_p = sp.Matrix([L1 * sp.cos(q1) + L2 * sp.cos(q1 + q2), L1 * sp.sin(q1) + L2 * sp.sin(q1 + q2), 0])
    assert sp.simplify(T[:3, 3] - expected_p) == sp.zeros(3, 1)
    assert sp.simplify(T[:3, :3] - sp.Matrix([[sp.cos(q1 + q2), -sp.sin(q1 + q2), 0],
                                              [sp.sin(q1 + q2), sp.cos(q1 + q2), 0], [0, 0, 1]])) == sp.zeros(3, 3)
    J = tool_jacobian(model)
    s1, c1, s12, c12 = sp.sin(q1), sp.cos(q1), sp.sin(q1 + q2), sp.cos(q1 + q2)
    expected_J = sp.Matrix([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12],
                            [0, 0], [0, 0], [0, 0], [1, 1]])
    assert sp.simplify(J - expected_J) == sp.zeros(6, 2)


def test_prismatic_joint_slides_along_z():
    model = Manipulator(links=(Link(joint="P", d=0.5, theta=0.3), Link(joint="P", alpha=np.pi / 2, d=0.1)),
                        gravity=(0, 0, -9.81))
    arm = NumericArm.from_model(model)
    T = arm.frames([0.2, 0.4])
    assert T[1][:3, 3] == pytest.approx([0, 0, 0.7])
    # frame 1's z is the base z; the second slide is along frame 1's z as well (standard DH)
    assert T[2][:3, 3] == pytest.approx([0, 0, 0.7 + 0.5])
    J = arm.tool_jacobian([0.2, 0.4])
    assert J[:3, 0] == pytest.approx([0, 0, 1]) and J[3:].max() == 0 and J[3:].min() == 0


def test_dh_transforms_are_the_elementary_products():
    rng = np.random.default_rng(3)
    for _ in range(5):
        a, alpha, d, theta, q = rng.uniform(-2, 2, 5)
        for kind in ("R", "P"):
            link = Link(joint=kind, a=a, alpha=alpha, d=d, theta=theta)
            t, dd = (theta + q, d) if kind == "R" else (theta, d + q)
            std = Rz(t) @ Tz(dd) @ Tx(a) @ Rx(alpha)
            craig = Rx(alpha) @ Tx(a) @ Rz(t) @ Tz(dd)
            np.testing.assert_allclose(np.array(link_transform(link, q, STD).evalf(), float), std, atol=1e-12)
            np.testing.assert_allclose(np.array(link_transform(link, q, MOD).evalf(), float), craig, atol=1e-12)


def test_modified_matches_craigs_formula():
    # Craig, Introduction to Robotics, eq. (3.6), with the symbols of row i of his table
    a, alpha, d, theta = (symbol(n) for n in ("a_im1", "alpha_im1", "d_i", "theta_i"))
    link = Link(a=a, alpha=alpha, d=d, theta=theta)
    ct, st, ca, sa = sp.cos(theta), sp.sin(theta), sp.cos(alpha), sp.sin(alpha)
    craig = sp.Matrix([[ct, -st, 0, a], [st * ca, ct * ca, -sa, -sa * d],
                       [st * sa, ct * sa, ca, ca * d], [0, 0, 0, 1]])
    assert sp.simplify(link_transform(link, 0, MOD) - craig) == sp.zeros(4, 4)


def standard_to_modified(model: Manipulator) -> tuple[Manipulator, np.ndarray]:
    """Craig's table of a standard-DH arm, and the fixed tool transform Tx(a_n) Rx(alpha_n).

    Row i of the modified table takes a_{i-1}, alpha_{i-1} from standard link i-1 (0 for i = 1);
    d_i and theta_i stay.
    """
    links, prev = [], (0, 0)
    for link in model.links:
        links.append(Link(joint=link.joint, a=prev[0], alpha=prev[1], d=link.d, theta=link.theta, mass=link.mass))
        prev = (link.a, link.alpha)
    tool = Tx(float(prev[0])) @ Rx(float(prev[1]))
    return Manipulator(links=tuple(links), convention=MOD, gravity=model.gravity), tool


@pytest.mark.parametrize("seed", range(4))
def test_standard_arm_converted_by_hand_to_modified(seed):
    rng = np.random.default_rng(seed)
    std = random_model(rng, 1 + seed, STD)
    mod, tool = standard_to_modified(std)
    a, b = NumericArm.from_model(std), NumericArm.from_model(mod)
    for _ in range(3):
        q = rng.uniform(-np.pi, np.pi, std.n)
        np.testing.assert_allclose(b.frames(q)[-1] @ tool, a.frames(q)[-1], atol=1e-12)
        # the joint axes are the same lines in space
        (o1, z1), (o2, z2) = a.joint_axes(q), b.joint_axes(q)
        np.testing.assert_allclose(z1, z2, atol=1e-12)
        np.testing.assert_allclose(np.cross(o1 - o2, z1), 0, atol=1e-12)


def test_stanford_arm_first_three_joints_both_ways():
    # Stanford arm (Paul): standard rows (alpha, a, d): (-pi/2, 0, 0), (pi/2, 0, d2), (0, 0, d3 = q3)
    d2 = 0.154
    std = Manipulator(links=(Link(alpha=-sp.pi / 2), Link(alpha=sp.pi / 2, d=d2), Link(joint="P")),
                      gravity=(0, 0, -9.81))
    mod = Manipulator(links=(Link(), Link(alpha=-sp.pi / 2, d=d2), Link(joint="P", alpha=sp.pi / 2)),
                      convention=MOD, gravity=(0, 0, -9.81))
    q = [0.4, -1.1, 0.3]
    Ts, Tm = NumericArm.from_model(std).frames(q)[-1], NumericArm.from_model(mod).frames(q)[-1]
    np.testing.assert_allclose(Tm, Ts, atol=1e-12)
    # by hand: the wrist centre of the Stanford arm
    c1, s1, c2, s2 = np.cos(q[0]), np.sin(q[0]), np.cos(q[1]), np.sin(q[1])
    p = [c1 * s2 * q[2] - s1 * d2, s1 * s2 * q[2] + c1 * d2, c2 * q[2]]
    np.testing.assert_allclose(Ts[:3, 3], p, atol=1e-12)
