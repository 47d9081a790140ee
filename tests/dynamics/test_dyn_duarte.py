"""Duarte, 'Dynamics of planar systems with one and two links': his free-body (Newton-Euler) equations
of the two-link inverted pendulum, In[7]-In[10], rebuilt here with sympy as the notebook writes them,
against our M, V = h and G from the robots/planar_two_link.json model."""

from __future__ import annotations

import pytest
import sympy as sp
from sympy.physics.vector import dynamicsymbols

from tests.support import robot_path
from designer.dynamics import Method, SimplifyMode, derive
from designer.model import symbol as S
from designer.project import load_project


def _duarte_two_link():
    """tau = M a'' + V + G exactly as the notebook computes it (its In[8] and In[10])."""
    t = sp.Symbol("t")
    d1, d2, L1, L2 = (S(n) for n in ("d1", "d2", "L1", "L2"))
    m1, m2, I1, I2, g = (S(n) for n in ("m1", "m2", "I1", "I2", "g"))
    a1, a2 = dynamicsymbols("alpha1 alpha2")
    a1d, a2d = a1.diff(t), a2.diff(t)
    a1dd, a2dd = a1.diff(t, 2), a2.diff(t, 2)
    x1, y1 = d1 * sp.cos(a1), d1 * sp.sin(a1)
    x2, y2 = L1 * sp.cos(a1) + d2 * sp.cos(a1 + a2), L1 * sp.sin(a1) + d2 * sp.sin(a1 + a2)
    x1dd, y1dd = x1.diff(t, 2), y1.diff(t, 2)
    x2dd, y2dd = x2.diff(t, 2), y2.diff(t, 2)
    # link 2
    Fr2x = m2 * x2dd
    Fr2y = m2 * y2dd + m2 * g
    T2 = I2 * (a1dd + a2dd) - d2 * Fr2x * sp.sin(a1 + a2) + d2 * Fr2y * sp.cos(a1 + a2)
    # link 1
    Fr1x = m1 * x1dd + Fr2x
    Fr1y = m1 * y1dd + Fr2y + m1 * g
    T1 = I1 * a1dd + T2 - d1 * Fr1x * sp.sin(a1) + d1 * Fr1y * sp.cos(a1) \
        - (L1 - d1) * Fr2x * sp.sin(a1) + (L1 - d1) * Fr2y * sp.cos(a1)
    T1, T2 = T1.expand(), T2.expand()
    M = sp.Matrix([[T1.coeff(a1dd), T1.coeff(a2dd)], [T2.coeff(a1dd), T2.coeff(a2dd)]])
    V = sp.Matrix([T.coeff(a1d**2) * a1d**2 + T.coeff(a2d**2) * a2d**2 + T.coeff(a1d * a2d) * a1d * a2d
                   for T in (T1, T2)])
    G = sp.Matrix([T1.coeff(g) * g, T2.coeff(g) * g])
    to_ours = {a1dd: S("qdd1"), a2dd: S("qdd2"), a1d: S("qd1"), a2d: S("qd2")}
    plain = {a1: S("q1"), a2: S("q2")}
    return [m.subs(to_ours).subs(plain) for m in (M, V, G)]


def _zero(e) -> bool:
    """Exact zero test: expanded in sin/cos of single angles, sin^2 = 1 - cos^2."""
    q = (S("q1"), S("q2"))
    e = sp.expand(sp.expand_trig(sp.expand(sp.expand_trig(sp.expand(e)))))
    return sp.expand(e.subs({sp.sin(x) ** 2: 1 - sp.cos(x) ** 2 for x in q})) == 0


@pytest.mark.parametrize("method", list(Method))
def test_two_link_matches_duarte(method):
    M, V, G = _duarte_two_link()
    eq = derive(load_project(robot_path("planar_two_link")), method, SimplifyMode.FAST)
    for mine, his in ((eq.mass_matrix, M), (eq.coriolis, V), (eq.gravity, G)):
        assert all(_zero(e) for e in mine - his)


def test_coupling_terms_vanish_when_the_second_link_carries_no_mass():
    """Duarte's interaction effects: M12 and the Coriolis terms come from link 2 only."""
    model = load_project(robot_path("planar_two_link"))
    eq = derive(model, Method.LAGRANGE, SimplifyMode.FAST)
    massless = {S("m2"): 0, S("I2"): 0}
    assert eq["M"][0, 1].xreplace(massless) == 0
    assert eq.coriolis.xreplace(massless) == sp.zeros(2, 1)
    assert eq["M"][0, 1] != 0
