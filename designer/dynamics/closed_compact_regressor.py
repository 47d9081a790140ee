"""The regressor of a closed chain's compact form: tau_a = Y_a pi, over the compact form's steps.

pi holds the ten standard parameters of every link of the tree (m, m c, the inertia about the link
frame's origin, in link frame j; passive links and bars too), then, with the drive data, the drive
parameters Ia, fv, fc of the tree's joints that have drive data (:func:`~.inertial.drive_slots`
order), as :class:`designer.identification.regressor.Regressor` numbers them.

The loop quantities are the compact form's steps, computed once (:mod:`.closed_compact`: passive
positions, W_p, qd_p, qdd_p = W_p qdd_a + b) and so is the tree's outward pass (w, wd, vd, U of each
link, the tau recursion's own named steps). A column of the tree's regressor is the inward pass of
one link's wrench for one unit joint-frame parameter (f = m vd + U m c, n = J wd + w x J w + m c x vd)
carried to the base along the link's parents; Y_a = W^T Y_tree with W = [I; W_p] (rows: the tree's
joints), then the joint-frame columns gathered into link-frame ones (standard convention: pi' = T pi).

:func:`compact_regressor_at` gives the same at other rates (the base-parameter code's M, G and h:
a forward pass at qd = 0, qdd = W e_k without gravity, and so on), its new steps named with a tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator
from .customized import ZERO, _add, _mul
from .inertial import drive_slots
from .loop_symbols import Steps
from .standard_ne import _wrench, link_frame_columns
from .tree_recursion import tree_backward, tree_motion

if TYPE_CHECKING:
    from .closed_compact import ClosedCompact

__all__ = ["compact_regressor", "compact_regressor_at", "rate_matrix", "tree_of"]


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
