"""The regressor of a linearly closing closed chain in closed form: tau_a = Y_a(q_a, qd_a, qdd_a) pi.

pi holds the ten standard parameters of every link of the tree (m, m c, the inertia about the link
frame's origin, in link frame j: :data:`~designer.dynamics.inertial.PARAMETER_KINDS`, passive links
and bars too), as :mod:`designer.numeric.closed_regressor` numbers them. With the closure substituted
exactly (:mod:`.closed_form`), the link frame j's origin velocity V_j and angular velocity W_j are
linear in qd_a, and a body's kinetic and potential energy are linear in its standard parameters:

    T_j = 1/2 m v.v + m c . (v x w) + 1/2 w^T J_O w,     U_j = -g . (m p + R m c),

so M_a is sum over the parameters of pi_k M^(k), with M^(k)[a][b] = V_a.V_b for m, e . (V_a x W_b +
V_b x W_a) for the component e of m c and W_a^T E W_b for an inertia entry E (both symmetric places
set for a product of inertia); G^(k)[a] = -g_j . V_a and -g_j . (W_a x e). Y_a's column k is then
M^(k) qdd_a + the Christoffel velocity terms of M^(k) + G^(k): Lagrange's equations are linear in pi.
"""

from __future__ import annotations

import sympy as sp

from ..jobs import NEVER, CancelToken, run
from ..model.angles import exact_angles
from ..model.manipulator import Manipulator
from .closed_form import _christoffel, _frames_job, _Tree, _verify_closure, actuated_model, linear_closure
from .inertial import PARAMETER_KINDS

__all__ = ["closed_regressor_matrix"]

_INERTIA = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]   # XX XY XZ YY YZ ZZ


def closed_regressor_matrix(model: Manipulator, token: CancelToken = NEVER) -> sp.Matrix:
    """Y_a (n_a x 10 n_tree) in the actuated coordinates' symbols q1..q_na (as the closed forms'
    carrier model names them); raises NotLinearClosure for a loop that does not close linearly."""
    act, pas, A, c = linear_closure(model)
    exact = exact_angles(model).model
    t = _Tree(exact, act, pas, A, c)
    _verify_closure(t, token)
    tr, na = t.tr, len(act)
    frames = run(_frames_job(t, token), None, token)
    qd = [tr.gens[exact.qd[i]] for i in act]
    qdd = [tr.gens[exact.qdd[i]] for i in act]
    zero = tr.zero

    def column(M, G) -> list:
        christ = _christoffel(tr, M, act, token)
        return [tr.chop(sum((tr.mul(M[i][k], qdd[k]) for k in range(na)), zero)
                        + sum((tr.mul(christ[i][j][k], tr.mul(qd[j], qd[k])) for j in range(na) for k in range(na)),
                              zero) + G[i]) for i in range(na)]
    columns = []
    for j in range(exact.n):
        token.check()
        V, W, g = frames.V[j], frames.W[j], frames.g[j]
        unit = [[tr.one if r == s else zero for s in range(3)] for r in range(3)]
        for kind in range(len(PARAMETER_KINDS)):
            if kind == 0:
                M = [[tr.dot(V[a], V[b], token) for b in range(na)] for a in range(na)]
                G = [-tr.dot(g, V[a], token) for a in range(na)]
            elif kind <= 3:
                e = unit[kind - 1]
                M = [[tr.dot(e, tr.cross(V[a], W[b], token), token) + tr.dot(e, tr.cross(V[b], W[a], token), token)
                      for b in range(na)] for a in range(na)]
                G = [-tr.dot(g, tr.cross(W[a], e, token), token) for a in range(na)]
            else:
                r, s = _INERTIA[kind - 4]
                M = [[tr.mul(W[a][r], W[b][s]) + (tr.mul(W[a][s], W[b][r]) if r != s else zero)
                      for b in range(na)] for a in range(na)]
                G = [zero] * na
            columns.append(column(M, G))
    carrier = actuated_model(model, act)
    rename = {}
    for k, i in enumerate(act):
        for old, new in ((exact.q[i], carrier.q[k]), (exact.qd[i], carrier.qd[k]), (exact.qdd[i], carrier.qdd[k])):
            rename[old] = new
    return sp.Matrix(na, len(columns), lambda i, k: tr.expr(columns[k][i]).xreplace(rename))
