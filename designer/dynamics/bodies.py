"""Velocity Jacobians of every body of the arm, in the body's own link frame.

Working in link coordinates (as Luh, Walker & Paul and Lee do) keeps the
expressions small: the inertia tensor needs no rotation, and each step of the
outward recursion multiplies by one link rotation only.

For link j, ``W[j]`` (3 x n) maps qd to the link's angular velocity and
``V[j]`` (3 x n) maps qd to the velocity of the frame-j origin, both in
frame-j axes. A body at r (frame j) then has J_v = V + W x r, J_w = W.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import sympy as sp

from ..jobs import NEVER, CancelToken, Progress
from ..kinematics.symbolic import link_transform
from ..model.manipulator import Convention, Manipulator
from .algebra import cross, tidy, tidy_matrix

__all__ = ["Body", "ArmFrames", "arm_frames_job", "bodies"]

EZ = sp.Matrix([0, 0, 1])


@dataclass(frozen=True)
class Body:
    """A rigid body carried by link ``link`` (0-based): mass, position and inertia in that link's frame."""

    link: int
    mass: sp.Expr
    com: sp.Matrix
    inertia: sp.Matrix  # about the COM, link-frame axes
    is_point: bool = False


def bodies(model: Manipulator) -> list[Body]:
    """Every link body and every point mass, base outwards (massless bodies left out)."""
    out = []
    for j, link in enumerate(model.links):
        if link.mass != 0 or not link.inertia.is_zero:
            out.append(Body(j, link.mass, sp.Matrix(link.com), link.inertia.matrix()))
        for p in model.point_masses_on(j + 1):
            if p.mass != 0:
                out.append(Body(j, p.mass, sp.Matrix(p.position), sp.zeros(3, 3), True))
    return out


@dataclass(frozen=True)
class ArmFrames:
    """Per link j (0-based): rotation R[j] (frame j-1 -> j axes), origin offset p[j] in frame j-1,
    Jacobians W[j], V[j] in frame j, and gravity g[j] in frame-j axes."""

    R: list
    p: list
    W: list
    V: list
    g: list

    def body_jacobians(self, body: Body, token: CancelToken = NEVER) -> tuple[sp.Matrix, sp.Matrix]:
        """(J_v, J_w) of a body's centre, 3 x n each, in its link frame."""
        W, V = self.W[body.link], self.V[body.link]
        Jv = sp.zeros(3, W.shape[1])
        r = body.com
        for k in range(W.shape[1]):
            token.check()
            if W[:, k].is_zero_matrix and V[:, k].is_zero_matrix:
                continue
            Jv[:, k] = (V[:, k] + cross(W[:, k], r, token)) if any(r) else V[:, k]
            Jv[:, k] = Jv[:, k].applyfunc(lambda e: tidy(e, token))
        return Jv, W


def arm_frames_job(model: Manipulator, token: CancelToken = NEVER) -> Iterator[Progress]:
    """Generator: yields Progress, returns :class:`ArmFrames`."""
    n = model.n
    modified = model.convention is Convention.MODIFIED
    W_prev, V_prev = sp.zeros(3, n), sp.zeros(3, n)
    g_prev = sp.Matrix(model.gravity)
    Rs, ps, Ws, Vs, gs = [], [], [], [], []
    for j, (link, q) in enumerate(zip(model.links, model.q)):
        token.check()
        yield Progress("kinematics", j / n, f"link {j + 1}")
        A = link_transform(link, q, model.convention)
        R, p = A[:3, :3], A[:3, 3]
        Rt = R.T
        if modified:
            # joint j turns about / slides along z_j, at the frame-j origin
            v_origin = sp.Matrix.hstack(*[V_prev[:, k] + cross(W_prev[:, k], p, token) for k in range(n)])
            W = tidy_matrix(Rt * W_prev, token)
            V = tidy_matrix(Rt * v_origin, token)
            if link.is_revolute:
                W[:, j] = EZ
            else:
                V[:, j] = EZ
        else:
            # joint j turns about / slides along z_{j-1}, at the frame-(j-1) origin
            Wp = W_prev.copy()
            Vp = V_prev.copy()
            if link.is_revolute:
                Wp[:, j] = EZ
            else:
                Vp[:, j] = EZ
            v_origin = sp.Matrix.hstack(*[Vp[:, k] + cross(Wp[:, k], p, token) for k in range(n)])
            W = tidy_matrix(Rt * Wp, token)
            V = tidy_matrix(Rt * v_origin, token)
        g = tidy_matrix(Rt * g_prev, token)
        Rs.append(R)
        ps.append(p)
        Ws.append(W)
        Vs.append(V)
        gs.append(g)
        W_prev, V_prev, g_prev = W, V, g
    return ArmFrames(Rs, ps, Ws, Vs, gs)
