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
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping

import numpy as np

from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import CutJoint, parents_of, pinned_links, tool_link
from .numeric import NumericArm, cross3, dh_matrices

__all__ = ["TreeArm", "TreeState", "LoopTerms"]


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

    def spatial(self, T, axes, qd) -> tuple[np.ndarray, np.ndarray]:
        """(V (n+1, 6), A (n+1, 6)): spatial velocity (w, v_origin) of each body and its spatial
        acceleration at zero joint accelerations, frame 0, index 0 the base."""
        origins, z = axes
        V = np.zeros((self.n + 1, 6))
        A = np.zeros((self.n + 1, 6))
        for i in range(self.n):
            p = self.parent[i] + 1
            S = np.concatenate([z[i], cross3(origins[i], z[i])]) if self.arm.revolute[i] \
                else np.concatenate([np.zeros(3), z[i]])
            Sq = S * qd[i]
            w, v = V[p, :3], V[p, 3:]
            A[i + 1] = A[p] + np.concatenate([cross3(w, Sq[:3]), cross3(w, Sq[3:]) + cross3(v, Sq[:3])])
            V[i + 1] = V[p] + Sq
        return V, A

    def loop_terms(self, q, qd=None, at: tuple | None = None) -> LoopTerms:
        """Residual, Jacobian and (with ``qd``) the rate term J'qd of every loop, stacked; ``at``: the frames and
        joint axes (T, axes) at q when the caller has them (another LoopTerms' of the same pose)."""
        T = self.frames(q) if at is None else at[0]
        axes = self.joint_axes(T) if at is None else at[1]
        V: np.ndarray | None = None
        A = np.zeros((self.n + 1, 6))
        if qd is not None:
            V, A = self.spatial(T, axes, np.asarray(qd, dtype=float))
        res: list = []
        jac: list = []
        rate: list = []
        rows: list[tuple] = []
        for k, (i, j, Fi, Fj, kind) in enumerate(self.loops):
            Ti, Tj = T[i + 1] @ Fi, T[j + 1] @ Fj
            pi, pj = Ti[:3, 3], Tj[:3, 3]
            Ji, Jj = self.point_jacobian(T, axes, pi, i), self.point_jacobian(T, axes, pj, j)
            res.extend(pi - pj)
            jac.extend(Ji[:3] - Jj[:3])
            rows.extend((k, "force", c) for c in range(3))
            if V is not None:
                res_rate = []
                for body, point in ((i + 1, pi), (j + 1, pj)):
                    w, v0, al, a0 = V[body, :3], V[body, 3:], A[body, :3], A[body, 3:]
                    res_rate.append(a0 + cross3(al, point) + cross3(w, v0 + cross3(w, point)))
                rate.extend(res_rate[0] - res_rate[1])
            pairs = _PAIRS[kind]
            for a, b in pairs:
                u, v = Tj[:3, a], Ti[:3, b]
                axis = cross3(u, v)
                res.append(float(u @ v))
                jac.append(axis @ (Jj[3:] - Ji[3:]))
                rows.append((k, "moment", (a, b)))
                if V is not None:
                    wi, wj = V[i + 1, :3], V[j + 1, :3]
                    dw, dal = wj - wi, A[j + 1, :3] - A[i + 1, :3]
                    daxis = cross3(cross3(wj, u), v) + cross3(u, cross3(wi, v))
                    rate.append(float(daxis @ dw + axis @ dal))
        return LoopTerms(np.array(res), np.array(jac).reshape(-1, self.n),
                         None if V is None else np.array(rate), tuple(rows), T, axes)

    def com_positions(self, T) -> np.ndarray:
        return np.einsum("nij,nj->ni", T[1:, :3, :3], self.arm.com) + T[1:, :3, 3]


@dataclass(frozen=True, eq=False)
class LoopTerms:
    """The loops' stacked residual r (m,), Jacobian J (m, n), rate term J'qd (m,) or None, and what
    each row is: (loop, "force", axis) for the cut point's position, (loop, "moment", pair) for the
    orientation rows (pair: the axes u of frame j and v of frame i whose dot product the row holds)."""

    residual: np.ndarray
    jacobian: np.ndarray
    rate: np.ndarray | None
    rows: tuple
    T: np.ndarray
    axes: tuple[np.ndarray, np.ndarray]


TreeState = tuple[np.ndarray, np.ndarray, np.ndarray]
