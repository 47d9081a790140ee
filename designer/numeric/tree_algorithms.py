"""The recursive algorithms on a tree of links (closed chains cut open into their spanning tree).

The serial algorithms of :mod:`designer.numeric.algorithms` with each link's predecessor its
``parent`` instead of the link before: the outward pass starts each body from its parent's
velocities and accelerations, the inward pass adds each body's wrench to its parent's, and the
composite-rigid-body algorithm carries a unit-acceleration wrench down the path to the base.
Same joint frames and constants (:class:`TreeModel` is an :class:`ArmModel` with the parents),
same scalar-generic style, so a :class:`~designer.numeric.trace.Tape` can trace them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..kinematics.tree import TreeArm
from . import algorithms as alg
from .algorithms import ZERO, Trig, _add, _cross, _dot, _mv, _rotate_sym, _scale
from .model import ArmModel, _split, _tuple3, lumped_bodies

__all__ = ["TreeModel", "tree_rnea", "tree_crba"]


@dataclass(frozen=True, eq=False)
class TreeModel(ArmModel):
    """An :class:`ArmModel` whose placements X_i are from the parent's joint frame (0-based, -1 base)."""

    parent: tuple[int, ...] = ()

    @classmethod
    def from_tree(cls, tree: TreeArm) -> TreeModel:
        arm = tree.arm
        bodies = lumped_bodies(arm)
        E: list = []
        r: list = []
        mass: list = []
        com: list = []
        inertia: list = []
        after: list = []
        for i in range(arm.n):
            before, aft = _split(arm, i)
            p = tree.parent[i]
            X = (np.eye(4) if p < 0 else after[p]) @ tree.pre[i] @ before
            E.append(tuple(_tuple3(row) for row in X[:3, :3]))
            r.append(_tuple3(X[:3, 3]))
            R, o = aft[:3, :3], aft[:3, 3]
            mass.append(float(bodies.mass[i]))
            com.append(_tuple3(R @ bodies.com[i] + o))
            inertia.append(tuple(_tuple3(row) for row in R @ bodies.inertia[i] @ R.T))
            after.append(aft)
        return cls(n=arm.n, revolute=tuple(bool(x) for x in arm.revolute), E=tuple(E), r=tuple(r),
                   mass=tuple(mass), com=tuple(com), inertia=tuple(inertia),
                   gravity=_tuple3(arm.gravity), after=tuple(after), parent=tuple(tree.parent))


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
        p = jt.p[i]
        a = jt.down(i, _add(a, _add(_cross(dw, p), _cross(w, _cross(w, p)))))
        w, dw = jt.down(i, w), jt.down(i, dw)
        if model.revolute[i]:
            dw = (dw[0] + w[1] * qd[i], dw[1] - w[0] * qd[i], dw[2] + qdd[i])
            w = (w[0], w[1], w[2] + qd[i])
        else:
            a = (a[0] + 2.0 * w[1] * qd[i], a[1] - 2.0 * w[0] * qd[i], a[2] + qdd[i])
        W.append(w)
        DW.append(dw)
        A.append(a)
        c, m, I = model.com[i], model.mass[i], model.inertia[i]
        ac = _add(a, _add(_cross(dw, c), _cross(w, _cross(w, c))))
        F = _scale(m, ac)
        forces.append(F)
        moments.append(_add(_add(_mv(I, dw), _cross(w, _mv(I, w))), _cross(c, F)))
    tau = [0.0] * model.n
    for i in reversed(range(model.n)):
        f, n_ = forces[i], moments[i]
        tau[i] = n_[2] if model.revolute[i] else f[2]
        par = model.parent[i]
        if par >= 0:
            f_up = jt.up(i, f)
            forces[par] = _add(forces[par], f_up)
            moments[par] = _add(moments[par], _add(jt.up(i, n_), _cross(jt.p[i], f_up)))
    return tau


def tree_crba(model: TreeModel, q: Sequence, trig: Trig) -> list[list]:
    """M(q) of the tree, n x n, symmetric."""
    jt = alg._Joints(model, q, trig)
    n = model.n
    mass = list(model.mass)
    first = [_scale(m, c) for m, c in zip(model.mass, model.com)]
    rot = []
    for m, c, I in zip(model.mass, model.com, model.inertia):
        cc = _dot(c, c)
        rot.append(tuple(tuple(I[j][k] + m * ((cc if j == k else 0.0) - c[j] * c[k]) for k in range(3))
                         for j in range(3)))
    M = [[0.0] * n for _ in range(n)]
    for i in reversed(range(n)):
        h, Io = first[i], rot[i]
        if model.revolute[i]:
            f, mo = (-h[1], h[0], 0.0), (Io[0][2], Io[1][2], Io[2][2])
            M[i][i] = mo[2]
        else:
            f, mo = (0.0, 0.0, mass[i]), (h[1], -h[0], 0.0)
            M[i][i] = f[2]
        j = i
        while model.parent[j] >= 0:
            f_up = jt.up(j, f)
            f, mo = f_up, _add(jt.up(j, mo), _cross(jt.p[j], f_up))
            j = model.parent[j]
            M[j][i] = M[i][j] = mo[2] if model.revolute[j] else f[2]
        par = model.parent[i]
        if par < 0:
            continue
        p, m = jt.p[i], mass[i]
        hr = jt.up(i, h)
        RIo = _rotate_sym(jt, i, Io)
        hp, pp = _dot(hr, p), _dot(p, p)
        parent = rot[par]
        new = [[0.0] * 3 for _ in range(3)]
        for j in range(3):
            for k in range(j, 3):
                new[j][k] = new[k][j] = (parent[j][k] + RIo[j][k] - p[j] * hr[k] - hr[j] * p[k] - m * p[j] * p[k]
                                         + ((2.0 * hp + m * pp) if j == k else 0.0))
        rot[par] = tuple(tuple(row) for row in new)
        first[par] = _add(first[par], _add(hr, _scale(m, p)))
        mass[par] = mass[par] + m
    return M
