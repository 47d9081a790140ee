"""ROBMAT (Horn & Linge 1994), sections 5 and 6: the printed double pendulum and the modified Stanford arm."""

from __future__ import annotations

import sympy as sp
import pytest

from tests.support import robot_path
from designer.dynamics import Method, SimplifyMode, derive, velocity_products, velocity_squares
from designer.model import symbol as S
from designer.project import load_project

L1, L2, m1, m2, g = (S(n) for n in ("L1", "L2", "m1", "m2", "g"))
q1, q2 = S("q1"), S("q2")
qd1, qd2, qdd1, qdd2 = S("qd1"), S("qd2"), S("qdd1"), S("qdd2")


def _zero(m) -> bool:
    """simplify(mine - printed) == 0 for every entry."""
    return all(sp.simplify(e) == 0 for e in sp.Matrix(m))


def _load(name):
    return load_project(robot_path(name))


@pytest.fixture(scope="module")
def pendulum():
    return derive(_load("double_pendulum"), Method.LAGRANGE, SimplifyMode.FAST)


def test_double_pendulum_mass_matrix_out5(pendulum):
    printed = sp.Matrix([[L1**2 * m1 + L1**2 * m2 + 2 * sp.cos(q2) * L1 * L2 * m2 + L2**2 * m2,
                          L2 * (sp.cos(q2) * L1 + L2) * m2],
                         [L2 * (sp.cos(q2) * L1 + L2) * m2, L2**2 * m2]])
    assert _zero(pendulum["M"] - printed)


def test_double_pendulum_coriolis_out6_and_centrifugal_out7(pendulum):
    B = sp.Matrix([[-(L1 * L2 * m2 * sp.sin(q2))], [0]])
    C = sp.Matrix([[0, -(L1 * L2 * m2 * sp.sin(q2))], [L1 * L2 * m2 * sp.sin(q2), 0]])
    assert pendulum["B"].shape == (2, 1)
    assert _zero(pendulum["B"] - B)
    assert _zero(pendulum["C"] - C)


def test_double_pendulum_gravity_out8_keeps_angle_sum(pendulum):
    G = sp.Matrix([g * (L1 * m1 * sp.sin(q1) + L1 * m2 * sp.sin(q1) + L2 * m2 * sp.sin(q1 + q2)),
                   g * L2 * m2 * sp.sin(q1 + q2)])
    assert _zero(pendulum["G"] - G)
    assert pendulum["G"][1].has(sp.sin(q1 + q2))  # FAST keeps the printed sum of angles


def test_double_pendulum_newton_euler_out9_and_out11():
    F = derive(_load("double_pendulum"), Method.NEWTON_EULER, SimplifyMode.FAST)
    printed = sp.Matrix([
        g * L1 * m1 * sp.sin(q1) + g * L1 * m2 * sp.sin(q1) + g * L2 * m2 * sp.sin(q1 + q2)
        - 2 * L1 * L2 * m2 * sp.sin(q2) * qd1 * qd2 - L1 * L2 * m2 * sp.sin(q2) * qd2**2
        + L1**2 * m1 * qdd1 + L1**2 * m2 * qdd1 + 2 * sp.cos(q2) * L1 * L2 * m2 * qdd1
        + L2**2 * m2 * qdd1 + sp.cos(q2) * L1 * L2 * m2 * qdd2 + L2**2 * m2 * qdd2,
        L2 * m2 * (g * sp.sin(q1 + q2) + L1 * sp.sin(q2) * qd1**2 + sp.cos(q2) * L1 * qdd1
                   + L2 * qdd1 + L2 * qdd2)])
    assert _zero(F["tau"] - printed)
    # Out[11]: F - (M q'' + 2 B q'q' + C q'^2 + G) = 0
    lag = derive(_load("double_pendulum"), Method.LAGRANGE, SimplifyMode.FAST)
    qd = (qd1, qd2)
    f = lag["M"] * sp.Matrix([qdd1, qdd2]) + 2 * lag["B"] * velocity_products(qd) \
        + lag["C"] * velocity_squares(qd) + lag["G"]
    assert _zero(F["tau"] - f)


def test_b_columns_follow_velocity_products_order():
    """For n = 3 the columns of B are q1'q2', q1'q3', q2'q3': check 2 B qq + C q2 = h."""
    eq = derive(_load("stanford_modified"), Method.LAGRANGE, SimplifyMode.OFF)
    qd = eq.model.qd
    h = 2 * eq["B"] * velocity_products(qd) + eq["C"] * velocity_squares(qd)
    ne = derive(eq.model, Method.NEWTON_EULER, SimplifyMode.OFF)
    assert eq["B"].shape == (3, 3)
    assert sp.expand(h - ne.coriolis) == sp.zeros(3, 1)


@pytest.mark.parametrize("mode", [SimplifyMode.OFF, SimplifyMode.FAST])
def test_modified_stanford_both_methods_agree_symbolically(mode):
    model = _load("stanford_modified")
    lag = derive(model, Method.LAGRANGE, mode)
    ne = derive(model, Method.NEWTON_EULER, mode)
    diff = (lag.tau - ne.tau).applyfunc(lambda e: sp.expand(sp.expand_trig(e)))
    assert diff == sp.zeros(3, 1)
    # the prismatic joint sees no Coriolis term from its own velocity: C_33 = 0, G_3 = -m3 g^T z_2
    assert lag["C"][2, 2] == 0
    assert sp.simplify(lag["G"][2] - S("m3") * S("g") * sp.cos(S("q2"))) == 0
