"""The customized Newton-Euler recursion of :mod:`~designer.dynamics.customized` along a tree of links.

A closed chain cut open is a tree: each link hangs from its ``parent`` (model/mechanism.py), after
Khalil and Kleinfinger's Rz(gamma) Tz(b). The serial recursion carries over with two changes: the
outward pass starts each link from its parent's (w, wd, vd, U) instead of the link before, and the
inward pass adds each link's wrench to its parent's. The joint frames are those of
:mod:`~designer.dynamics.customized` (joint j along z of frame j'):

- standard: j' = parent's frame Rz(gamma + theta_j) Tz(b + d_j), and seen from the parent's joint
  frame R = Rx(alpha_par) Rz(gamma + theta), P = (a_par, -sin(alpha_par) (b + d), cos(alpha_par) (b + d))
  (Rz and Tz commute, so gamma joins theta and b joins d); the link's inertial data move from frame j
  to j' through Tx(a_j) Rx(alpha_j) as in the serial case;
- modified: j' = j = parent Rz(gamma) Tz(b) Rx(alpha) Tx(a) Rz(theta) Tz(d), R = Rz(gamma) Rx(alpha) Rz(theta),
  P = Rz(gamma) (a, -sin(alpha) d, cos(alpha) d) + (0, 0, b).

The joint variables are passed in (``qs``, ``qd``, ``qdd``: any symbols or expressions), so a closed
chain's passive joints can be names the projection assigns (:mod:`~designer.dynamics.closed_compact`).
The numeric twin is :mod:`designer.numeric.tree_algorithms`; both are checked against Pinocchio.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.core.parameters import distribute

from ..jobs import NEVER, CancelToken
from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import parents_of
from .customized import (ZERO, _IDENTITY, _add, _bodies, _cross, _matvec, _mul, _rotx, _same, _u_matrix, _vadd,
                         base_motion,
                         link_step, link_wrench)

__all__ = ["TreeJoint", "tree_joints", "tree_tau_named", "tree_motion", "tree_backward", "modified_placement"]


@dataclass
class TreeJoint:
    """Joint j: its frame j' relative to its parent's joint frame (R, P), and its bodies in frame j'."""

    revolute: bool
    parent: int    # 0-based, -1 the base
    R: list
    P: list
    bodies: list


def _rotz(t):
    c, s = sp.cos(t), sp.sin(t)
    return [[c, -s, ZERO], [s, c, ZERO], [ZERO, ZERO, sp.S.One]]


def _matmul(A, B):
    cols = [_matvec(A, [B[0][k], B[1][k], B[2][k]]) for k in range(3)]
    return [[cols[k][r] for k in range(3)] for r in range(3)]


def modified_placement(link, theta, d) -> tuple[list, list]:
    """(R, P) of a modified-convention link frame in its parent's: Rz(gamma) Tz(b) Rx(alpha) Tx(a) Rz(theta) Tz(d)."""
    gamma, b = sp.sympify(link.gamma), sp.sympify(link.b)
    R = _matmul(_rotx(link.alpha), _rotz(theta))
    P = [link.a, -_mul(sp.sin(link.alpha), d), _mul(sp.cos(link.alpha), d)]
    if gamma != 0:
        R, P = _matmul(_rotz(gamma), R), _matvec(_rotz(gamma), P)
    return R, [P[0], P[1], _add(P[2], b)]


def tree_joints(model: Manipulator, qs) -> list[TreeJoint]:
    """The tree's joint frames (module docstring) with ``qs[j]`` the value of joint j."""
    standard = model.convention is Convention.STANDARD
    parents = parents_of(model.links)
    out = []
    for j, link in enumerate(model.links):
        par = parents[j] - 1
        theta, d = link.joint_values(qs[j])
        gamma, b = sp.sympify(link.gamma), sp.sympify(link.b)
        if standard:
            prev = model.links[par] if par >= 0 else None
            alpha, a = (prev.alpha, prev.a) if prev is not None else (ZERO, ZERO)
            R = _matmul(_rotx(alpha), _rotz(theta + gamma))
            dd = _add(d, b)
            P = [a, -_mul(sp.sin(alpha), dd), _mul(sp.cos(alpha), dd)]
            off_R, off_p = _rotx(link.alpha), [link.a, ZERO, ZERO]
        else:
            R, P = modified_placement(link, theta, d)
            off_R, off_p = _IDENTITY, [ZERO] * 3
        out.append(TreeJoint(link.is_revolute, par, R, P, _bodies(model, j, off_R, off_p)))
    return out


