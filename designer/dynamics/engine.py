"""The public derivation job: pick the method, derive, simplify, assemble :class:`Equations`."""

from __future__ import annotations

import time
from typing import Callable, Iterator

import sympy as sp

from ..jobs import NEVER, CancelToken, Progress, run
from ..model.manipulator import Manipulator
from .algebra import simplify_expr, tidy
from .results import Equations, Method, SimplifyMode, velocity_products, velocity_squares

__all__ = ["derive", "derive_job", "coriolis_matrix", "simplify_matrix_job"]


def _variables(model: Manipulator) -> set:
    return set(model.q) | set(model.qd) | set(model.qdd)


def _collect_symbols(model: Manipulator) -> list:
    """Link and load masses, the symbols FULL mode collects by (as Lee prints D and G)."""
    out = [l.mass for l in model.links] + [p.mass for p in model.point_masses]
    return [m for m in out if isinstance(m, sp.Symbol)]


def simplify_matrix_job(model: Manipulator, m: sp.Matrix, mode: SimplifyMode, name: str,
                        token: CancelToken = NEVER, symmetric: bool = False) -> Iterator[Progress]:
    """Generator returning ``m`` simplified entry by entry (a symmetric matrix is done once per pair)."""
    mode = SimplifyMode(mode)
    if mode is SimplifyMode.OFF:
        return m
    variables, by = _variables(model), _collect_symbols(model)
    out = m.copy()
    rows, cols = m.shape
    for i in range(rows):
        for j in range(cols):
            if symmetric and j < i:
                out[i, j] = out[j, i]
                continue
            token.check()
            yield Progress(f"simplifying {name}", (i * cols + j) / (rows * cols), f"{name}[{i + 1},{j + 1}]")
            out[i, j] = simplify_expr(m[i, j], mode, variables, token, by)
    return out


def _newton_euler_matrices(model, tau, token):
    """M, G, h of an inverse-dynamics vector tau(q, qd, qdd) (it is linear in qdd)."""
    n = model.n
    zero_qdd = {v: 0 for v in model.qdd}
    zero_qd = {v: 0 for v in model.qd}
    M = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            token.check()
            M[i, j] = tidy(sp.diff(tau[i], model.qdd[j]), token)
    G = tau.applyfunc(lambda e: tidy(e.xreplace(zero_qdd).xreplace(zero_qd), token))
    h = sp.Matrix(n, 1, lambda i, _: tidy(tau[i].xreplace(zero_qdd) - G[i], token))
    return M, G, h


def derive_job(model: Manipulator, method: Method = Method.LAGRANGE,
               simplify: SimplifyMode = SimplifyMode.FAST, token: CancelToken | None = None) -> Iterator[Progress]:
    """Generator yielding :class:`Progress` and returning :class:`Equations`.

    ``token.check()`` is called inside every loop, so a cancel stops the job within
    one small step (a ``Cancelled`` exception).
    """
    method, simplify = Method(method), SimplifyMode(simplify)
    token = NEVER if token is None else token
    started = time.perf_counter()
    n = model.n
    qd, qdd = sp.Matrix(model.qd), sp.Matrix(model.qdd)
    qq, q2 = velocity_products(model.qd), velocity_squares(model.qd)
    extras: dict = {}
    if method is Method.LAGRANGE:
        from . import lagrange
        raw = yield from lagrange.lagrange_job(model, token)
        mats = {}
        for name in ("M", "B", "C", "G"):
            mats[name] = yield from simplify_matrix_job(model, raw[name], simplify, name, token,
                                                        symmetric=name == "M")
        M, G = mats["M"], mats["G"]
        h = 2 * mats["B"] * qq + mats["C"] * q2 if n > 1 else mats["C"] * q2
        tau = M * qdd + h + G
        extras["christoffel"] = raw["christoffel"]
    elif method is Method.NEWTON_EULER:
        from . import newton_euler
        raw_tau = yield from newton_euler.newton_euler_job(model, token)
        yield Progress("mass matrix and gravity", None, "from tau")
        M, G, h = _newton_euler_matrices(model, raw_tau, token)
        tau = yield from simplify_matrix_job(model, raw_tau, simplify, "tau", token)
        M = yield from simplify_matrix_job(model, M, simplify, "M", token, symmetric=True)
        G = yield from simplify_matrix_job(model, G, simplify, "G", token)
        h = yield from simplify_matrix_job(model, h, simplify, "h", token)
        mats = {"tau": tau}
    else:
        from . import dalembert
        raw = yield from dalembert.dalembert_job(model, token)
        mats = {}
        for name in ("D_rot", "D_tra", "H_rot", "H_tra", "G"):
            mats[name] = yield from simplify_matrix_job(model, raw[name], simplify, name, token,
                                                        symmetric=name.startswith("D"))
        M = mats["D_rot"] + mats["D_tra"]
        h = mats["H_rot"] + mats["H_tra"]
        G = mats["G"]
        tau = M * qdd + h + G
    extras["seconds"] = time.perf_counter() - started
    yield Progress("done", 1.0, f"{method.value} in {extras['seconds']:.2f} s")
    return Equations(method=method, model=model, simplify=simplify, matrices=mats, tau=tau,
                     mass_matrix=M, gravity=G, coriolis=h, extras=extras)


def derive(model: Manipulator, method: Method = Method.LAGRANGE, simplify: SimplifyMode = SimplifyMode.FAST,
           progress: Callable[[Progress], None] | None = None, token: CancelToken | None = None) -> Equations:
    """Derive the equations of motion of ``model`` (see :func:`derive_job`)."""
    return run(derive_job(model, method, simplify, token), progress, token)


def coriolis_matrix(eq: Equations) -> sp.Matrix:
    """C(q, qd) with h = C qd, in Christoffel form (so dM/dt - 2C is skew-symmetric)."""
    model = eq.model
    n = model.n
    c = eq.extras.get("christoffel")
    if c is None:
        from .lagrange import christoffel_job
        M = eq.mass_matrix.applyfunc(tidy)
        c = run(christoffel_job(model, M))
    qd = model.qd
    return sp.Matrix(n, n, lambda i, j: sp.Add(*[c[i][j][k] * qd[k] for k in range(n)]))
