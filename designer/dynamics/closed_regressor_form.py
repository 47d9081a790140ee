"""The regressor of a linearly closing closed chain in closed form: tau_a = Y_a(q_a, qd_a, qdd_a) pi.

pi holds the ten standard parameters of every link of the tree (m, m c, the inertia about the link
frame's origin, in link frame j: :data:`~designer.dynamics.inertial.PARAMETER_KINDS`, passive links
and bars too), as :class:`designer.identification.regressor.Regressor` numbers them. With the closure substituted
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

__all__ = ["ClosedRegressorParts", "closed_regressor_matrix"]

_INERTIA = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]   # XX XY XZ YY YZ ZZ


class ClosedRegressorParts:
    """Per standard parameter k of the tree (10 a link, :func:`closed_regressor_matrix`'s column order):
    M^(k), G^(k) and the Christoffel symbols of M^(k) as ring elements; :meth:`matrix` gives any
    combination sum_k x_k Q^(k) of one quantity as a sympy Matrix in the actuated symbols."""

    def __init__(self, model: Manipulator, token: CancelToken = NEVER):
        act, pas, A, c = linear_closure(model)
        exact = exact_angles(model).model
        t = _Tree(exact, act, pas, A, c)
        _verify_closure(t, token)
        self.tr, self.na, self.act, self.token = t.tr, len(act), act, token
        tr, na, zero = self.tr, self.na, self.tr.zero
        frames = run(_frames_job(t, token), None, token)
        self.qd = [tr.gens[exact.qd[i]] for i in act]
        self.qdd = [tr.gens[exact.qdd[i]] for i in act]
        self.M: list = []
        self.G: list = []
        unit = [[tr.one if r == s else zero for s in range(3)] for r in range(3)]
        for j in range(exact.n):
            token.check()
            V, W, g = frames.V[j], frames.W[j], frames.g[j]
            for kind in range(len(PARAMETER_KINDS)):
                if kind == 0:
                    M = [[tr.dot(V[a], V[b], token) for b in range(na)] for a in range(na)]
                    G = [-tr.dot(g, V[a], token) for a in range(na)]
                elif kind <= 3:
                    e = unit[kind - 1]
                    M = [[tr.dot(e, tr.cross(V[a], W[b], token), token)
                          + tr.dot(e, tr.cross(V[b], W[a], token), token) for b in range(na)] for a in range(na)]
                    G = [-tr.dot(g, tr.cross(W[a], e, token), token) for a in range(na)]
                else:
                    r, s = _INERTIA[kind - 4]
                    M = [[tr.mul(W[a][r], W[b][s]) + (tr.mul(W[a][s], W[b][r]) if r != s else zero)
                          for b in range(na)] for a in range(na)]
                    G = [zero] * na
                self.M.append(M)
                self.G.append(G)
        self.christoffel = [_christoffel(tr, M, act, token) if any(any(row) for row in M) else None for M in self.M]
        self.carrier = actuated_model(model, act)
        self.rename = {}
        for k, i in enumerate(act):
            for old, new in ((exact.q[i], self.carrier.q[k]), (exact.qd[i], self.carrier.qd[k]),
                             (exact.qdd[i], self.carrier.qdd[k])):
                self.rename[old] = new

    def _velocity(self, k: int, i: int, j: int | None = None):
        """h^(k)_i, or with ``j`` the Coriolis matrix entry C^(k)_ij = sum_l c_ijl qd_l."""
        tr, christ, na = self.tr, self.christoffel[k], self.na
        if christ is None:
            return tr.zero
        if j is not None:
            return sum((tr.mul(christ[i][j][m], self.qd[m]) for m in range(na)), tr.zero)
        return sum((tr.mul(christ[i][a][b], tr.mul(self.qd[a], self.qd[b])) for a in range(na) for b in range(na)),
                   tr.zero)

    def entry(self, quantity: str, k: int, i: int, j: int = 0):
        """One ring element of parameter k's tau, M, G, h or C (the coriolis matrix)."""
        tr = self.tr
        if quantity == "M":
            return self.M[k][i][j]
        if quantity == "G":
            return self.G[k][i]
        if quantity == "h":
            return self._velocity(k, i)
        if quantity == "C":
            return self._velocity(k, i, j)
        return tr.chop(sum((tr.mul(self.M[k][i][m], self.qdd[m]) for m in range(self.na)), tr.zero)
                       + self._velocity(k, i) + self.G[k][i])

    def matrix(self, quantity: str, weights: dict | None = None) -> sp.Matrix:
        """``weights`` None: the regressor-like matrix of ``quantity`` (tau: Y_a, n_a x 10 n); else
        sum_k weights[k] Q^(k) (weights: {column: sympy expression}) as an n_a x n_a or n_a x 1 Matrix."""
        tr, na = self.tr, self.na
        if weights is None:
            cols = len(self.M)
            return sp.Matrix(na, cols, lambda i, k: tr.expr(self.entry(quantity, k, i)).xreplace(self.rename))
        shape = (na, na) if quantity in ("M", "C") else (na, 1)

        monomials: dict = {}

        def monomial(m):
            if m not in monomials:
                monomials[m] = tr.expr(tr.ring.from_dict({m: tr.domain.one})).xreplace(self.rename)
            return monomials[m]

        def cell(i, j):
            """sum over the entry's monomials of monomial * (linear form of the weights): the weights
            multiply numbers, and each trig monomial is written once (the CSE then shares it)."""
            self.token.check()
            acc: dict = {}
            for k, w in weights.items():
                for m, c in self.entry(quantity, k, i, j).items():
                    acc.setdefault(m, []).append((float(c) if tr.domain.is_RR else tr.domain.to_sympy(c), w))
            big = max((abs(c) for pairs in acc.values() for c, _ in pairs if isinstance(c, float)), default=0.0)
            terms = []
            for m, pairs in acc.items():
                linear = sp.Add(*[(sp.Float(c) if isinstance(c, float) else c) * w for c, w in pairs
                                  if not isinstance(c, float) or abs(c) > 1e-13 * big])
                if linear != 0:
                    terms.append(linear * monomial(m))
            return sp.Add(*terms)
        return sp.Matrix(*shape, cell)


def closed_regressor_matrix(model: Manipulator, token: CancelToken = NEVER) -> sp.Matrix:
    """Y_a (n_a x 10 n_tree) in the actuated coordinates' symbols q1..q_na (as the closed forms'
    carrier model names them); raises NotLinearClosure for a loop that does not close linearly."""
    return ClosedRegressorParts(model, token).matrix("tau")
