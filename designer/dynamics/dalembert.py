"""Lee, Lee & Nigam's generalized d'Alembert equations (RSD-TR-8-82), and Horn's per-link torques.

    tau = [D_rot(q) + D_tra(q)] q'' + H_rot(q, q') + H_tra(q, q') + G(q)

The translational parts come from the m v_c terms of the links' motion, the
rotational parts from the I w terms, and they are kept apart (Lee's point: one
can see, and drop, what each part of the arm contributes). Here every part is a
projection of the links' inertial forces onto the joint directions:

    D_tra = sum m J_v^T J_v,        D_rot = sum J_w^T I J_w,
    H_tra_i = sum m J_v[:, i] . a_c(q, q', 0),
    H_rot_i = sum J_w[:, i] . (I dw(q, q', 0) + w x I w),
    G_i = -sum m J_v[:, i] . g.

The same projection restricted to the bodies of link j is Horn's T_ij, the torque
at joint i needed to move link j (its point loads counted with it).
"""

from __future__ import annotations

from ..jobs import NEVER, CancelToken, Job, Progress
from ..model.manipulator import Manipulator
from .bodies import arm_frames_job
from .lagrange import body_jacobians_job, mass_gravity_job
from .newton_euler import body_wrench, forward_job
from .trigpoly import TrigRing

__all__ = ["dalembert_job", "link_torques_job"]


def _velocity_terms_job(model, tr, jac, token) -> Job[tuple[list, list]]:
    """Generator returning (H_rot, H_tra) lists of ring elements."""
    n = model.n
    motions, _ = yield from forward_job(model, tr, token, accelerations=False, gravity=False)
    H_rot, H_tra = [tr.zero] * n, [tr.zero] * n
    for b, (body, Jv, Jw) in enumerate(jac):
        token.check()
        yield Progress("velocity terms", b / max(len(jac), 1), f"body {b + 1}")
        F, N, _ = body_wrench(tr, body, motions[body.link], token)
        for i in range(body.link + 1):
            H_tra[i] += tr.dot(Jv[i], F, token)
            if not body.is_point:
                H_rot[i] += tr.dot(Jw[i], N, token)
    return H_rot, H_tra


def dalembert_job(model: Manipulator, tr: TrigRing, token: CancelToken = NEVER) -> Job[dict[str, list]]:
    """Generator returning the dict D_rot, D_tra, H_rot, H_tra, G (nested lists of ring elements)."""
    frames = yield from arm_frames_job(model, tr, token)
    jac = yield from body_jacobians_job(model, tr, frames, token)
    D_rot, D_tra, G = yield from mass_gravity_job(model, tr, jac, frames, token)
    H_rot, H_tra = yield from _velocity_terms_job(model, tr, jac, token)
    T = yield from _link_torques_job(model, tr, jac, token)
    col = lambda v: [[x] for x in v]  # noqa: E731
    return {"D_rot": D_rot, "D_tra": D_tra, "H_rot": col(H_rot), "H_tra": col(H_tra), "G": col(G), "T": T}


def link_torques_job(model: Manipulator, tr: TrigRing, token: CancelToken = NEVER) -> Job[list]:
    """Generator returning T (n x n nested lists): T[i][j] = torque at joint i to move link j.

    Gravity included (the base accelerates at -g), so sum_j T[i][j] = tau_i.
    """
    frames = yield from arm_frames_job(model, tr, token)
    jac = yield from body_jacobians_job(model, tr, frames, token)
    return (yield from _link_torques_job(model, tr, jac, token))


def _link_torques_job(model, tr, jac, token) -> Job[list]:
    n = model.n
    motions, _ = yield from forward_job(model, tr, token)
    T = [[tr.zero] * n for _ in range(n)]
    for b, (body, Jv, Jw) in enumerate(jac):
        token.check()
        yield Progress("link torques", b / max(len(jac), 1), f"body {b + 1}")
        F, N, _ = body_wrench(tr, body, motions[body.link], token)
        for i in range(body.link + 1):
            t = tr.dot(Jv[i], F, token)
            if not body.is_point:
                t += tr.dot(Jw[i], N, token)
            T[i][body.link] += t
    return T
