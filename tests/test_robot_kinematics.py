"""Kinematic facts about the example robots, from their sources.

Poses published by Corke for the Puma 560, the link-end and COM positions Horn,
Duarte, Paul and Lee write out with trigonometry, kinetic energies integrated
over Horn's thin rods, and the numeric frames against the symbolic ones.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from tests.support import robot_path, serial_robots
from designer.kinematics import NumericArm, com_positions, frames
from designer.project import load_project

ALL = [p.stem for p in serial_robots()]   # closed chains: tests/kinematics/test_closed_kinematics.py
rng = np.random.default_rng(20261122)


def arm(name: str, **overrides) -> NumericArm:
    return NumericArm.from_model(load_project(robot_path(name)), overrides or None)


def params(name: str) -> dict[str, float]:
    return load_project(robot_path(name)).parameter_values


def sample(n: int, k: int = 5) -> np.ndarray:
    return rng.uniform(-np.pi, np.pi, size=(k, n))


# --- numeric frames agree with the symbolic ones -------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_numeric_frames_equal_symbolic_frames(name):
    model = load_project(robot_path(name))
    T_sym = frames(model)
    c_sym = com_positions(model, T_sym)
    num = NumericArm.from_model(model)
    subs = model.substitutions()
    for q in sample(model.n, 3):
        values = {**subs, **{s: sp.Float(v) for s, v in zip(model.q, q)}}
        T_num = num.frames(q)
        for i, T in enumerate(T_sym):
            got = np.array(T.xreplace(values).evalf(), dtype=float)
            np.testing.assert_allclose(got, T_num[i], atol=1e-12)
        coms = num.com_positions(q, T_num)
        for i, c in enumerate(c_sym):
            np.testing.assert_allclose(np.array(c.xreplace(values).evalf(), dtype=float).ravel(), coms[i],
                                       atol=1e-12)


# --- Puma 560: Corke's published poses --------------------------------------------------------

QZ = [0, 0, 0, 0, 0, 0]
QR = [0, np.pi / 2, -np.pi / 2, 0, 0, 0]
QS = [0, 0, -np.pi / 2, 0, 0, 0]
QN = [0, np.pi / 4, np.pi, 0, np.pi / 4, 0]


@pytest.mark.parametrize("q, position, rotation", [
    # Robotics Toolbox: p560.fkine(qz), fkine(qr), fkine(qn)
    (QZ, [0.4521, -0.15005, 0.4318], np.eye(3)),
    (QR, [0.0203, -0.15005, 0.8636], np.eye(3)),
    (QN, [0.5963, -0.15005, -0.01435], [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]),
    # stretched along x: a2 + d4 forward, the elbow offset a3 below the shoulder (by hand)
    (QS, [0.8636, -0.15005, -0.0203], [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]),
])
def test_puma560_reference_poses(q, position, rotation):
    T = arm("puma560").frames(q)[-1]
    np.testing.assert_allclose(T[:3, 3], position, atol=5e-5)
    np.testing.assert_allclose(T[:3, :3], rotation, atol=1e-9)


def test_puma560_base_height_override():
    # newer toolbox versions mount the shoulder 0.672 m above the base plate (d1)
    T = arm("puma560", d1=0.672).frames(QZ)[-1]
    np.testing.assert_allclose(T[:3, 3], [0.4521, -0.15005, 0.4318 + 0.672], atol=1e-9)


def test_puma560_wrist_centre_is_independent_of_wrist_joints():
    a = arm("puma560")
    for q in sample(6, 4):
        q2 = q.copy()
        q2[3:] = rng.uniform(-np.pi, np.pi, 3)
        np.testing.assert_allclose(a.frames(q)[4][:3, 3], a.frames(q2)[4][:3, 3], atol=1e-12)
        # and its distance from the shoulder axis origin is fixed by q3 alone (a2, a3, d4 triangle)
        p = a.frames(q)[4][:3, 3]
        a2, a3, d3, d4 = 0.4318, 0.0203, 0.15005, 0.4318
        c3, s3 = np.cos(q[2]), np.sin(q[2])
        r2 = a2**2 + a3**2 + d4**2 + 2 * a2 * (a3 * c3 - d4 * s3)
        assert p @ p == pytest.approx(r2 + d3**2)


# --- Lee's three-link PUMA ---------------------------------------------------------------------

def test_lee_p3_formula():
    """Lee, page 20: p3 = [C1(a2 C2 + a3 C23) - d2 S1, S1(a2 C2 + a3 C23) + d2 C1, -a2 S2 - a3 S23]."""
    v = params("puma560_three_link")
    a2, a3, d2 = v["a2"], v["a3"], v["d2"]
    a = arm("puma560_three_link")
    for q1, q2, q3 in sample(3):
        r = a2 * np.cos(q2) + a3 * np.cos(q2 + q3)
        expected = [np.cos(q1) * r - d2 * np.sin(q1), np.sin(q1) * r + d2 * np.cos(q1),
                    -a2 * np.sin(q2) - a3 * np.sin(q2 + q3)]
        np.testing.assert_allclose(a.frames([q1, q2, q3])[3][:3, 3], expected, atol=1e-12)


def test_lee_model_is_corke_puma_with_shifted_joint_angles():
    """The same physical arm: q_Lee = q_Paul + pi; COMs agree to Lee's and Corke's length roundings."""
    lee, corke = arm("puma560_three_link"), arm("puma560")
    for q in sample(6):
        cl = lee.com_positions(q[:3] + np.pi)
        cc = corke.com_positions(q)[:3]
        np.testing.assert_allclose(cl[1], cc[1], atol=1e-9)  # link 2: exact (r2z = 0.2275 - d2)
        np.testing.assert_allclose(cl[2], cc[2], atol=1.5e-3)  # d2 149.09 vs d3 150.05 mm
        np.testing.assert_allclose(lee.frames(q[:3] + np.pi)[3][:3, 3], corke.frames(q)[3][:3, 3], atol=1.5e-3)
    # Lee's joint ranges are Corke's shifted by pi (mod 2 pi) for joints 2 and 3
    for k in (1, 2):
        shifted = corke.limits[k] + np.pi
        diff = (lee.limits[k] - shifted + np.pi) % (2 * np.pi) - np.pi
        np.testing.assert_allclose(diff, 0, atol=1e-12)


# --- ROBMAT's modified Stanford arm: Paul's position equations ---------------------------------

def test_stanford_position_matches_paul():
    d2 = params("stanford_modified")["d2"]
    a = arm("stanford_modified")
    for q1, q2, _ in sample(3):
        d3 = rng.uniform(0, 1)
        p = a.frames([q1, q2, d3])[3][:3, 3]
        expected = [np.cos(q1) * np.sin(q2) * d3 - np.sin(q1) * d2,
                    np.sin(q1) * np.sin(q2) * d3 + np.cos(q1) * d2,
                    np.cos(q2) * d3]
        np.testing.assert_allclose(p, expected, atol=1e-12)


# --- Duarte's planar two-link arm --------------------------------------------------------------

def duarte_positions(v, a1, a2):
    """In[5], In[6]: the COMs, and the segment ends, from Duarte's joint-space angles."""
    c1, s1, c12, s12 = np.cos(a1), np.sin(a1), np.cos(a1 + a2), np.sin(a1 + a2)
    com1 = [v["d1"] * c1, v["d1"] * s1, 0]
    com2 = [v["L1"] * c1 + v["d2"] * c12, v["L1"] * s1 + v["d2"] * s12, 0]
    end1 = [v["L1"] * c1, v["L1"] * s1, 0]
    end2 = [v["L1"] * c1 + v["L2"] * c12, v["L1"] * s1 + v["L2"] * s12, 0]
    return com1, com2, end1, end2


