"""Simplification of the derived equations for display, and operation counts.

The derivations produce reduced trigonometric polynomials (see
:mod:`~designer.dynamics.trigpoly`). For display the equations are linear in
the inertial parameters, so an entry is split by parameter monomial and only
the small trigonometric coefficient of each monomial is rewritten (products to
sums, sums of angles recombined, sin(q2 + q3) kept as such). Each rewrite is
bounded in size, so simplification can never be the reason a derivation hangs.
"""

from __future__ import annotations

from typing import Iterable

import sympy as sp
from sympy.simplify.fu import TR10i

from ..jobs import NEVER, CancelToken
from .results import SimplifyMode

__all__ = ["simplify_poly", "compact_coefficient", "fourier", "count_ops_cse"]

# size bounds (count_ops) of one coefficient for the costlier rewrites
FAST_LIMIT = 80
FULL_LIMIT = 400


def _laurent(a: int, b: int, domain) -> dict:
    """cos^a sin^b as sum_k r_k z^k times (-i)^b: the real r_k (z = e^{i theta})."""
    poly = {0: domain.one}
    for factor in [(1, 1)] * a + [(1, -1)] * b:  # (z + 1/z) a times, (z - 1/z) b times
        nxt: dict = {}
        for k, r in poly.items():
            nxt[k + 1] = nxt.get(k + 1, domain.zero) + r * factor[0]
            nxt[k - 1] = nxt.get(k - 1, domain.zero) + r * factor[1]
        poly = nxt
    scale = domain.convert(2 ** (a + b))
    return {k: r / scale for k, r in poly.items() if r}


def fourier(tr, terms: dict) -> sp.Expr:
    """A trig polynomial {monomial: coefficient} (only c_i, s_i exponents set) as a sum of
    cos / sin of integer combinations of the joint angles: products become sums,
    cos(q2)cos(q3) - sin(q2)sin(q3) becomes cos(q2 + q3)."""
    dom = tr.domain
    rev = [i for i, l in enumerate(tr.model.links) if l.is_revolute]
    n = tr.model.n
    cache: dict = {}
    acc: dict = {}
    for monom, coeff in terms.items():
        series = {(): coeff}
        phase = 0
        for i in rev:
            a, b = monom[i], monom[n + i]
            if (a, b) == (0, 0):
                series = {k + (0,): r for k, r in series.items()}
                continue
            if (a, b) not in cache:
                cache[a, b] = _laurent(a, b, dom)
            phase += 3 * b
            series = {k + (kk,): r * rr for k, r in series.items() for kk, rr in cache[a, b].items()}
        phase %= 4
        for k, r in series.items():
            re_im = acc.setdefault(k, [dom.zero, dom.zero])
            if phase == 0:
                re_im[0] += r
            elif phase == 1:
                re_im[1] += r
            elif phase == 2:
                re_im[0] -= r
            else:
                re_im[1] -= r
    angles = [tr.model.q[i] + tr.model.links[i].theta for i in rev]
    out = []
    for k, (re, im) in acc.items():
        nz = [x for x in k if x]
        if not nz:
            out.append(dom.to_sympy(re))
            continue
        if nz[0] < 0:
            continue  # the conjugate half
        arg = sp.Add(*[kk * ang for kk, ang in zip(k, angles) if kk])
        if re:
            out.append(dom.to_sympy(2 * re) * sp.cos(arg))
        if im:
            out.append(dom.to_sympy(-2 * im) * sp.sin(arg))
    return tr.chop_expr(sp.Add(*out))


def _size(e: sp.Expr) -> int:
    return sp.count_ops(e)


def compact_coefficient(tr, terms: dict, limit: int, thorough: bool) -> sp.Expr:
    """The smaller of the product form and the sum form of a trig polynomial; FULL also tries
    trigsimp on small pieces."""
    product = tr.expr(tr.ring(terms))
    if not product.has(sp.sin, sp.cos):
        return product
    candidates = [product, fourier(tr, terms)]
    if thorough and _size(product) <= limit:
        try:
            candidates.append(TR10i(sp.factor_terms(product)))
            candidates.append(sp.trigsimp(product))
        except Exception:  # a rewrite that fails is just not a candidate  # noqa: BLE001
            pass
    return min(candidates, key=lambda x: (_size(x), len(str(x))))


def simplify_poly(tr, p, mode: SimplifyMode, token: CancelToken = NEVER, collect_by: Iterable = ()) -> sp.Expr:
    """A ring element of ``tr`` as a sympy expression, simplified in the given mode.

    OFF: the expanded polynomial. FAST / FULL: grouped by the monomial in parameters and
    joint rates, each trigonometric coefficient in its smaller form (products or sums of
    angles); FULL also tries trigsimp on small coefficients and collects by ``collect_by``.
    """
    mode = SimplifyMode(mode)
    if mode is SimplifyMode.OFF or not p:
        return tr.expr(p)
    token.check()
    limit = FAST_LIMIT if mode is SimplifyMode.FAST else FULL_LIMIT
    thorough = mode is SimplifyMode.FULL
    split = 2 * tr.model.n  # generators [0, split) are the c_i, s_i
    groups: dict = {}
    for monom, coeff in p.items():
        key, trig = monom[split:], monom[:split] + (0,) * (len(monom) - split)
        groups.setdefault(key, {})[trig] = coeff
    cache: dict = {}
    out = []
    zero_head = (0,) * split
    for key, terms in groups.items():
        token.check()
        factor = tr.expr(tr.ring({zero_head + key: tr.domain.one}))
        sig = tuple(sorted(terms.items()))
        if sig not in cache:
            cache[sig] = compact_coefficient(tr, terms, limit, thorough)
        out.append(factor * cache[sig])
    result = sp.Add(*out)
    syms = [s for s in collect_by if isinstance(s, sp.Symbol)]
    if thorough and syms:
        token.check()
        result = sp.collect(result, syms)
    return result


def count_ops_cse(exprs) -> int:
    """count_ops of sympy.cse of the expressions: the replacements plus the reduced expressions."""
    reps, reduced = sp.cse(list(exprs))
    return int(sum(sp.count_ops(v) for _, v in reps) + sum(sp.count_ops(r) for r in reduced))
