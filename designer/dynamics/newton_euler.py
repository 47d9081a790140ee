"""Recursive Newton-Euler inverse dynamics (Luh, Walker & Paul 1980), symbolic, in link frames.

Outwards: angular velocity and acceleration of each link and the acceleration
of its frame origin (the base accelerates at -g, which brings in gravity).
Inwards: the force and moment each link needs, summed from the tip; the joint
torque is the moment about (force along) the joint axis. Both DH conventions;
point masses ride on their link.
"""

from __future__ import annotations

from dataclasses import dataclass
from ..jobs import NEVER, CancelToken, Job, Progress
from ..model.manipulator import Convention, Manipulator
from .bodies import Body, bodies, link_rotation, rotate_back
from .trigpoly import TrigRing

__all__ = ["LinkMotion", "forward_job", "body_wrench", "newton_euler_job"]


@dataclass(frozen=True)
class LinkMotion:
    """Link j in frame-j axes: angular velocity w, angular acceleration dw, origin acceleration a."""

    w: list
    dw: list
    a: list


def _add(*vs):
    return [sum(parts[1:], parts[0]) for parts in zip(*vs)]


def _scale(tr, v, s):
    return [tr.mul(x, s) for x in v]


def _frame_offset(model, tr, j, R, p):
    """Origin of frame j seen from frame j-1's origin, in frame-j axes (standard DH: (a, d sa, d ca),
    constant for a revolute joint, which is what keeps the recursion cheap)."""
    return rotate_back(tr, R, p)


def forward_job(model: Manipulator, tr: TrigRing, token: CancelToken = NEVER, *,
                accelerations: bool = True, gravity: bool = True) -> Job[tuple[list, list]]:
    """Generator returning (motions, rotations): LinkMotion per link and (R, p) per link.

    ``accelerations=False`` sets qdd = 0; ``gravity=False`` leaves the base at rest.
    """
    n = model.n
    modified = model.convention is Convention.MODIFIED
    zero = [tr.zero] * 3
    w, dw = list(zero), list(zero)
    a = [-tr.var(c) for c in model.gravity_frame0] if gravity else list(zero)
    motions, rotations = [], []
    two = tr.ring(2)
    for j, link in enumerate(model.links):
        token.check()
        yield Progress("forward recursion", j / n, f"link {j + 1}")
        R, p = link_rotation(model, tr, j)
        rotations.append((R, p))
        qd = tr.gens[model.qd[j]]
        qdd = tr.gens[model.qdd[j]] if accelerations else tr.zero
        if not modified:
            # joint j acts along z_{j-1}; rotate into frame j first, where the offset
            # p* = R^T p of a revolute link is constant
            axis = [R[2][0], R[2][1], R[2][2]]  # z_{j-1} in frame-j axes
            w, dw, a = (rotate_back(tr, R, v, token) for v in (w, dw, a))
            p_star = _frame_offset(model, tr, j, R, p)
            if link.is_revolute:
                zqd = [tr.mul(x, qd) for x in axis]
                dw = _add(dw, [tr.mul(x, qdd) for x in axis], tr.cross(w, zqd, token))
                w = _add(w, zqd)
            else:
                a = _add(a, [tr.mul(x, qdd) for x in axis],
                         _scale(tr, tr.cross(w, [tr.mul(x, qd) for x in axis], token), two))
            a = _add(a, tr.cross(dw, p_star, token), tr.cross(w, tr.cross(w, p_star, token), token))
        else:
            # the origin of frame j moves with link j-1; joint j then acts along z_j
            zqd = [tr.zero, tr.zero, qd]
            zqdd = [tr.zero, tr.zero, qdd]
            a = _add(a, tr.cross(dw, p, token), tr.cross(w, tr.cross(w, p, token), token))
            w, dw, a = (rotate_back(tr, R, v, token) for v in (w, dw, a))
            if link.is_revolute:
                dw = _add(dw, zqdd, tr.cross(w, zqd, token))
                w = _add(w, zqd)
            else:
                a = _add(a, zqdd, _scale(tr, tr.cross(w, zqd, token), two))
        motions.append(LinkMotion(w, dw, a))
    return motions, rotations


def body_wrench(tr: TrigRing, body: Body, motion: LinkMotion, token: CancelToken = NEVER):
    """(F, N, a_c): inertial force m a_c, moment about the COM I dw + w x I w, COM acceleration."""
    r = body.com
    a_c = _add(motion.a, tr.cross(motion.dw, r, token), tr.cross(motion.w, tr.cross(motion.w, r, token), token)) \
        if any(r) else list(motion.a)
    F = _scale(tr, a_c, body.mass)
    if body.is_point:
        return F, [tr.zero] * 3, a_c
    Iw = tr.matvec(body.inertia, motion.w, token)
    N = _add(tr.matvec(body.inertia, motion.dw, token), tr.cross(motion.w, Iw, token))
    return F, N, a_c


def newton_euler_job(model: Manipulator, tr: TrigRing, token: CancelToken = NEVER) -> Job[list]:
    """Generator returning tau as a list of ring elements."""
    n = model.n
    motions, rotations = yield from forward_job(model, tr, token)
    per_link: dict[int, list[Body]] = {j: [] for j in range(n)}
    for body in bodies(model, tr):
        per_link[body.link].append(body)
    tau = [tr.zero] * n
    child = None  # wrench of link j+1 and beyond: force, moment about o_j, frame-j axes
    standard = model.convention is Convention.STANDARD
    for j in reversed(range(n)):
        token.check()
        yield Progress("backward recursion", (n - j) / n, f"link {j + 1}")
        f, m = [tr.zero] * 3, [tr.zero] * 3
        for body in per_link[j]:
            F, N, _ = body_wrench(tr, body, motions[j], token)
            f = _add(f, F)
            m = _add(m, N, tr.cross(body.com, F, token))
        if child is not None:
            f, m = _add(f, child[0]), _add(m, child[1])
        if not standard:
            # modified: joint j is on z_j at the frame-j origin
            tau[j] = m[2] if model.links[j].is_revolute else f[2]
        # the wrench in frame j-1 axes, moment about o_{j-1}: what link j-1 carries
        R, p = rotations[j]
        Rf = tr.matvec(R, f, token)
        Rm = _add(tr.matvec(R, m, token), tr.cross(p, Rf, token))
        if standard:
            # standard: joint j is on z_{j-1} at o_{j-1}
            tau[j] = Rm[2] if model.links[j].is_revolute else Rf[2]
        child = (Rf, Rm)
    return tau
