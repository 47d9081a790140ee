"""Velocity Jacobians of every body of the arm, in the body's own link frame.

Working in link coordinates (as Luh, Walker & Paul and Lee do) keeps the
expressions small: the inertia tensor needs no rotation, and each step of the
outward recursion multiplies by one link rotation only.

For link j, ``W[j][k]`` (column k, a 3-vector) maps qd_k to the link's angular
velocity and ``V[j][k]`` to the velocity of the frame-j origin, both in
frame-j axes. A body at r (frame j) then has J_v = V + W x r, J_w = W.
All entries are :class:`~designer.dynamics.trigpoly.TrigRing` elements.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from ..jobs import NEVER, CancelToken, Job, Progress
from ..model.manipulator import Convention, Manipulator
from .trigpoly import TrigRing

__all__ = ["Body", "ArmFrames", "arm_frames_job", "bodies", "link_rotation"]


@dataclass(frozen=True)
class Body:
    """A rigid body carried by link ``link`` (0-based): mass, position and inertia in that link's frame."""

    link: int
    mass: object     # ring element
    com: list        # 3 ring elements
    inertia: list | None  # 3x3 nested list of ring elements, about the COM, link-frame axes; None: a point
    is_point: bool = False


def bodies(model: Manipulator, tr: TrigRing) -> list[Body]:
    """Every link body and every point mass, base outwards (massless bodies left out)."""
    out = []
    for j, link in enumerate(model.links):
        if link.mass != 0 or not link.inertia.is_zero:
            I = link.inertia.matrix()
            out.append(Body(j, tr.var(link.mass), [tr.var(c) for c in link.com],
                            [[tr.var(I[r, c]) for c in range(3)] for r in range(3)]))
        for p in model.point_masses_on(j + 1):
            if p.mass != 0:
                out.append(Body(j, tr.var(p.mass), [tr.var(c) for c in p.position], None, True))
    return out


def link_rotation(model: Manipulator, tr: TrigRing, j: int, trig: Callable | None = None,
                  joint_value: Callable | None = None):
    """(R, p) of link j (0-based): rotation frame j -> j-1 (nested lists) and origin of j in j-1.

    ``trig(j)`` gives a revolute joint's (cos, sin) and ``joint_value(j)`` a prismatic joint's value as ring
    elements (by default the joint's own generators; a closed chain's passive joints have the closure's)."""
    from sympy import cos, sin
    link = model.links[j]
    if link.is_revolute:
        ct, st = (trig or tr.joint_trig)(j)
        d = tr.var(link.d)
    else:
        ct, st = tr.var(cos(link.theta)), tr.var(sin(link.theta))
        d = tr.var(link.d) + (joint_value(j) if joint_value else tr.gens[model.q[j]])
    ca, sa, a = tr.var(cos(link.alpha)), tr.var(sin(link.alpha)), tr.var(link.a)
    m = tr.mul
    z = tr.zero
    if model.convention is Convention.STANDARD:
        R = [[ct, -m(st, ca), m(st, sa)], [st, m(ct, ca), -m(ct, sa)], [z, sa, ca]]
        p = [m(a, ct), m(a, st), d]
    else:
        R = [[ct, -st, z], [m(st, ca), m(ct, ca), -sa], [m(st, sa), m(ct, sa), ca]]
        p = [a, -m(sa, d), m(ca, d)]
    return R, p


def rotate_back(tr: TrigRing, R, v, token: CancelToken = NEVER):
    """R^T v: a vector given in frame j-1 axes, in frame j axes."""
    return [tr.dot([R[0][k], R[1][k], R[2][k]], v, token) for k in range(3)]


@dataclass(frozen=True)
class ArmFrames:
    """Per link j (0-based): rotation R[j] (frame j -> j-1), origin offset p[j] in frame j-1,
    Jacobian columns W[j][k], V[j][k] in frame j, gravity g[j] in frame-j axes."""

    R: list
    p: list
    W: list
    V: list
    g: list

    def body_jacobians(self, tr: TrigRing, body: Body, token: CancelToken = NEVER):
        """(J_v, J_w) of a body's centre as lists of n columns (3 ring elements each), link-frame axes."""
        W, V = self.W[body.link], self.V[body.link]
        Jv = []
        for w, v in zip(W, V):
            if any(body.com) and any(w):
                wr = tr.cross(w, body.com, token)
                Jv.append([v[r] + wr[r] for r in range(3)])
            else:
                Jv.append(list(v))
        return Jv, W


def arm_frames_job(model: Manipulator, tr: TrigRing, token: CancelToken = NEVER) -> Job[ArmFrames]:
    """Generator: yields Progress, returns :class:`ArmFrames`."""
    n = model.n
    modified = model.convention is Convention.MODIFIED
    zero = [tr.zero] * 3
    ez = [tr.zero, tr.zero, tr.one]
    W_prev = [list(zero) for _ in range(n)]
    V_prev = [list(zero) for _ in range(n)]
    g_prev = [tr.var(c) for c in model.gravity_frame0]
    Rs, ps, Ws, Vs, gs = [], [], [], [], []
    for j, link in enumerate(model.links):
        token.check()
        yield Progress("kinematics", j / n, f"link {j + 1}")
        R, p = link_rotation(model, tr, j)
        W, V = [], []
        for k in range(n):
            token.check()
            w, v = W_prev[k], V_prev[k]
            if not modified and k == j:
                # standard: joint j turns about / slides along z_{j-1}, at the frame-(j-1) origin
                w, v = (ez, v) if link.is_revolute else (w, ez)
            if any(w):
                wp = tr.cross(w, p, token)
                v = [v[r] + wp[r] for r in range(3)]
            W.append(rotate_back(tr, R, w, token) if any(w) else list(zero))
            V.append(rotate_back(tr, R, v, token) if any(v) else list(zero))
            if modified and k == j:
                # modified: joint j turns about / slides along z_j, at the frame-j origin
                if link.is_revolute:
                    W[k] = list(ez)
                else:
                    V[k] = list(ez)
        g = rotate_back(tr, R, g_prev, token)
        Rs.append(R)
        ps.append(p)
        Ws.append(W)
        Vs.append(V)
        gs.append(g)
        W_prev, V_prev, g_prev = W, V, g
    return ArmFrames(Rs, ps, Ws, Vs, gs)