def test_duarte_positions():
    v = params("planar_two_link")
    a = arm("planar_two_link")
    for a1, a2 in sample(2):
        com1, com2, end1, end2 = duarte_positions(v, a1, a2)
        T = a.frames([a1, a2])
        np.testing.assert_allclose(a.com_positions([a1, a2], T), [com1, com2], atol=1e-12)
        np.testing.assert_allclose(T[1][:3, 3], end1, atol=1e-12)
        np.testing.assert_allclose(T[2][:3, 3], end2, atol=1e-12)
    # Duarte: at alpha1 = -90 deg, alpha2 = 0 the (non-inverted) double pendulum hangs straight down
    np.testing.assert_allclose(a.frames([-np.pi / 2, 0])[2][:3, 3], [0, -(v["L1"] + v["L2"]), 0], atol=1e-12)


def jacobian_mass_matrix(a: NumericArm, q) -> np.ndarray:
    """sum_i m_i Jv^T Jv + Jw^T R I R^T Jw, plus point masses: the kinetic-energy matrix."""
    T = a.frames(q)
    J = a.com_jacobians(q)
    M = np.zeros((a.n, a.n))
    for i in range(a.n):
        R = T[i + 1][:3, :3]
        Jv, Jw = J[i][:3], J[i][3:]
        M += a.mass[i] * Jv.T @ Jv + Jw.T @ R @ a.inertia[i] @ R.T @ Jw
    for link, m, pos in a.point_masses:
        p = T[link + 1][:3, :3] @ pos + T[link + 1][:3, 3]
        Jv = a.point_jacobian(q, p, link + 1, T)[:3]
        M += m * Jv.T @ Jv
    return M


