"""The symbolic regressor of any mechanism in its coordinates (a closed chain's actuated joints):
tau = Y(q, qd, qdd) pi, pi the ten standard parameters of every link of the tree (m, m c, the inertia about the
link frame's origin, in link frame j: :data:`~designer.dynamics.inertial.PARAMETER_KINDS`; passive links and
bars too), as :class:`designer.identification.regressor.Regressor` numbers them. :func:`regressor_form` is the
front door (callers never choose); the loops enter as the tree's rows projected by W = d q_tree / d q_a
(W = I without loops: the tree's own regressor, :func:`~.standard_ne.symbolic_regressor`).

A linearly closing loop, the closure substituted exactly (:mod:`.closed_form`, :class:`RegressorParts`): the
link frame j's origin velocity V_j and angular velocity W_j are linear in qd_a, and a body's kinetic and
potential energy are linear in its standard parameters:

    T_j = 1/2 m v.v + m c . (v x w) + 1/2 w^T J_O w,     U_j = -g . (m p + R m c),

so M_a is sum over the parameters of pi_k M^(k), with M^(k)[a][b] = V_a.V_b for m, e . (V_a x W_b +
V_b x W_a) for the component e of m c and W_a^T E W_b for an inertia entry E (both symmetric places
set for a product of inertia); G^(k)[a] = -g_j . V_a and -g_j . (W_a x e). Y_a's column k is then
M^(k) qdd_a + the Christoffel velocity terms of M^(k) + G^(k): Lagrange's equations are linear in pi.

Any loop, over the compact form's steps (:func:`compact_regressor`; then, with the drive data, the drive
parameters Ia, fv, fc of the tree's joints that have drive data, :func:`~.inertial.drive_slots` order): the
loop quantities are the compact form's steps, computed once (:mod:`.closed_compact`: passive positions, W_p,
qd_p, qdd_p = W_p qdd_a + b) and so is the tree's outward pass (w, wd, vd, U of each link, the tau recursion's
own named steps). A column of the tree's regressor is the inward pass of one link's wrench for one unit
joint-frame parameter (f = m vd + U m c, n = J wd + w x J w + m c x vd) carried to the base along the link's
parents; Y_a = W^T Y_tree with W = [I; W_p] (rows: the tree's joints), then the joint-frame columns gathered
into link-frame ones (standard convention: pi' = T pi). :func:`compact_regressor_at` gives the same at other
rates (the base-parameter code's M, G and h: a forward pass at qd = 0, qdd = W e_k without gravity, and so
on), its new steps named with a tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from ..jobs import NEVER, CancelToken, run
from ..model.angles import exact_angles
from ..model.manipulator import Manipulator
from .closed_form import _christoffel, _frames_job, _Tree, _verify_closure, actuated_model, linear_closure
from .customized import ZERO, _add, _mul
from .inertial import PARAMETER_KINDS, drive_slots
from .loop_symbols import Steps
from .standard_ne import _wrench, link_frame_columns, symbolic_regressor
from .tree_recursion import tree_backward, tree_motion

if TYPE_CHECKING:
    from .closed_compact import ClosedCompact

__all__ = ["regressor_form", "RegressorParts", "compact_regressor", "compact_regressor_at", "rate_matrix", "tree_of"]


def regressor_form(model: Manipulator, token: CancelToken = NEVER) -> sp.Matrix:
    """Y (n_a x 10 n_tree) of any mechanism whose loops close linearly, in its coordinates' symbols (a closed
    chain's: q1..q_na, as the closed forms' carrier model names them): the tree's own regressor without loops
    (the model's angles exact), else the closure substituted (:class:`RegressorParts`). Raises NotLinearClosure
    for a loop that does not close linearly (:func:`compact_regressor` then, over the compact form's steps)."""
    if not model.loops:
        return symbolic_regressor(exact_angles(model).model, token)[0]
    return RegressorParts(model, token).matrix("tau")


_INERTIA = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]   # XX XY XZ YY YZ ZZ


class RegressorParts:
    """Per standard parameter k of the tree (10 a link, :func:`regressor_form`'s column order):
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


def tree_of(cc: ClosedCompact) -> Manipulator:
    """The tree model ``cc`` projects (a ValueError if it does not carry it)."""
    if cc.tree is None or not cc.motion:
        raise ValueError("the regressor: this compact form does not carry its projection")
    return cc.tree


def rate_matrix(cc: ClosedCompact) -> list[list]:
    """W = d q_tree / d q_a over the steps' symbols (rows: the tree's joints): unit rows for the actuated
    joints, W_p's rows for the passive ones."""
    na = len(cc.act)
    W: list[list] = [[ZERO] * na for _ in range(tree_of(cc).n)]
    for k, i in enumerate(cc.act):
        W[i][k] = sp.S.One
    for r, i in enumerate(cc.pas):
        W[i] = [sp.sympify(w) for w in cc.Wp[r]]
    return W


