"""Lagrange-Euler equations in ROBMAT's configuration-space form (Horn & Linge, section 4.2).

    tau = M(q) q'' + 2 B(q) [q'q'] + C(q) [q'^2] + G(q)

M comes from the body Jacobians, M = sum m J_v^T J_v + J_w^T I J_w (the kinetic
energy's Hessian), B and C from the Christoffel symbols of M,

    c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i),
    C_ij = c_ijj,  B_i,(jk) = c_ijk for j < k,

and G from the potential energy, G_i = -sum m g^T J_v[:, i].
"""

from __future__ import annotations

from ..jobs import NEVER, CancelToken, Job, Progress
from ..model.manipulator import Manipulator
from .bodies import ArmFrames, arm_frames_job, bodies
from .trigpoly import TrigRing

__all__ = ["body_jacobians_job", "mass_gravity_job", "christoffel_job", "lagrange_job", "pair_index"]


def pair_index(n: int) -> list[tuple[int, int]]:
    """The (j, k), j < k, in the order of velocity_products."""
    return [(j, k) for j in range(n) for k in range(j + 1, n)]


def body_jacobians_job(model: Manipulator, tr: TrigRing, frames: ArmFrames,
                       token: CancelToken = NEVER) -> Job[list]:
    """Generator returning [(body, J_v columns, J_w columns)] for every body."""
    out = []
    body_list = bodies(model, tr)
    for b, body in enumerate(body_list):
        yield Progress("jacobians", b / max(len(body_list), 1), f"body {b + 1}")
        Jv, Jw = frames.body_jacobians(tr, body, token)
        out.append((body, Jv, Jw))
    return out


def mass_gravity_job(model: Manipulator, tr: TrigRing, jac: list, frames: ArmFrames,
                     token: CancelToken = NEVER) -> Job[tuple[list, list, list]]:
    """Generator returning (M_rot, M_tra, G) as nested lists of ring elements.

    M_tra = sum m J_v^T J_v (translation of the mass centres), M_rot = sum J_w^T I J_w.
    """
    n = model.n
    M_rot = [[tr.zero] * n for _ in range(n)]
    M_tra = [[tr.zero] * n for _ in range(n)]
    # I J_w once per body and column
    IJw = [[tr.matvec(body.inertia, Jw[k], token) if not body.is_point and any(Jw[k]) else None
            for k in range(n)] for body, _, Jw in jac]
    count, total = 0, n * (n + 1) // 2
    for a in range(n):
        for c in range(a, n):
            token.check()
            yield Progress("mass matrix", count / total, f"M{a + 1}{c + 1}")
            count += 1
            tra, rot = tr.zero, tr.zero
            for (body, Jv, Jw), iw in zip(jac, IJw):
                if body.link < c:
                    continue  # a joint beyond the body does not move it
                tra += tr.mul(body.mass, tr.dot(Jv[a], Jv[c], token))
                if iw[c] is not None:
                    rot += tr.dot(Jw[a], iw[c], token)
            M_tra[a][c] = M_tra[c][a] = tra
            M_rot[a][c] = M_rot[c][a] = rot
    G = []
    for i in range(n):
        token.check()
        yield Progress("gravity", i / n, f"G{i + 1}")
        total_g = tr.zero
        for body, Jv, _ in jac:
            if body.link >= i:
                total_g -= tr.mul(body.mass, tr.dot(frames.g[body.link], Jv[i], token))
        G.append(total_g)
    return M_rot, M_tra, G


def christoffel_job(model: Manipulator, tr: TrigRing, M: list, token: CancelToken = NEVER) -> Job[list]:
    """Generator returning c[i][j][k] (nested lists of ring elements, symmetric in j, k)."""
    n = model.n
    dM = {}
    total, count = n * (n + 1) // 2, 0
    for a in range(n):
        for b in range(a, n):
            token.check()
            yield Progress("derivatives of M", count / total, f"dM{a + 1}{b + 1}/dq")
            count += 1
            for k in range(n):
                dM[a, b, k] = dM[b, a, k] = tr.diff_q(M[a][b], k)
    half = tr.domain.convert(1) / 2
    c = [[[tr.zero] * n for _ in range(n)] for _ in range(n)]
    for i in range(n):
        token.check()
        yield Progress("Christoffel symbols", i / n, f"c{i + 1}jk")
        for j in range(n):
            for k in range(j, n):
                val = (dM[i, j, k] + dM[i, k, j] - dM[j, k, i]) * half
                c[i][j][k] = c[i][k][j] = tr._chop(val)
    return c


def lagrange_job(model: Manipulator, tr: TrigRing, token: CancelToken = NEVER) -> Job[dict[str, list]]:
    """Generator returning the raw ring-element dict M, B, C, G, christoffel (nested lists)."""
    n = model.n
    frames = yield from arm_frames_job(model, tr, token)
    jac = yield from body_jacobians_job(model, tr, frames, token)
    M_rot, M_tra, G = yield from mass_gravity_job(model, tr, jac, frames, token)
    M = [[M_rot[a][b] + M_tra[a][b] for b in range(n)] for a in range(n)]
    c = yield from christoffel_job(model, tr, M, token)
    pairs = pair_index(n)
    B = [[c[i][j][k] for (j, k) in pairs] for i in range(n)]
    C = [[c[i][j][j] for j in range(n)] for i in range(n)]
    return {"M": M, "B": B, "C": C, "G": [[g] for g in G], "christoffel": c}
