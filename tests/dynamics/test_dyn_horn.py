"""Horn, Hirokawa & Vazirani, MIT AI Memo 478 (1977): the column and two thin rods without offsets.

The memo's formulas are transcribed from its pages 13, 19, 20-22 and 24-27 (the OCR is noisy;
each formula below was re-derived by hand from the memo's kinetic energies before use).
Sign convention: the memo's gravity components are T_ig = -dP/dtheta_i (the torque gravity
exerts), while G in tau = M q'' + h + G is the torque the actuator must supply, +dP/dq; so
G = -T_g throughout.
"""

from __future__ import annotations

import pytest
import sympy as sp

from tests.support import robot_path
from designer.dynamics import Method, SimplifyMode, derive, link_torques
from designer.model import symbol as S
from designer.project import load_project

l2, l3, m2, m3, M2, M3, g = (S(n) for n in ("L2", "L3", "m2", "m3", "M2", "M3", "g"))
q1, q2, q3 = S("q1"), S("q2"), S("q3")
d1, d2, d3 = S("qd1"), S("qd2"), S("qd3")
a1, a2, a3 = S("qdd1"), S("qdd2"), S("qdd3")
s2, c2, s3, c3 = sp.sin(q2), sp.cos(q2), sp.sin(q3), sp.cos(q3)
s23, c23 = sp.sin(q2 + q3), sp.cos(q2 + q3)


def _same(a, b) -> bool:
    """a - b is zero: expanded in sin/cos of single angles with sin^2 = 1 - cos^2 (exact)."""
    e = sp.expand(sp.expand_trig(sp.expand(sp.expand_trig(sp.expand(a - b)))))
    e = sp.expand(e.subs({sp.sin(q) ** 2: 1 - sp.cos(q) ** 2 for q in (q1, q2, q3)}))
    return e == 0


def _model(loads: bool, gravity=(0, 0, 0)):
    model = load_project(robot_path("horn_three_dof"))
    import dataclasses
    model = dataclasses.replace(model, gravity=gravity)
    if not loads:
        model = dataclasses.replace(model, point_masses=())
    return model


@pytest.fixture(scope="module")
def rods():
    return link_torques(_model(False), SimplifyMode.FAST)


def test_column_needs_only_its_inertia_t11(rods):
    I1 = S("m1") * S("R") ** 2 / 2  # solid cylinder about its axis
    assert _same(rods[0, 0], I1 * a1)
    assert rods[1, 0] == 0 and rods[2, 0] == 0


def test_second_link_t12_t22(rods):
    T12 = m2 * l2**2 / 3 * (s2**2 * a1 + 2 * s2 * c2 * d1 * d2)
    T22 = m2 * l2**2 / 3 * (a2 - s2 * c2 * d1**2)
    assert _same(rods[0, 1], T12)
    assert _same(rods[1, 1], T22)
    assert rods[2, 1] == 0  # joint 3 does not carry link 2


def test_third_link_t13_t23_t33(rods):
    A = l2**2 * s2**2 + l2 * l3 * s2 * s23 + l3**2 / 3 * s23**2
    T13 = m3 * (A * a1 + (2 * l2**2 * s2 * c2 + l2 * l3 * (c2 * s23 + s2 * c23) + 2 * l3**2 / 3 * s23 * c23) * d1 * d2
                + (l2 * l3 * s2 * c23 + 2 * l3**2 / 3 * s23 * c23) * d1 * d3)
    T23 = m3 / 2 * (2 * (l2**2 + l2 * l3 * c3 + l3**2 / 3) * a2 + (l2 * l3 * c3 + 2 * l3**2 / 3) * a3
                     - (2 * l2**2 * s2 * c2 + l2 * l3 * (c2 * s23 + s2 * c23) + 2 * l3**2 / 3 * s23 * c23) * d1**2
                     - 2 * l2 * l3 * s3 * d2 * d3 - l2 * l3 * s3 * d3**2)
    T33 = m3 / 2 * ((l2 * l3 * c3 + 2 * l3**2 / 3) * a2 + 2 * l3**2 / 3 * a3
                    - (l2 * l3 * s2 * c23 + 2 * l3**2 / 3 * s23 * c23) * d1**2 + l2 * l3 * s3 * d2**2)
    assert _same(rods[0, 2], T13)
    assert _same(rods[1, 2], T23)
    assert _same(rods[2, 2], T33)


