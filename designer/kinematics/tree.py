"""Numeric kinematics of a tree of links and of its loop constraints (closed chains).

A link's frame is T_0^i = T_0^{parent(i)} Rz(gamma_i) Tz(b_i) A_i(q_i) (model/mechanism.py). The
loop constraints are written in frame 0 so that their Jacobian, its rate and the multipliers
share one set of axes:

- the cut frames' origins coincide: p_i - p_j = 0, Jacobian J_v(p_i) - J_v(p_j), rate term the
  classical accelerations a_i - a_j at zero joint accelerations;
- their orientations agree (revolute: z_j . x_i = z_j . y_i = 0; fixed: also x_j . y_i = 0). For a
  pair (u on link j, v on link i) the residual is u . v, whose exact derivative is
  (u x v) . (w_j - w_i): Newton's Jacobian is exact away from closure too.

Velocities and the rate terms come from one outward pass of spatial velocities in frame 0
(Featherstone's motion vectors at the origin): the joint subspace of a revolute joint is
(z, o x z), of a prismatic one (0, z), and at zero joint accelerations A_k = A_parent + V_parent x S qd.

The loops' terms are written once, over any scalar (:func:`scalar_loop_terms`, 4 x 4 lists): traced on a
:class:`~designer.trace.Tape` once per mechanism, their flat code is :meth:`TreeArm.loop_terms` (the interpreted
closure's Newton, W and rates, a run's residuals and cut forces), and with the tree's dynamics a nonlinear closure's
machine code (:mod:`designer.numeric.closed_newton`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import CutJoint, parents_of, pinned_links, tool_link
from ..trace import Tape, Trig, build, cross, dot
from .numeric import NumericArm, cross3, dh_matrices

__all__ = ["TreeArm", "TreeState", "LoopTerms", "scalar_loop_terms", "spatial_motion", "point_acceleration"]


def _rz_tz(gamma: float, b: float) -> np.ndarray:
    c, s = np.cos(gamma), np.sin(gamma)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    T[2, 3] = b
    return T


#: the orientation rows of each cut joint: (axis of frame j, axis of frame i) whose dot product is held at 0
_PAIRS = {CutJoint.SPHERICAL: [], CutJoint.REVOLUTE: [(2, 0), (2, 1)], CutJoint.FIXED: [(2, 0), (2, 1), (0, 1)]}


@dataclass(frozen=True, eq=False)
class TreeArm:
    """A mechanism at numbers: the per-link data of :class:`NumericArm` plus the tree and the loops.

    ``parent[i]`` is 0-based (-1 the base); ``loops`` holds (i, j, F_i, F_j, kind) with 0-based
    links (-1 the base) and the cut frames as 4x4 matrices in their links' frames.
    """

    arm: NumericArm
    parent: tuple[int, ...]
    pre: np.ndarray            # (n, 4, 4): Rz(gamma) Tz(b) of each link
    actuated: tuple[int, ...]
    passive: tuple[int, ...]
    loops: tuple[tuple[int, int, np.ndarray, np.ndarray, CutJoint], ...]
    loop_names: tuple[str, ...]
    #: the traced :meth:`loop_terms` (with the rates or not, on floats or numpy), built when first asked
    _code: dict = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def from_model(cls, model: Manipulator, overrides: Mapping[str, float] | None = None) -> TreeArm:
        arm = NumericArm.from_model(model, overrides)
        from ..model.evaluate import value_of
        f = value_of(model, overrides)
        pre = np.array([_rz_tz(f(l.gamma), f(l.b)) for l in model.links]).reshape(-1, 4, 4)
        loops = tuple((lp.link_i - 1, lp.link_j - 1, lp.frame_i.matrix(f), lp.frame_j.matrix(f), lp.joint)
                      for lp in model.loops)
        return cls(arm=arm, parent=tuple(p - 1 for p in parents_of(model.links)), pre=pre,
                   actuated=tuple(i for i, l in enumerate(model.links) if l.actuated),
                   passive=tuple(i for i, l in enumerate(model.links) if not l.actuated),
                   loops=loops, loop_names=tuple(lp.label(k) for k, lp in enumerate(model.loops, start=1)))

    @property
    def n(self) -> int:
        return self.arm.n

    @property
    def convention(self) -> Convention:
        return self.arm.convention

    def frames(self, q) -> np.ndarray:
        """(n+1, 4, 4): T_0^i, i = 0..n (index 0 the base)."""
        arm = self.arm
        q = np.asarray(q, dtype=float)
        theta = arm.dh[:, 3] + np.where(arm.revolute, q, 0.0)
        d = arm.dh[:, 2] + np.where(arm.revolute, 0.0, q)
        A = dh_matrices(arm.dh[:, 0], arm.dh[:, 1], d, theta, arm.convention)
        T = np.empty((self.n + 1, 4, 4))
        T[0] = np.eye(4)
        for i in range(self.n):
            T[i + 1] = T[self.parent[i] + 1] @ self.pre[i] @ A[i]
        return T

    def joint_axes(self, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(origins (n, 3), unit axes (n, 3)) in frame 0: the parent's frame after Rz(gamma) Tz(b)
        (standard convention) or the link's own frame (modified)."""
        if self.convention is Convention.STANDARD:
            F = np.array([T[self.parent[i] + 1] @ self.pre[i] for i in range(self.n)])
        else:
            F = T[1:]
        return F[:, :3, 3].copy(), F[:, :3, 2].copy()

    @property
    def tool_link(self) -> int:
        """The link (0-based) carrying the tool (:func:`designer.model.mechanism.tool_link`): the deepest,
        a link its loops pin to the base or an ancestor (a four-bar's rocker)
        left out."""
        parents = tuple(p + 1 for p in self.parent)
        return tool_link(parents, pinned_links(parents, [(i + 1, j + 1) for i, j, *_ in self.loops]))

    def path(self, i: int) -> list[int]:
        """0-based joints from link i (0-based) down to the base."""
        out = []
        while i >= 0:
            out.append(i)
            i = self.parent[i]
        return out

    def point_jacobian(self, T, axes, point: np.ndarray, link: int) -> np.ndarray:
        """6 x n [v; w] of a frame-0 point moving with ``link`` (0-based, -1 the base: zero)."""
        origins, z = axes
        J = np.zeros((6, self.n))
        for k in self.path(link):
            if self.arm.revolute[k]:
                J[:3, k] = cross3(z[k], point - origins[k])
                J[3:, k] = z[k]
            else:
                J[:3, k] = z[k]
        return J

    @cached_property
    def loop_rows(self) -> tuple:
        """What each row of :meth:`loop_terms` is (:class:`LoopTerms`' ``rows``)."""
        return tuple(row for k, (*_, kind) in enumerate(self.loops)
                     for row in [(k, "force", c) for c in range(3)] + [(k, "moment", pair) for pair in _PAIRS[kind]])

    def loop_terms(self, q, qd=None) -> LoopTerms:
        """Residual, Jacobian and (with ``qd``) the rate term J'qd of every loop, stacked: :func:`scalar_loop_terms`
        traced once per mechanism into flat code (its constants folded) and run on floats (numpy where a value is not
        finite: NaN out, as the arithmetic gives)."""
        args = [np.asarray(q, dtype=float)] + ([] if qd is None else [np.asarray(qd, dtype=float)])
        m, n = len(self.loop_rows), self.n
        if not m:
            return LoopTerms(np.zeros(0), np.zeros((0, n)), None if qd is None else np.zeros(0), (), np.zeros((0, 3)))
        finite = all(np.isfinite(a).all() for a in args)
        fn = self._code.get((len(args), finite)) or self._trace(len(args), finite)
        with np.errstate(invalid="ignore", over="ignore"):
            values = np.array(fn(*(a.tolist() if finite else a for a in args)), dtype=float)
        at = m + m * n
        return LoopTerms(values[:m], values[m:at].reshape(m, n), None if qd is None else values[at + 3 * m:],
                         self.loop_rows, values[at:at + 3 * m].reshape(m, 3))

    def _trace(self, inputs: int, floats: bool) -> Callable:
        """The flat function of (q) or (q, qd) giving r, J, the moment axes and (with qd) J'qd, over floats or numpy."""
        tape = Tape()
        names = ("q", "qd")[:inputs]
        values = [[tape.input(f"{name}_{i}") for i in range(self.n)] for name in names]
        res, jac, rate, axes = scalar_loop_terms(self, values[0], lambda x: (tape.call("cos", x), tape.call("sin", x)),
                                                 values[1] if inputs == 2 else None)
        out = [*res, *(x for row in jac for x in row), *(x for axis in axes for x in axis), *rate]
        fn = self._code[inputs, floats] = build("loop_terms", tape.source("loop_terms", names, values, out), not floats)
        return fn

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_code"] = {}   # generated functions do not pickle: traced again where asked
        return state

    def com_positions(self, T) -> np.ndarray:
        return np.einsum("nij,nj->ni", T[1:, :3, :3], self.arm.com) + T[1:, :3, 3]


