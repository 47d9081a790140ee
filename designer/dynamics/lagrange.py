"""Lagrange-Euler equations in ROBMAT's configuration-space form (Horn & Linge, section 4.2).

    tau = M(q) q'' + 2 B(q) [q'q'] + C(q) [q'^2] + G(q)

M comes from the body Jacobians, M = sum m J_v^T J_v + J_w^T I J_w (the kinetic
energy's Hessian), B and C from the Christoffel symbols of M,

    c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i),
    C_ij = c_ijj,  B_i,(jk) = c_ijk for j < k,

and G from the potential energy, G_i = -sum m g^T J_v[:, i].
"""

from __future__ import annotations

from typing import Iterator

import sympy as sp

from ..jobs import NEVER, CancelToken, Progress
from ..model.manipulator import Manipulator
from .algebra import dot, tidy
from .bodies import ArmFrames, arm_frames_job, bodies

__all__ = ["mass_gravity_job", "christoffel_job", "lagrange_job", "pair_index"]


def pair_index(n: int) -> list[tuple[int, int]]:
    """The (j, k), j < k, in the order of velocity_products."""
    return [(j, k) for j in range(n) for k in range(j + 1, n)]


def mass_gravity_job(model: Manipulator, frames: ArmFrames, token: CancelToken = NEVER,
                     parts: bool = False) -> Iterator[Progress]:
    """Generator returning (M, G) in canonical form, or (M_rot, M_tra, G) when ``parts``."""
    n = model.n
    jac = []
    body_list = bodies(model)
    for b, body in enumerate(body_list):
        yield Progress("jacobians", b / max(len(body_list), 1), f"body {b + 1}")
        Jv, Jw = frames.body_jacobians(body, token)
        jac.append((body, Jv, Jw))
    M_rot, M_tra = sp.zeros(n, n), sp.zeros(n, n)
    count, total = 0, n * (n + 1) // 2
    for a in range(n):
        for c in range(a, n):
            token.check()
            yield Progress("mass matrix", count / total, f"M{a + 1}{c + 1}")
            count += 1
            tra, rot = [], []
            for body, Jv, Jw in jac:
                if body.link < max(a, c):
                    continue  # a joint beyond the body does not move it
                tra.append(body.mass * dot(Jv[:, a], Jv[:, c], token))
                if not body.is_point:
                    rot.append(dot(Jw[:, a], body.inertia * Jw[:, c], token))
            M_tra[a, c] = M_tra[c, a] = tidy(sp.Add(*tra), token)
            M_rot[a, c] = M_rot[c, a] = tidy(sp.Add(*rot), token)
    G = sp.zeros(n, 1)
    for i in range(n):
        token.check()
        yield Progress("gravity", i / n, f"G{i + 1}")
        G[i] = tidy(sp.Add(*[-body.mass * dot(frames.g[body.link], Jv[:, i], token)
                             for body, Jv, _ in jac if body.link >= i]), token)
    if parts:
        return M_rot, M_tra, G
    return (M_rot + M_tra).applyfunc(lambda e: tidy(e, token)), G


def christoffel_job(model: Manipulator, M: sp.Matrix, token: CancelToken = NEVER) -> Iterator[Progress]:
    """Generator returning c[i][j][k] (nested lists, symmetric in j, k) from a canonical M."""
    n = model.n
    q = model.q
    dM = {}
    total, count = n * (n + 1) // 2 * n, 0
    for a in range(n):
        for b in range(a, n):
            for k in range(n):
                token.check()
                yield Progress("derivatives of M", count / total, f"dM{a + 1}{b + 1}/dq{k + 1}")
                count += 1
                dM[a, b, k] = dM[b, a, k] = tidy(sp.diff(M[a, b], q[k]), token) if M[a, b].has(q[k]) else sp.S.Zero
    c = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
    for i in range(n):
        for j in range(n):
            for k in range(j, n):
                token.check()
                yield Progress("Christoffel symbols", (i * n + j) / n**2, f"c{i + 1}{j + 1}{k + 1}")
                val = tidy((dM[i, j, k] + dM[i, k, j] - dM[j, k, i]) / 2, token)
                c[i][j][k] = c[i][k][j] = val
    return c


def lagrange_job(model: Manipulator, token: CancelToken = NEVER) -> Iterator[Progress]:
    """Generator returning the raw (canonical, unsimplified) dict M, B, C, G and the symbols c."""
    n = model.n
    frames = yield from arm_frames_job(model, token)
    M, G = yield from mass_gravity_job(model, frames, token)
    c = yield from christoffel_job(model, M, token)
    pairs = pair_index(n)
    B = sp.zeros(n, len(pairs))
    for col, (j, k) in enumerate(pairs):
        for i in range(n):
            B[i, col] = c[i][j][k]
    C = sp.Matrix(n, n, lambda i, j: c[i][j][j])
    return {"M": M, "B": B, "C": C, "G": G, "christoffel": c}
