"""Expression housekeeping for the derivations: a canonical trigonometric form and simplification.

The derivations keep every quantity *expanded* and *reduced*: a polynomial in
sin/cos of the individual angles in which no ``sin(x)**2`` remains (it becomes
``1 - cos(x)**2``). That form is canonical, so cancellations happen as the
terms are combined and zero tests are exact; it also keeps trees flat.

Readable output comes afterwards, by :func:`simplify_expr`: the equations are
linear in the inertial parameters, so an expression is split by parameter
monomial and only the small trigonometric coefficient of each monomial is
rewritten (products to sums, sums of angles recombined). Each piece is bounded
in size, so simplification can never be the reason a derivation hangs.
"""

from __future__ import annotations

from typing import Iterable

import sympy as sp
from sympy.simplify.fu import TR8, TR10, TR10i, fu

from ..jobs import NEVER, CancelToken
from .results import SimplifyMode

__all__ = ["tidy", "tidy_matrix", "simplify_expr", "split_by_parameters", "count_ops_cse"]

# size bounds (count_ops) of one coefficient for the costlier rewrites
FAST_LIMIT = 60
FULL_LIMIT = 400
CHOP = 1e-12  # relative size of float round-off terms dropped after cancellation


def _reduce_sin_squares(e: sp.Expr) -> sp.Expr:
    while True:
        pows = [p for p in e.atoms(sp.Pow)
                if isinstance(p.base, sp.sin) and p.exp.is_Integer and p.exp >= 2]
        if not pows:
            return e
        sub = {p: (1 - sp.cos(p.base.args[0]) ** 2) * p.base ** (p.exp - 2) for p in pows}
        e = sp.expand(e.xreplace(sub))


def _chop(e: sp.Expr) -> sp.Expr:
    """Drop float round-off left where exact terms would have cancelled."""
    if not e.has(sp.Float) or not e.is_Add:
        return e
    terms = e.args
    coeffs = [abs(float(t.as_coeff_Mul()[0])) for t in terms]
    big = max(coeffs)
    if big == 0:
        return e
    keep = [t for t, c in zip(terms, coeffs) if c > CHOP * big]
    return sp.Add(*keep) if len(keep) < len(terms) else e


def tidy(e, token: CancelToken = NEVER) -> sp.Expr:
    """The canonical form: expanded, no sin(x)**2, float round-off removed."""
    e = sp.sympify(e)
    if e.is_Number or e.is_Symbol:
        return e
    token.check()
    if e.is_Mul and any(a.is_Add for a in e.args):
        # expand a product of sums term by term so a cancel is seen between terms
        head, *rest = [a for a in e.args]
        acc = sp.expand(head)
        for factor in rest:
            token.check()
            parts = []
            for t in sp.Add.make_args(sp.expand(factor)):
                parts.append(sp.expand(acc * t))
            acc = sp.Add(*parts)
        e = acc
    else:
        e = sp.expand(e)
    token.check()
    return _chop(_reduce_sin_squares(e))


def tidy_matrix(m: sp.Matrix, token: CancelToken = NEVER) -> sp.Matrix:
    return m.applyfunc(lambda e: tidy(e, token))


def dot(a: Iterable, b: Iterable, token: CancelToken = NEVER) -> sp.Expr:
    """The canonical form of sum(a_k b_k)."""
    return tidy(sp.Add(*[tidy(x * y, token) for x, y in zip(a, b) if x != 0 and y != 0]), token)


def cross(a: sp.Matrix, b: sp.Matrix, token: CancelToken = NEVER) -> sp.Matrix:
    return sp.Matrix([tidy(a[1] * b[2] - a[2] * b[1], token),
                      tidy(a[2] * b[0] - a[0] * b[2], token),
                      tidy(a[0] * b[1] - a[1] * b[0], token)])


# -- simplification for display -------------------------------------------------

def split_by_parameters(e: sp.Expr, variables: set) -> dict:
    """{parameter monomial: coefficient}: each term split into its variable-free factor and the rest.

    ``variables`` are the joint symbols; the coefficient holds the number and every
    factor that depends on them (sin/cos of q, qd, qdd).
    """
    out: dict = {}
    for term in sp.Add.make_args(sp.expand(e)):
        num, factors = term.as_coeff_mul()
        param, rest = [], [num]
        for f in factors:
            (rest if f.free_symbols & variables else param).append(f)
        key = sp.Mul(*param)
        out[key] = out.get(key, 0) + sp.Mul(*rest)
    return out


def _compact_coefficient(c: sp.Expr, limit: int, thorough: bool) -> sp.Expr:
    """The smallest of a few rewrites of a small trig polynomial (sums of angles kept as such)."""
    size = sp.count_ops(c)
    if size <= 1 or not c.has(sp.sin, sp.cos):
        return c
    if size > limit:
        return c
    candidates = [c]
    try:
        candidates.append(TR10i(sp.factor_terms(c)))
        sums = sp.expand(TR8(c))  # products to sums: cos(q2 + q3), cos(2 q2), ...
        candidates.append(sums)
        candidates.append(TR10i(sp.factor_terms(sp.expand(TR10(sums)))))
        if thorough:
            candidates.append(sp.trigsimp(c))
            candidates.append(fu(c))
    except Exception:  # a rewrite that fails is just not a candidate
        pass
    return min(candidates, key=lambda x: (sp.count_ops(x), len(str(x))))


def simplify_expr(e: sp.Expr, mode: SimplifyMode, variables: set, token: CancelToken = NEVER,
                  collect_by: Iterable = ()) -> sp.Expr:
    """Simplify one entry of the equations in the given mode (OFF returns it unchanged)."""
    mode = SimplifyMode(mode)
    if mode is SimplifyMode.OFF or e == 0:
        return e
    token.check()
    limit = FAST_LIMIT if mode is SimplifyMode.FAST else FULL_LIMIT
    thorough = mode is SimplifyMode.FULL
    groups = split_by_parameters(e, variables)
    # coefficients that are equal up to sign share one compact form (a cheap cache)
    cache: dict = {}
    out = []
    for key, coeff in groups.items():
        token.check()
        if coeff == 0:
            continue
        if coeff not in cache:
            cache[coeff] = _compact_coefficient(coeff, limit, thorough)
        out.append(key * cache[coeff])
    result = sp.Add(*out)
    if thorough:
        syms = [s for s in collect_by if isinstance(s, sp.Symbol)]
        if syms:
            token.check()
            result = sp.collect(result, syms)
    return result


def count_ops_cse(exprs) -> int:
    """count_ops of sympy.cse of the expressions: the replacements plus the reduced expressions."""
    exprs = list(exprs)
    reps, reduced = sp.cse(exprs)
    return int(sum(sp.count_ops(v) for _, v in reps) + sum(sp.count_ops(r) for r in reduced))