@dataclass(frozen=True, eq=False)
class LoopTerms:
    """The loops' stacked residual r (m,), Jacobian J (m, n), rate term J'qd (m,) or None, and what
    each row is: (loop, "force", axis) for the cut point's position, (loop, "moment", pair) for the
    orientation rows (pair: the axes u of frame j and v of frame i whose dot product the row holds), and u x v of
    each orientation row (m, 3; zero for the others): the direction of the moment its multiplier stands for."""

    residual: np.ndarray
    jacobian: np.ndarray
    rate: np.ndarray | None
    rows: tuple
    moment_axes: np.ndarray


TreeState = tuple[np.ndarray, np.ndarray, np.ndarray]


def _matmul(X, Y):
    return [[sum((X[r][k] * Y[k][c] for k in range(4)), 0.0) for c in range(4)] for r in range(4)]


def _sub(a, b):
    return [x - y for x, y in zip(a, b)]


def _add(a, b):
    return [x + y for x, y in zip(a, b)]


def _const(M) -> list[list[float]]:
    return [[float(x) for x in row] for row in np.asarray(M)]


def _fixed(x: float) -> tuple[float, float]:
    return math.cos(x), math.sin(x)


def _frames(tree: TreeArm, q: Sequence, trig: Trig) -> list:
    """T_0^i (i = 0..n, 4 x 4 lists) of :meth:`TreeArm.frames` over any scalar."""
    arm = tree.arm
    T = [_const(np.eye(4))]
    for i in range(tree.n):
        a, alpha, d, theta = (float(x) for x in arm.dh[i])
        if arm.revolute[i]:
            ct, st = trig(q[i] + theta)
        else:
            ct, st = _fixed(theta)
            d = q[i] + d
        ca, sa = _fixed(alpha)
        if tree.convention is Convention.STANDARD:
            A = [[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st], [0.0, sa, ca, d],
                 [0.0, 0.0, 0.0, 1.0]]
        else:
            A = [[ct, -st, 0.0, a], [st * ca, ct * ca, -sa, -sa * d], [st * sa, ct * sa, ca, ca * d],
                 [0.0, 0.0, 0.0, 1.0]]
        T.append(_matmul(T[tree.parent[i] + 1], _matmul(_const(tree.pre[i]), A)))
    return T