def test_duarte_mass_matrix():
    """tau = M a'' + V + G: M from the Newton-Euler equations of Duarte's section 'Dynamics'."""
    v = params("planar_two_link")
    m1, m2, I1, I2, L1, d1, d2 = (v[k] for k in ("m1", "m2", "I1", "I2", "L1", "d1", "d2"))
    a = arm("planar_two_link")
    for a1, a2 in sample(2):
        c2 = np.cos(a2)
        expected = np.array([
            [I1 + I2 + m1 * d1**2 + m2 * (L1**2 + d2**2 + 2 * L1 * d2 * c2), I2 + m2 * (d2**2 + L1 * d2 * c2)],
            [I2 + m2 * (d2**2 + L1 * d2 * c2), I2 + m2 * d2**2],
        ])
        np.testing.assert_allclose(jacobian_mass_matrix(a, [a1, a2]), expected, rtol=1e-12)


# --- Horn's three-link chain --------------------------------------------------------------------

def horn_points(v, q, s2, s3, offsets: bool):
    """Memo pages 11, 15, 29, 31: a point s2 along link 2 and s3 along link 3 in base coordinates."""
    q1, q2, q3 = q
    c1, s1_, c2, sn2 = np.cos(q1), np.sin(q1), np.cos(q2), np.sin(q2)
    c23, sn23 = np.cos(q2 + q3), np.sin(q2 + q3)
    dl2 = v["delta2"] if offsets else 0.0
    dl3 = v["delta3"] if offsets else 0.0
    L2 = v["L2"]
    r2 = np.array([s2 * c1 * sn2 - dl2 * s1_, s2 * s1_ * sn2 + dl2 * c1, s2 * c2])
    h = L2 * sn2 + s3 * sn23
    r3 = np.array([h * c1 - dl3 * s1_, h * s1_ + dl3 * c1, L2 * c2 + s3 * c23])
    return r2, r3


@pytest.mark.parametrize("name, offsets", [("horn_three_dof", False), ("horn_three_dof_offsets", True)])
def test_horn_link_ends_and_coms(name, offsets):
    v = params(name)
    a = arm(name)
    for q in sample(3):
        T = a.frames(q)
        end2, end3 = horn_points(v, q, v["L2"], v["L3"], offsets)
        np.testing.assert_allclose(T[2][:3, 3], end2, atol=1e-12)
        np.testing.assert_allclose(T[3][:3, 3], end3, atol=1e-12)
        mid2, mid3 = horn_points(v, q, v["L2"] / 2, v["L3"] / 2, offsets)
        coms = a.com_positions(q, T)
        np.testing.assert_allclose(coms[1], mid2, atol=1e-12)
        np.testing.assert_allclose(coms[2], mid3, atol=1e-12)
        # the column's COM stays on the vertical axis, below the shoulder
        np.testing.assert_allclose(coms[0], [0, 0, -v["H"] / 2], atol=1e-12)


