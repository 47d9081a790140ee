"""Local rewrites of straight-line code after CSE: terms that cancel, products spelled out twice,
and signs.

Code here is a list of temporaries ``[(symbol, value)]`` in an order that evaluates, plus the
output expressions that read them. Each pass returns the same values; :func:`~designer.graphs.cse.polish`
keeps a pass only where it lowers ``count_ops``. They exist because CSE sees
the recursion's steps as opaque: the angular acceleration ``wd = wd' + w' x (qd z)`` and the entry
``w_x w_z + wd_y`` of U each hold ``qd w'_x`` once, with opposite signs, and only inlining one
into the other shows that they cancel.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["cancel_sums", "reuse_products", "tidy_signs", "flip_signs"]


def _cost(e: sp.Basic) -> int:
    """``count_ops`` without a leading sign, which the readers of a temporary can take."""
    return int(sp.count_ops(-e if e.could_extract_minus_sign() else e))


def cancel_sums(temps: list, outputs: list) -> tuple[list, list]:
    """Each sum that reads a sum temporary (with coefficient +-1) whose terms then cancel against its
    own takes the terms instead, where that costs no more than before (``x9 = tx3 + x8`` with
    ``tx3 = qdd1*x2 - x8`` becomes ``x9 = qdd1*x2``; the temporary stays for its other readers)."""
    value = dict(temps)

    def visit(x: sp.Basic) -> sp.Basic:
        if not x.args:
            return x
        x = x.func(*[visit(a) for a in x.args])
        if not isinstance(x, sp.Add):
            return x
        for term in x.args:
            coeff, t = term.as_coeff_Mul()
            inner = value.get(t)
            if abs(coeff) != 1 or not isinstance(inner, sp.Add):
                continue
            merged = sp.expand(x.xreplace({t: inner}), deep=False, mul=True, multinomial=False,
                               power_exp=False, power_base=False, log=False)
            if len(sp.Add.make_args(merged)) < len(x.args) - 1 + len(inner.args) and _cost(merged) <= _cost(x):
                return visit(merged) if isinstance(merged, sp.Add) else merged
        return x
    return [(s, visit(v)) for s, v in temps], [visit(sp.sympify(e)) for e in outputs]


def reuse_products(temps: list, outputs: list) -> tuple[list, list]:
    """A product that a temporary holds (up to sign, or among more factors) read from that
    temporary wherever it is spelled out. The temporaries may then need reordering."""
    held: dict = {}
    for s, v in temps:
        if isinstance(v, sp.Mul) and v.args[0] != -1:
            held.setdefault(v, s)

    def visit(x: sp.Basic, own: sp.Symbol | None = None) -> sp.Basic:
        if not x.args:
            return x
        x = x.func(*[visit(a) for a in x.args])
        if not isinstance(x, sp.Mul):
            return x
        coeff, rest = x.as_coeff_Mul()
        if rest in held and held[rest] != own:
            return coeff * held[rest]
        factors = list(sp.Mul.make_args(rest))
        for product, s in held.items():
            if s == own or len(product.args) >= len(factors):
                continue
            left = list(factors)
            try:
                for f in product.args:
                    left.remove(f)
            except ValueError:
                continue
            return coeff * s * sp.Mul(*left)
        return x
    return [(s, visit(v, s)) for s, v in temps], [visit(sp.sympify(e)) for e in outputs]


def tidy_signs(e: sp.Basic) -> sp.Basic:
    """``e`` with the sign of every factor that is a sum of negative terms moved to its product
    (``-a*(-b - c)`` is ``a*(b + c)``: two negations fewer)."""
    if not e.args:
        return e
    args = [tidy_signs(a) for a in e.args]
    if not isinstance(e, sp.Mul):
        return e.func(*args)
    sign = 1
    out = []
    for a in args:
        if isinstance(a, sp.Add) and all(t.as_coeff_Mul()[0] < 0 for t in a.args):
            sign, a = -sign, sp.Add(*[-t for t in a.args])
        out.append(a)
    return sp.Mul(sign, *out)


#: how many temporaries one sign flip may drag along (each one that the flips made dearer)
CASCADE = 16


def flip_signs(temps: list, outputs: list) -> tuple[list, list]:
    """Temporaries negated (``t = -v``, its reads ``-t``) where that lowers ``count_ops``: each one
    alone, or together with the temporaries the flip made dearer, repeatedly (a negation that
    moves from ``x23 = -sin(q4)`` into ``x25``, from there into ``x53``, ... until a sum absorbs
    it: the PUMA 560 base-parameter tau's two negated sines go this way). Temporaries in an
    order that evaluates."""
    n = len(temps)
    syms = [s for s, _ in temps]
    exprs = [v for _, v in temps] + [sp.sympify(e) for e in outputs]
    index = {s: i for i, s in enumerate(syms)}
    readers: dict = {}
    for k, e in enumerate(exprs):
        for s in e.free_symbols:
            if s in index:
                readers.setdefault(index[s], set()).add(k)
    ops = [sp.count_ops(e) for e in exprs]

    def trial(flipped: set) -> tuple[int, dict]:
        sub = {syms[i]: -syms[i] for i in flipped}
        touched = set(flipped).union(*(readers.get(i, ()) for i in flipped))
        new, delta = {}, 0
        for k in sorted(touched):
            e = -exprs[k].xreplace(sub) if k in flipped else exprs[k].xreplace(sub)
            count = sp.count_ops(e)
            if count > ops[k]:   # a sign may now sit on a sum inside a product
                e = tidy_signs(e)
                count = sp.count_ops(e)
            new[k] = (e, count)
            delta += count - ops[k]
        return delta, new
    todo = set(range(n))
    while todo:   # a flip changes the counts only of what it touched: only those are tried again
        for i in sorted(todo):
            todo.discard(i)
            flipped = {i}
            while True:
                delta, new = trial(flipped)
                if delta < 0:
                    for k, (e, count) in new.items():
                        exprs[k], ops[k] = e, count
                        todo |= {index[s] for s in e.free_symbols if s in index}
                    todo |= {k for k in new if k < n}
                    break
                # carry on only from a definition that is cheaper negated (-sin(q4), -a - b): a flip
                # that gains nothing where it starts rarely gains further on
                if new[i][1] >= ops[i] or len(flipped) > CASCADE:
                    break
                dearer = {k for k, (_, count) in new.items() if k < n and k not in flipped and count > ops[k]}
                if not dearer:
                    break
                flipped |= dearer
    return [(s, exprs[i]) for i, s in enumerate(syms)], exprs[n:]