def tree_tau_named(model: Manipulator, joints: list[TreeJoint], qd, qdd, gravity: bool = True, name=_same,
                   token: CancelToken = NEVER) -> list:
    """tau of every joint of the tree; ``name(kind, j, values)`` as in customized._tau (the report names
    w, wd, vd, U, F, N, f, n, tau per link). ``gravity``: the base accelerates at -g."""
    with distribute(False):
        return _tree_tau(model, joints, qd, qdd, gravity, name, token)


def tree_motion(model: Manipulator, joints: list[TreeJoint], qd, qdd, gravity: bool = True, name=_same,
                token: CancelToken = NEVER) -> list[tuple]:
    """The outward pass alone: per joint (w, wd, vd, U) in its joint frame's axes (vd with the base's -g
    when ``gravity``), each named by ``name(kind, j, values)``; the regressor's wrenches read them."""
    w0, wd0, vd0 = base_motion(model)
    if not gravity:
        vd0 = [ZERO] * 3
    motion: list = []
    with distribute(False):
        for j, jt in enumerate(joints):
            token.check()
            w, wd, vd, U = (w0, wd0, vd0, None) if jt.parent < 0 else motion[jt.parent]
            w, wd, vd = link_step(jt, w, wd, vd, U, sp.sympify(qd[j]), sp.sympify(qdd[j]))
            w, wd, vd = name("w", j, w), name("wd", j, wd), name("vd", j, vd)
            motion.append((w, wd, vd, name("U", j, _u_matrix(w, wd))))
    return motion


def tree_backward(joints: list[TreeJoint], j: int, f: list, nm: list) -> dict[int, object]:
    """{joint i: its torque (force)} of a wrench (f, nm) on link j about its joint-frame origin, carried to
    the base along j's parents (the tree's inward pass for one link's wrench; no naming)."""
    out: dict[int, object] = {}
    i = j
    with distribute(False):
        while i >= 0:
            jt = joints[i]
            out[i] = nm[2] if jt.revolute else f[2]
            if jt.parent < 0:
                break
            Rf = _matvec(jt.R, f)
            nm = _vadd(_matvec(jt.R, nm), _cross(jt.P, Rf))
            f, i = Rf, jt.parent
    return out


def _tree_tau(model, joints, qd_all, qdd_all, gravity, name, token) -> list:
    n = len(joints)
    motion = tree_motion(model, joints, qd_all, qdd_all, gravity, name, token)
    F, Mo = [], []
    for j, jt in enumerate(joints):
        w, wd, vd, U = motion[j]
        Fj, Mj = link_wrench(jt.bodies, w, wd, vd, U)
        F.append(name("F", j, Fj))
        Mo.append(name("N", j, Mj))
    tau = [ZERO] * n
    fs, ns = [list(f) for f in F], [list(m) for m in Mo]   # the children's wrenches are added in
    for j in range(n - 1, -1, -1):
        token.check()
        jt = joints[j]
        f, nm = name("f", j, fs[j]), name("n", j, ns[j])
        tau[j] = name("tau", j, [nm[2] if jt.revolute else f[2]])[0]
        if jt.parent >= 0:
            Rf = _matvec(jt.R, f)
            ns[jt.parent] = _vadd(ns[jt.parent], _matvec(jt.R, nm), _cross(jt.P, Rf))
            fs[jt.parent] = _vadd(fs[jt.parent], Rf)
    return tau