def _axes(tree: TreeArm, T: list) -> tuple[list, list]:
    """(origins, unit axes) of every joint in frame 0 (:meth:`TreeArm.joint_axes`)."""
    origins, z = [], []
    for i in range(tree.n):
        F = _matmul(T[tree.parent[i] + 1], _const(tree.pre[i])) if tree.convention is Convention.STANDARD \
            else T[i + 1]
        origins.append([F[r][3] for r in range(3)])
        z.append([F[r][2] for r in range(3)])
    return origins, z


def _point_jacobian(tree: TreeArm, origins, z, point, link: int) -> tuple[dict, dict]:
    """{joint: v column}, {joint: w column} of a frame-0 point moving with ``link``."""
    jv, jw = {}, {}
    for k in tree.path(link):
        if tree.arm.revolute[k]:
            jv[k], jw[k] = cross(z[k], _sub(point, origins[k])), z[k]
        else:
            jv[k] = z[k]
    return jv, jw


def spatial_motion(tree: TreeArm, origins, z, qd, qdd=None) -> tuple[list, list]:
    """Every link's spatial velocity V and acceleration A (n + 1 lists of 6: w, then v at frame 0's origin; index 0
    the base, at rest) from the joints' origins and unit axes in frame 0 and their rates, over any scalar (floats,
    a tape's variables, numpy arrays of many states and rates at once): the outward pass of the module text,
    A_k = A_parent + S qdd_k + V_parent x S qd_k, the joints' accelerations ``qdd`` zero when None."""
    zero = [0.0] * 6
    V, A = [zero], [zero]
    for i in range(tree.n):
        p = tree.parent[i] + 1
        S = [*z[i], *cross(origins[i], z[i])] if tree.arm.revolute[i] else [0.0, 0.0, 0.0, *z[i]]
        Sq = [s * qd[i] for s in S]
        w, v = V[p][:3], V[p][3:]
        a = _add(A[p], [*cross(w, Sq[:3]), *_add(cross(w, Sq[3:]), cross(v, Sq[:3]))])
        A.append(a if qdd is None else _add(a, [s * qdd[i] for s in S]))
        V.append(_add(V[p], Sq))
    return V, A


