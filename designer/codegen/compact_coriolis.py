"""The Coriolis matrix of a closed chain's compact form, in Christoffel form, by polarization.

The compact h_a(q, qd_a) without gravity and friction is a quadratic form in qd_a (the tree's rates
W qd_a, the passive accelerations' rate term b = -J_p^-1 J' qd quadratic in them), h_i = sum_jk
c_ijk qd_j qd_k with c_ijk = c_ikj the Christoffel symbols of M_a (the reduced Lagrangian's), so

    c_ijj = h_i(e_j),    c_ijk = (h_i(e_j + e_k) - h_i(e_j) - h_i(e_k)) / 2,    C_ij = sum_k c_ijk qd_k,

and C_a qd_a = h_a, M_a' - 2 C_a skew. h at a unit rate u is the steps with qd_a = u: every step that
reads a rate (transitively) is copied under the suffix ``_u<m>`` with the unit rates substituted
(zeros drop out), the steps that read positions only are shared. n_a (n_a + 1) / 2 rate patterns.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..jobs import NEVER, CancelToken

__all__ = ["compact_coriolis"]


def _at_rates(steps: Sequence[tuple], h: sp.Matrix, qd: Sequence[sp.Symbol], rates: Sequence[int], tag: str,
              rate_steps: set) -> tuple[list[tuple], sp.Matrix]:
    """(the copies of the rate-dependent steps, h) at qd = ``rates``."""
    subs: dict = {s: sp.Integer(r) for s, r in zip(qd, rates)}
    out = []
    for sym, value in steps:
        if sym not in rate_steps:
            continue
        new = sp.sympify(value).xreplace(subs)
        if new.is_number:   # a zero rate: the step is a number, no temporary
            subs[sym] = new
            continue
        copy = sp.Symbol(f"{sym.name}_{tag}", real=True)
        subs[sym] = copy
        out.append((copy, new))
    return out, h.xreplace(subs)


def compact_coriolis(steps: Sequence[tuple], h: sp.Matrix, qd: Sequence[sp.Symbol],
                     token: CancelToken = NEVER) -> tuple[list[tuple], sp.Matrix]:
    """(steps to add, C) of the velocity terms ``h`` (quadratic in ``qd``, over ``steps``' symbols)."""
    n = len(qd)
    rate_steps: set = set()
    reads = set(qd)
    for sym, value in steps:   # the steps that read a rate, in order (each reads only earlier ones)
        if sp.sympify(value).free_symbols & reads:
            rate_steps.add(sym)
            reads.add(sym)
    added: list[tuple] = []
    unit: dict = {}
    for j in range(n):
        token.check()
        more, unit[j, j] = _at_rates(steps, h, qd, [int(k == j) for k in range(n)], f"u{j + 1}", rate_steps)
        added += more
    gamma: dict = {}
    for j in range(n):
        gamma[j, j] = unit[j, j]
        for k in range(j + 1, n):
            token.check()
            more, both = _at_rates(steps, h, qd, [int(m in (j, k)) for m in range(n)], f"u{j + 1}_{k + 1}",
                                   rate_steps)
            added += more
            gamma[j, k] = gamma[k, j] = (both - unit[j, j] - unit[k, k]) / 2
    C = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            C[i, j] = sp.Add(*[gamma[j, k][i] * qd[k] for k in range(n)])
    return added, C
