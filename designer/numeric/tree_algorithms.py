"""The recursive algorithms on a tree of links (closed chains cut open into their spanning tree).

The serial algorithms of :mod:`designer.numeric.algorithms` with each link's predecessor its
``parent`` instead of the link before: the outward pass starts each body from its parent's
velocities and accelerations, the inward pass adds each body's wrench to its parent's, and the
composite-rigid-body algorithm carries a unit-acceleration wrench down the path to the base.
Same joint frames and constants (:class:`TreeModel` is an :class:`ArmModel` with the parents),
same scalar-generic style, so a :class:`~designer.trace.Tape` can trace them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..kinematics.tree import TreeArm
from . import algorithms as alg
from ..trace import cross
from .algorithms import ZERO, Trig, _add, _scale
from .model import ArmModel, placements

__all__ = ["TreeModel", "tree_rnea", "tree_crba"]


@dataclass(frozen=True, eq=False)
class TreeModel(ArmModel):
    """An :class:`ArmModel` whose placements X_i are from the parent's joint frame (0-based, -1 base)."""

    parent: tuple[int, ...] = ()

    @classmethod
    def from_tree(cls, tree: TreeArm) -> TreeModel:
        return cls(**placements(tree.arm, tree.parent, tree.pre), parent=tuple(tree.parent))


def tree_rnea(model: TreeModel, q: Sequence, qd: Sequence, qdd: Sequence, gravity: bool, trig: Trig) -> list:
    """Joint torques of the tree tau(q, qd, qdd), with the gravity torques when ``gravity``."""
    jt = alg._Joints(model, q, trig)
    base_a = _scale(-1.0, model.gravity) if gravity else ZERO
    W: list = []
    DW: list = []
    A: list = []
    forces: list = []
    moments: list = []
    for i in range(model.n):
        par = model.parent[i]
        w, dw, a = (ZERO, ZERO, base_a) if par < 0 else (W[par], DW[par], A[par])
        w, dw, a = alg.outward(jt, i, w, dw, a, qd, qdd)
        W.append(w)
        DW.append(dw)
        A.append(a)
        F, mo = alg.body_wrench(model, i, w, dw, a)
        forces.append(F)
        moments.append(mo)
    tau = [0.0] * model.n
    for i in reversed(range(model.n)):
        f, n_ = forces[i], moments[i]
        tau[i] = n_[2] if model.revolute[i] else f[2]
        par = model.parent[i]
        if par >= 0:
            f_up = jt.up(i, f)
            forces[par] = _add(forces[par], f_up)
            moments[par] = _add(moments[par], _add(jt.up(i, n_), cross(jt.p[i], f_up)))
    return tau


def tree_crba(model: TreeModel, q: Sequence, trig: Trig) -> list[list]:
    """M(q) of the tree, n x n, symmetric."""
    jt = alg._Joints(model, q, trig)
    n = model.n
    mass, first, rot = alg.composites(model)
    M = [[0.0] * n for _ in range(n)]
    for i in reversed(range(n)):   # children come after their parents: every subtree is complete here
        f, mo, M[i][i] = alg.unit_wrench(model, i, mass, first, rot)
        j = i
        while model.parent[j] >= 0:   # carried down the path to the base
            f_up = jt.up(j, f)
            f, mo = f_up, _add(jt.up(j, mo), cross(jt.p[j], f_up))
            j = model.parent[j]
            M[j][i] = M[i][j] = mo[2] if model.revolute[j] else f[2]
        if model.parent[i] >= 0:
            alg.absorb(jt, i, model.parent[i], mass, first, rot)
    return M