def point_acceleration(V: list, A: list, body: int, point) -> list:
    """The acceleration of a frame-0 point moving with ``body`` (its index in V and A of :func:`spatial_motion`),
    a0 + al x p + w x (v0 + w x p), over any scalar."""
    w, v0, al, a0 = V[body][:3], V[body][3:], A[body][:3], A[body][3:]
    return _add(_add(a0, cross(al, point)), cross(w, _add(v0, cross(w, point))))


def scalar_loop_terms(tree: TreeArm, q: Sequence, trig: Trig,
                      qd: Sequence | None = None) -> tuple[list, list, list, list]:
    """(r (m), J (m lists of n), J' qd (m) or [], the moment rows' axes u x v (m lists of 3, zero for the
    position rows)) of the loops (the module text) over any scalar, rows in
    :attr:`TreeArm.loop_rows`' order: traced for :meth:`TreeArm.loop_terms` and, with the tree's dynamics, for a
    nonlinear closure's flat code (:mod:`designer.numeric.closed_newton`)."""
    T = _frames(tree, q, trig)
    origins, z = _axes(tree, T)
    if qd is not None:
        V, A = spatial_motion(tree, origins, z, qd)
    res, jac, rate, axes = [], [], [], []
    n = tree.n

    def row(cols: dict, sign: float, out: list) -> None:
        for k, x in cols.items():
            out[k] = out[k] + sign * x

    for i, j, Fi, Fj, kind in tree.loops:
        Ti, Tj = _matmul(T[i + 1], _const(Fi)), _matmul(T[j + 1], _const(Fj))
        pi, pj = [Ti[r][3] for r in range(3)], [Tj[r][3] for r in range(3)]
        vi, wi = _point_jacobian(tree, origins, z, pi, i)
        vj, wj = _point_jacobian(tree, origins, z, pj, j)
        res += _sub(pi, pj)
        axes += [[0.0] * 3 for _ in range(3)]
        for c in range(3):
            r_: list = [0.0] * n
            row({k: v[c] for k, v in vi.items()}, 1.0, r_)
            row({k: v[c] for k, v in vj.items()}, -1.0, r_)
            jac.append(r_)
        if qd is not None:
            rate += _sub(point_acceleration(V, A, i + 1, pi), point_acceleration(V, A, j + 1, pj))
        for a, b in _PAIRS[kind]:
            u, v = [Tj[r][a] for r in range(3)], [Ti[r][b] for r in range(3)]
            axis = cross(u, v)
            axes.append(axis)
            res.append(dot(u, v))
            r_ = [0.0] * n
            row({k: dot(axis, w) for k, w in wj.items()}, 1.0, r_)
            row({k: dot(axis, w) for k, w in wi.items()}, -1.0, r_)
            jac.append(r_)
            if qd is not None:
                wi_, wj_ = V[i + 1][:3], V[j + 1][:3]
                dw, dal = _sub(wj_, wi_), _sub(A[j + 1][:3], A[i + 1][:3])
                daxis = _add(cross(cross(wj_, u), v), cross(u, cross(wi_, v)))
                rate.append(dot(daxis, dw) + dot(axis, dal))
    return res, jac, rate, axes