def test_rows_sum_to_tau():
    model = _model(True, (0, 0, -g))
    T = link_torques(model, SimplifyMode.OFF)
    tau = derive(model, Method.NEWTON_EULER, SimplifyMode.OFF).tau
    for i in range(3):
        assert sp.expand(sum(T[i, :]) - tau[i]) == 0


def test_gravity_along_z():
    G = derive(_model(False, (0, 0, -g)), Method.LAGRANGE, SimplifyMode.FAST).gravity
    T2g = g * (m2 * l2 / 2 * s2 + m3 * (l2 * s2 + l3 / 2 * s23))
    T3g = g * m3 * l3 / 2 * s23
    assert G[0] == 0
    assert _same(G[1], -T2g)
    assert _same(G[2], -T3g)


def test_gravity_in_any_direction_with_loads():
    g1, g2, g3 = S("g1"), S("g2"), S("g3")
    c1, s1 = sp.cos(q1), sp.sin(q1)
    G = derive(_model(True, (g1, g2, g3)), Method.LAGRANGE, SimplifyMode.FAST).gravity
    r2 = m2 * l2 / 2 * s2 + M2 * l2 * s2 + m3 * (l2 * s2 + l3 / 2 * s23) + M3 * (l2 * s2 + l3 * s23)
    r2c = m2 * l2 / 2 * c2 + M2 * l2 * c2 + m3 * (l2 * c2 + l3 / 2 * c23) + M3 * (l2 * c2 + l3 * c23)
    T1g = -s1 * r2 * g1 + c1 * r2 * g2
    T2g = c1 * r2c * g1 + s1 * r2c * g2 - r2 * g3
    T3g = (m3 / 2 + M3) * l3 * (c1 * c23 * g1 + s1 * c23 * g2 - s23 * g3)
    for mine, his in zip(G, (T1g, T2g, T3g)):
        assert _same(mine, -his)


def test_load_at_the_end_of_link_3():
    """Pages 24-25: the torques a load M3 at the tip needs (counted with link 3)."""
    model = _model(True)
    T = link_torques(model, SimplifyMode.FAST)
    rod = link_torques(_model(False), SimplifyMode.FAST)
    u, v = l2 * s2 + l3 * s23, l2 * c2 + l3 * c23
    T1 = M3 * (u**2 * a1 + 2 * u * v * d1 * d2 + 2 * l3 * c23 * u * d1 * d3)
    T2 = M3 * ((l2**2 + 2 * l2 * l3 * c3 + l3**2) * a2 + l3 * (l2 * c3 + l3) * a3 - u * v * d1**2
               - 2 * l2 * l3 * s3 * d2 * d3 - l2 * l3 * s3 * d3**2)
    T3 = M3 * (l3 * (l2 * c3 + l3) * a2 + l3**2 * a3 - l3 * c23 * u * d1**2 + l2 * l3 * s3 * d2**2)
    for i, his in enumerate((T1, T2, T3)):
        assert _same(T[i, 2] - rod[i, 2], his)


def test_load_at_the_end_of_link_2():
    """Page 23: a mass M2 at the end of link 2 acts like the rod with l^2/3 -> l^2."""
    T = link_torques(_model(True), SimplifyMode.FAST)
    rod = link_torques(_model(False), SimplifyMode.FAST)
    assert _same(T[0, 1] - rod[0, 1], M2 * l2**2 * (s2**2 * a1 + 2 * s2 * c2 * d1 * d2))
    assert _same(T[1, 1] - rod[1, 1], M2 * l2**2 * (a2 - s2 * c2 * d1**2))