@pytest.mark.parametrize("name, offsets", [("horn_three_dof", False), ("horn_three_dof_offsets", True)])
def test_horn_kinetic_energy_matches_memo_integral(name, offsets):
    """K = sum over links of the integral of (m/L) v(s)^2 / 2 ds, as the memo computes it.

    Velocities come from central differences of the memo's particle positions, the
    integral from Gauss-Legendre points; the column adds I1 q1'^2 / 2 and the loads
    M2, M3 at the rod ends add M v^2 / 2.
    """
    v = params(name)
    a = arm(name)
    nodes, weights = np.polynomial.legendre.leggauss(6)  # exact for the quadratic v^2(s)
    for q in sample(3, 4):
        qd = rng.normal(size=3)
        h = 1e-6

        def velocity(s2, s3, q=q, h=h, qd=qd):
            p_plus = horn_points(v, q + h * qd, s2, s3, offsets)
            p_minus = horn_points(v, q - h * qd, s2, s3, offsets)
            return [(pp - pm) / (2 * h) for pp, pm in zip(p_plus, p_minus)]

        K = 0.5 * (v["m1"] * v["R"] ** 2 / 2) * qd[0] ** 2
        for link, L, m in ((0, v["L2"], v["m2"]), (1, v["L3"], v["m3"])):
            for x, w in zip(nodes, weights):
                s = L * (x + 1) / 2
                vel = velocity(s, 0.0)[0] if link == 0 else velocity(0.0, s)[1]
                K += 0.5 * (m / L) * (vel @ vel) * (L / 2) * w
        v2_end, v3_end = velocity(v["L2"], v["L3"])
        K += 0.5 * v["M2"] * v2_end @ v2_end + 0.5 * v["M3"] * v3_end @ v3_end
        M = jacobian_mass_matrix(a, q)
        assert 0.5 * qd @ M @ qd == pytest.approx(K, rel=1e-7)


def test_horn_link2_energy_closed_form():
    """Memo page 12: K2 = (1/2)(m2 l2^2 / 3)(s2^2 q1'^2 + q2'^2) for the rod alone."""
    v = params("horn_three_dof")
    a = arm("horn_three_dof", m1=0.0, m3=0.0, M2=0.0, M3=0.0)
    for q in sample(3):
        qd = rng.normal(size=3)
        expected = 0.5 * v["m2"] * v["L2"] ** 2 / 3 * (np.sin(q[1]) ** 2 * qd[0] ** 2 + qd[1] ** 2)
        assert 0.5 * qd @ jacobian_mass_matrix(a, q) @ qd == pytest.approx(expected, rel=1e-12)


# --- SCARA ----------------------------------------------------------------------------------------

def test_scara_reach_height_and_yaw():
    v = params("scara")
    a = arm("scara")
    a1, a2, d1 = v["a1"], v["a2"], v["d1"]
    # straight arm: the full reach a1 + a2 along x, quill down
    T = a.frames([0, 0, 0, 0])[-1]
    np.testing.assert_allclose(T[:3, 3], [a1 + a2, 0, d1], atol=1e-12)
    np.testing.assert_allclose(T[:3, 2], [0, 0, -1], atol=1e-12)
    for q1, q2, _, q4 in sample(4):
        d3 = rng.uniform(0, 0.21)
        T = a.frames([q1, q2, d3, q4])[-1]
        radius = np.hypot(T[0, 3], T[1, 3])
        # law of cosines in the arm plane
        assert radius == pytest.approx(np.sqrt(a1**2 + a2**2 + 2 * a1 * a2 * np.cos(q2)))
        assert abs(a1 - a2) - 1e-12 <= radius <= a1 + a2 + 1e-12
        assert T[2, 3] == pytest.approx(d1 - d3)  # the quill moves straight down
        yaw = np.arctan2(T[1, 0], T[0, 0])
        assert np.cos(yaw - (q1 + q2 - q4)) == pytest.approx(1.0)  # roll axis points down


