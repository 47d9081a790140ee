"""The public derivation job: pick the method, derive, simplify, assemble :class:`Equations`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sympy as sp

from ..jobs import NEVER, CancelToken, Job, Progress, run
from ..model.manipulator import Manipulator
from .algebra import simplify_poly
from .results import Equations, Method, SimplifyMode, velocity_products, velocity_squares
from .trigpoly import TrigRing

__all__ = ["derive", "derive_job", "coriolis_matrix", "link_torques", "link_torques_job", "to_matrix_job"]


def _collect_symbols(model: Manipulator) -> list:
    """Link and load masses, the symbols FULL mode collects by (as Lee prints D and G)."""
    out = [l.mass for l in model.links] + [p.mass for p in model.point_masses]
    return [m for m in out if isinstance(m, sp.Symbol)]


def to_matrix_job(model: Manipulator, tr: TrigRing, rows: list, mode: SimplifyMode, name: str,
                  token: CancelToken = NEVER, symmetric: bool = False) -> Job[sp.Matrix]:
    """Generator returning a sympy Matrix of ring elements, each entry simplified in ``mode``."""
    by = _collect_symbols(model)
    cache = tr.__dict__.setdefault("_simplify_cache", {})
    nr, nc = len(rows), len(rows[0]) if rows else 0
    out = sp.zeros(nr, nc)
    for i in range(nr):
        for j in range(nc):
            if symmetric and j < i:
                out[i, j] = out[j, i]
                continue
            token.check()
            yield Progress(f"simplifying {name}" if mode is not SimplifyMode.OFF else f"writing {name}",
                           (i * nc + j) / max(nr * nc, 1), f"{name}[{i + 1},{j + 1}]")
            out[i, j] = simplify_poly(tr, rows[i][j], mode, token, by, cache)
    return out


def _combine(matrices, vectors) -> sp.Matrix:
    """sum_k A_k v_k without letting sympy distribute numbers over the (large) entries."""
    n = matrices[0].shape[0]
    out = []
    for i in range(n):
        terms = []
        for A, v in zip(matrices, vectors):
            for j in range(A.shape[1]):
                a, x = A[i, j], v[j]
                if a == 0 or x == 0:
                    continue
                terms.append(a if x == 1 else x if a == 1 else sp.Mul(a, x, evaluate=not (a.is_Add and x.is_Mul)))
        out.append(sp.Add(*terms))
    return sp.Matrix(out)


def derive_job(model: Manipulator, method: Method = Method.LAGRANGE,
               simplify: SimplifyMode = SimplifyMode.FAST, token: CancelToken | None = None) -> Job[Equations]:
    """Generator yielding :class:`Progress` and returning :class:`Equations`.

    ``token.check()`` is called inside every loop, so a cancel stops the job within
    one small step (a ``Cancelled`` exception).
    """
    method, simplify = Method(method), SimplifyMode(simplify)
    token = NEVER if token is None else token
    started = time.perf_counter()
    n = model.n
    qdd = sp.Matrix(model.qdd)
    qq, q2 = velocity_products(model.qd), velocity_squares(model.qd)
    yield Progress("preparing", 0.0, model.name)
    tr = TrigRing(model)
    extras: dict = {}
    mats: dict = {}
    if method is Method.LAGRANGE:
        from .lagrange import lagrange_job
        raw = yield from lagrange_job(model, tr, token)
        for name in ("M", "B", "C", "G"):
            if name == "B" and n < 2:
                mats[name] = sp.zeros(n, 0)
                continue
            mats[name] = yield from to_matrix_job(model, tr, raw[name], simplify, name, token, name == "M")
        M, G = mats["M"], mats["G"]
        h = _combine([mats["B"], mats["C"]], [2 * qq, q2])
        tau = _combine([M, sp.eye(n), sp.eye(n)], [qdd, h, G])
        extras["christoffel"] = (tr, raw["christoffel"])
    elif method is Method.NEWTON_EULER:
        from .newton_euler import newton_euler_job
        raw_tau = yield from newton_euler_job(model, tr, token)
        rest = [tr.subs_zero(t, model.qdd) for t in raw_tau]
        raw_G = [tr.subs_zero(t, model.qd) for t in rest]
        raw_M = [[tr.diff(t, v) for v in model.qdd] for t in raw_tau]
        tau = yield from to_matrix_job(model, tr, [[t] for t in raw_tau], simplify, "tau", token)
        M = yield from to_matrix_job(model, tr, raw_M, simplify, "M", token, True)
        G = yield from to_matrix_job(model, tr, [[g] for g in raw_G], simplify, "G", token)
        h = yield from to_matrix_job(model, tr, [[r - g] for r, g in zip(rest, raw_G)], simplify, "h", token)
        mats["tau"] = tau
    else:
        from .dalembert import dalembert_job
        raw = yield from dalembert_job(model, tr, token)
        for name in ("D_rot", "D_tra", "H_rot", "H_tra", "G"):
            mats[name] = yield from to_matrix_job(model, tr, raw[name], simplify, name, token,
                                                  name.startswith("D"))
        M = sp.Matrix(n, n, lambda i, j: mats["D_rot"][i, j] + mats["D_tra"][i, j])
        h = sp.Matrix(n, 1, lambda i, _: mats["H_rot"][i] + mats["H_tra"][i])
        G = mats["G"]
        tau = _combine([M, sp.eye(n), sp.eye(n)], [qdd, h, G])
        # Horn's per-link torques T_ij (joint i, link j), the same split by link instead of by kind
        extras["link_torques"] = yield from to_matrix_job(model, tr, raw["T"], simplify, "T", token)
    extras["seconds"] = time.perf_counter() - started
    yield Progress("done", 1.0, f"{method.value} in {extras['seconds']:.2f} s")
    return Equations(method=method, model=model, simplify=simplify, matrices=mats, tau=tau,
                     mass_matrix=M, gravity=G, coriolis=h, extras=extras)


def derive(model: Manipulator, method: Method = Method.LAGRANGE, simplify: SimplifyMode = SimplifyMode.FAST,
           progress: Callable[[Progress], None] | None = None, token: CancelToken | None = None) -> Equations:
    """Derive the equations of motion of ``model`` (see :func:`derive_job`)."""
    return run(derive_job(model, method, simplify, token), progress, token)


def coriolis_matrix(eq: Equations) -> sp.Matrix:
    """C(q, qd) with h = C qd, in Christoffel form (so dM/dt - 2C is skew-symmetric).

    C_ij = sum_k c_ijk qd_k with the Christoffel symbols c_ijk of M.
    """
    model = eq.model
    n = model.n
    stored: Any = eq.extras.get("christoffel")  # (the ring, c_ijk), kept by a Lagrange derivation
    if stored is None:
        from .bodies import arm_frames_job
        from .lagrange import body_jacobians_job, christoffel_job, mass_gravity_job

        def job() -> Job[tuple[TrigRing, list]]:
            tr = TrigRing(model)
            frames = yield from arm_frames_job(model, tr)
            jac = yield from body_jacobians_job(model, tr, frames)
            M_rot, M_tra, _ = yield from mass_gravity_job(model, tr, jac, frames)
            M = [[M_rot[a][b] + M_tra[a][b] for b in range(n)] for a in range(n)]
            c = yield from christoffel_job(model, tr, M)
            return tr, c
        stored = run(job())
    tr, c = stored
    qd = [tr.gens[v] for v in model.qd]
    return sp.Matrix(n, n, lambda i, j: tr.expr(sum((tr.mul(c[i][j][k], qd[k]) for k in range(n)), tr.zero)))


def link_torques_job(model: Manipulator, simplify: SimplifyMode = SimplifyMode.FAST,
                     token: CancelToken | None = None) -> Job[sp.Matrix]:
    """Generator returning Horn's T (sympy n x n): T[i, j] = torque at joint i to move link j.

    Link j's point loads are counted with link j; gravity is included, so the rows sum to tau.
    """
    from .dalembert import link_torques_job as raw_job
    token = NEVER if token is None else token
    tr = TrigRing(model)
    T = yield from raw_job(model, tr, token)
    return (yield from to_matrix_job(model, tr, T, SimplifyMode(simplify), "T", token))


def link_torques(model: Manipulator, simplify: SimplifyMode = SimplifyMode.FAST,
                 progress: Callable[[Progress], None] | None = None, token: CancelToken | None = None) -> sp.Matrix:
    """Horn's per-link torques T (n x n), see :func:`link_torques_job`."""
    return run(link_torques_job(model, simplify, token), progress, token)
