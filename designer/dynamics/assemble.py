"""Closed-form matrices from a method's ring rows: each entry simplified (:func:`to_matrix_job`), and
sums of matrix-vector products that keep the entries' structure (:func:`combine`).

Shared by the derivation job (:mod:`.engine`) and the methods (:mod:`.methods`), so that neither
imports the other.
"""

from __future__ import annotations

import sympy as sp

from ..jobs import NEVER, CancelToken, Job, Progress
from ..model.manipulator import Manipulator
from .algebra import simplify_poly
from .results import SimplifyMode
from .trigpoly import TrigRing

__all__ = ["to_matrix_job", "combine"]


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


def combine(matrices, vectors) -> sp.Matrix:
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