@pytest.mark.parametrize("q, published", [
    # Corke, Robotics, Vision and Control: p560.gravload(qz) and p560.gravload(qn), g = 9.81
    (QZ, [0, 37.4837, 0.2489, 0, 0, 0]),
    (QN, [0, 31.6399, 6.0351, 0, 0.0283, 0]),
])
def test_puma560_gravity_load_matches_corke(q, published):
    """Joint torques holding the arm still: sum_i m_i Jv_i^T (-g); checks masses and COMs together."""
    a = arm("puma560")
    J = a.com_jacobians(q)
    load = -sum(a.mass[i] * J[i][:3].T @ a.gravity for i in range(a.n))
    np.testing.assert_allclose(load, published, atol=1e-4)


def test_double_pendulum_matches_robmat_out5_out8():
    """ROBMAT section 5: M (Out[5]) and G (Out[8]) of the double pendulum with gravity {g, 0, 0}."""
    v = params("double_pendulum")
    L1, L2, m1, m2, g = (v[k] for k in ("L1", "L2", "m1", "m2", "g"))
    a = arm("double_pendulum")
    for q1, q2 in sample(2):
        c2 = np.cos(q2)
        M = [[L1**2 * m1 + L1**2 * m2 + 2 * c2 * L1 * L2 * m2 + L2**2 * m2, L2 * (c2 * L1 + L2) * m2],
             [L2 * (c2 * L1 + L2) * m2, L2**2 * m2]]
        np.testing.assert_allclose(jacobian_mass_matrix(a, [q1, q2]), M, rtol=1e-12)
        J = a.com_jacobians([q1, q2])
        G = -sum(a.mass[i] * J[i][:3].T @ a.gravity for i in range(2))
        s1, s12 = np.sin(q1), np.sin(q1 + q2)
        np.testing.assert_allclose(G, [g * (L1 * m1 * s1 + L1 * m2 * s1 + L2 * m2 * s12), g * L2 * m2 * s12],
                                   atol=1e-12)


@pytest.mark.parametrize("name", ["horn_three_dof", "horn_three_dof_offsets"])
def test_horn_gravity_torques_match_memo(name):
    """Memo pages 20 and 26-27, gravity g along -z: T2g = g [m2 l2/2 s2 + m3 (l2 s2 + l3/2 s23)
    + M2 l2 s2 + M3 (l2 s2 + l3 s23)], T3g = g [m3 l3/2 s23 + M3 l3 s23], T1g = 0. The memo's
    T_ig = -dP/dtheta_i; the torque that holds the arm still is its negative. The offsets lie
    in horizontal directions, so they change nothing here."""
    v = params(name)
    g, L2, L3, m2, m3, M2, M3 = (v[k] for k in ("g", "L2", "L3", "m2", "m3", "M2", "M3"))
    a = arm(name)
    for q in sample(3):
        s2, s23 = np.sin(q[1]), np.sin(q[1] + q[2])
        memo = np.array([0.0,
                         g * (m2 * L2 / 2 * s2 + m3 * (L2 * s2 + L3 / 2 * s23)
                              + M2 * L2 * s2 + M3 * (L2 * s2 + L3 * s23)),
                         g * (m3 * L3 / 2 * s23 + M3 * L3 * s23)])
        T = a.frames(q)
        J = a.com_jacobians(q)
        hold = -sum(a.mass[i] * J[i][:3].T @ a.gravity for i in range(3))
        for link, m, pos in a.point_masses:
            p = T[link + 1][:3, :3] @ pos + T[link + 1][:3, 3]
            hold = hold - m * a.point_jacobian(q, p, link + 1, T)[:3].T @ a.gravity
        np.testing.assert_allclose(hold, -memo, atol=1e-12)
