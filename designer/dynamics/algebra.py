"""Simplification of the derived equations for display, and operation counts.

The derivations produce reduced trigonometric polynomials (see
:mod:`~designer.dynamics.trigpoly`). For display the equations are linear in
the inertial parameters, so an entry is split by parameter monomial and only
the small trigonometric coefficient of each monomial is rewritten (products to
sums, sums of angles recombined, sin(q2 + q3) kept as such). Each rewrite is
bounded in size, so simplification can never be the reason a derivation hangs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sympy as sp
from sympy.simplify.fu import TR10i

from sympy.polys.domains import RR

from ..graphs.cse import fold_negations
from ..jobs import NEVER, CancelToken
from .trigpoly import CHOP
from .results import SimplifyMode

__all__ = ["simplify_poly", "compact_coefficient", "count_ops_cse"]

# size bounds (count_ops) of one coefficient for the costlier rewrites
FAST_LIMIT = 80
FULL_LIMIT = 40


class _FloatDomain:
    zero, one = 0.0, 1.0
    convert = staticmethod(float)


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


def fourier_terms(tr, terms: dict) -> list:
    """A trig polynomial {monomial: coefficient} (only c_i, s_i exponents set) as a sum of
    cos / sin of integer combinations of the joint angles: [(coefficient, cos or sin, k)].
    Products become sums; cos(q2)cos(q3) - sin(q2)sin(q3) becomes cos(q2 + q3)."""
    dom = _FloatDomain if tr.domain is RR else tr.domain  # plain floats are far faster than mpf
    rev = [i for i, l in enumerate(tr.model.links) if l.is_revolute]
    n = tr.model.n
    cache: dict = {}
    acc: dict = {}
    for monom, coeff in terms.items():
        if dom is _FloatDomain:
            coeff = float(coeff)
        series: dict[tuple[int, ...], Any] = {(): coeff}
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
            re_im[phase % 2] += r if phase < 2 else -r
    out = []
    for k, (re, im) in acc.items():
        nz = [x for x in k if x]
        if not nz:
            if re:
                out.append((re, None, k))
            continue
        if nz[0] < 0:
            continue  # the conjugate half
        if re:
            out.append((2 * re, sp.cos, k))
        if im:
            out.append((-2 * im, sp.sin, k))
    if tr.domain is RR and out:
        big = max(abs(c) for c, _, _ in out)
        out = [t for t in out if abs(t[0]) > CHOP * big]
    return out


def _fourier_size(items) -> int:
    return sum(2 + sum(1 for x in k if x) for _, f, k in items if f is not None) + len(items)


def _product_size(terms: dict) -> int:
    return sum(1 + sum(1 + (e > 1) for e in m if e) for m in terms) + len(terms)


def fourier_expr(tr, items) -> sp.Expr:
    rev = [i for i, l in enumerate(tr.model.links) if l.is_revolute]
    angles = [tr.model.q[i] + tr.model.links[i].theta for i in rev]
    out = []
    for c, f, k in items:
        c = sp.Float(c) if isinstance(c, float) else tr.domain.to_sympy(c)
        if f is None:
            out.append(c)
            continue
        arg = sp.Add(*[kk * ang for kk, ang in zip(k, angles) if kk])
        out.append(sp.Mul(c, f(arg)))
    return sp.Add(*out)


def compact_coefficient(tr, terms: dict, limit: int, thorough: bool) -> sp.Expr:
    """The smaller of the product form and the sum form of a trig polynomial (sizes judged
    from the structure, cheaply); FULL also tries TR10i (sums of angles) on small pieces."""
    if all(not any(m) for m in terms):
        return tr.expr(tr.ring(terms))
    if len(terms) > limit * 5:
        return tr.expr(tr.ring(terms))  # too large to be worth rewriting in this mode
    items = fourier_terms(tr, terms)
    best = fourier_expr(tr, items) if _fourier_size(items) < _product_size(terms) else tr.expr(tr.ring(terms))
    if not thorough or _product_size(terms) > limit:
        return best
    candidates = [best]
    product = tr.expr(tr.ring(terms))
    try:
        candidates.append(TR10i(sp.factor_terms(product)))  # recombine angle sums; trigsimp is far too slow here
    except Exception:  # a rewrite that fails is just not a candidate  # noqa: BLE001
        pass
    return min(candidates, key=lambda x: (sp.count_ops(x), len(str(x))))


def simplify_poly(tr, p, mode: SimplifyMode, token: CancelToken = NEVER, collect_by: Iterable = (),
                  cache: dict | None = None) -> sp.Expr:
    """A ring element of ``tr`` as a sympy expression, simplified in the given mode.

    OFF: the expanded polynomial. FAST / FULL: grouped by the monomial in parameters and
    joint rates, each trigonometric coefficient in its smaller form (products or sums of
    angles); FULL also recombines angle sums in small coefficients and collects by ``collect_by``.
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
    cache = {} if cache is None else cache  # shared between entries: coefficients repeat
    out = []
    zero_head = (0,) * split
    for key, terms in groups.items():
        token.check()
        factor = tr.expr(tr.ring({zero_head + key: tr.domain.one}))
        sig = (thorough, frozenset(terms.items()))
        if sig not in cache:
            cache[sig] = compact_coefficient(tr, terms, limit, thorough)
        out.append(cache[sig] if factor == 1 else factor * cache[sig])
    result = sp.Add(*out)
    syms = [s for s in collect_by if isinstance(s, sp.Symbol)]
    if thorough and syms:
        token.check()
        result = sp.collect(result, syms)
    return result


def count_ops_cse(exprs) -> int:
    """count_ops of sympy.cse of the expressions: the replacements plus the reduced expressions,
    negated temporaries folded into their uses as the generated code has them."""
    reps, reduced = fold_negations(*sp.cse(list(exprs)))
    return int(sum(sp.count_ops(v) for _, v in reps) + sum(sp.count_ops(r) for r in reduced))