def _projected(cc: ClosedCompact, motion: Sequence, token: CancelToken) -> sp.Matrix:
    """W^T Y_tree on the link-frame standard parameters, from the outward pass ``motion``."""
    W = rate_matrix(cc)
    n, na = tree_of(cc).n, len(cc.act)
    Yj = sp.zeros(na, 10 * n)
    for j in range(n):   # link j's columns: the inward pass of a unit joint-frame parameter on link j alone
        token.check()
        for k in range(10):
            unit = [ZERO] * 10
            unit[k] = sp.S.One
            f, nm = _wrench(unit, *motion[j])
            tree = tree_backward(list(cc.joints), j, f, nm)
            for a in range(na):
                Yj[a, 10 * j + k] = _add(*[_mul(W[i][a], t) for i, t in tree.items() if W[i][a] != 0 and t != 0])
    return link_frame_columns(tree_of(cc), Yj)


def _drive_columns(cc: ClosedCompact, qd: Sequence, qdd: Sequence) -> sp.Matrix:
    """W_j^T times qdd_j, qd_j, sign(qd_j) (the tree's rates ``qd``, ``qdd``) for Ia_j, fv_j, fc_j."""
    W = rate_matrix(cc)
    slots = drive_slots(tree_of(cc))
    Y = sp.zeros(len(cc.act), len(slots))
    for c, (j, kind) in enumerate(slots):
        rate = {"Ia": sp.sympify(qdd[j]), "fv": sp.sympify(qd[j]), "fc": sp.sign(sp.sympify(qd[j]))}[kind]
        for a in range(len(cc.act)):
            Y[a, c] = _mul(W[j][a], rate)
    return Y


def compact_regressor(cc: ClosedCompact, drives: bool = False, token: CancelToken = NEVER) -> sp.Matrix:
    """Y_a (n_a x (10 n_tree [+ drive parameters])) over ``cc``'s steps: tau_a = Y_a pi (module docstring)."""
    Y = _projected(cc, cc.motion, token)
    return Y.row_join(_drive_columns(cc, cc.tree_qd, cc.tree_qdd)) if drives else Y


def compact_regressor_at(cc: ClosedCompact, qd: Sequence, qdd: Sequence, gravity: bool, tag: str,
                         drives: bool = False, token: CancelToken = NEVER) -> tuple[list[tuple], sp.Matrix]:
    """(new steps, Y_a) with the tree's rates ``qd``, ``qdd`` (expressions over ``cc``'s steps) and gravity
    on or off: the outward pass named ``w<j>_<tag>_x`` and so on (``tag``: a name no step has)."""
    steps = Steps()

    def name(kind: str, j: int, values: list) -> list:
        if kind == "U":
            return steps.mat("U", f"U{j + 1}{tag}", values, j + 1)
        return steps.vec(kind, f"{kind}{j + 1}{tag}", values, j + 1)
    motion = tree_motion(tree_of(cc), list(cc.joints), qd, qdd, gravity, name, token)
    Y = _projected(cc, motion, token)
    if drives:
        Y = Y.row_join(_drive_columns(cc, qd, qdd))
    return [(a.symbol, a.value) for a in steps.items], Y
