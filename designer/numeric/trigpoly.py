"""Closed forms as polynomials in sines and cosines, rewritten for fewer operations.

An expanded entry of M or G (a derivation's closed form with numbers in) is a polynomial
in sin q_k, cos q_k (and the prismatic joint variables). :func:`nested_forms` rewrites it
in three exact steps before CSE:

1. **Angle sums.** Where two joints are parallel (PUMA 560 joints 2 and 3) the entries are
   short in cos(q2 + q3), sin(q2 + q3) but long once expanded into products of cos q2, sin q3
   ... . Joint by joint, cos q_k and sin q_k are replaced by the sum angle a = b + q_k of the
   previous joint's angle b (cos q_k = cos a cos b + sin a sin b, sin q_k = sin a cos b - cos a sin b);
   the change is kept where it leaves fewer terms.
2. **sin^2 = 1 - cos^2**, so that equal terms written two ways merge.
3. **Horner form** in the order of generators (taken out first to last) with the fewest
   operations found: pairs swapped while that helps, from the most frequent generator first and
   from a few shuffled orders (seeded: the same equations give the same code).

PUMA 560 mass matrix (upper triangle, after CSE): 261 operations with a Horner form per
entry in a fixed order, 171 with these steps.

The polynomials are dicts (exponent tuple -> float): sympy's expand and Poly take seconds on
these, the dicts milliseconds. This is why there are two trigonometric-polynomial modules: the
derivations' ring (:class:`designer.dynamics.trigpoly.TrigRing`) is exact and symbolic (rational and
symbolic coefficients, the canonical reduced form that makes terms cancel as a derivation runs),
while these rewrite float closed forms once, after the numbers are in, for the compiled functions.
The two share the rounding threshold; the Horner routes are both here (:func:`nested_matrix`).
Coefficients of products of sines and cosines alone (at most 1 in size) that cancel up to rounding
(below ``1e-13`` of the entry's largest) are dropped.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import sympy as sp

from ..codegen.plan import is_symmetric
from ..dynamics.trigpoly import CHOP

__all__ = ["nested_forms", "nested_matrix", "sympy_horner"]

Poly = dict  # tuple[int, ...] -> float
#: coefficients this far below an entry's largest are rounding residues of cancelled terms (the
#: derivations' ring drops the same, :data:`designer.dynamics.trigpoly.CHOP`)
RESIDUE = CHOP
#: significant digits kept of each coefficient (near-duplicates would hide shared factors)
DIGITS = 14


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ea, ca in a.items():
        for eb, cb in b.items():
            e = tuple(x + y for x, y in zip(ea, eb))
            out[e] = out.get(e, 0.0) + ca * cb
    return out


def _add_into(out: Poly, p: Poly, scale: float = 1.0) -> None:
    for e, c in p.items():
        out[e] = out.get(e, 0.0) + scale * c


def _substitute(p: Poly, k: int, r: Poly) -> Poly:
    """``p`` with generator ``k`` replaced by the polynomial ``r``."""
    powers: list[Poly] = [{}, r]  # powers[0] unused: d = 0 is copied as is
    out: Poly = {}
    for e, c in p.items():
        d = e[k]
        if d == 0:
            out[e] = out.get(e, 0.0) + c
            continue
        while len(powers) <= d:
            powers.append(_mul(powers[-1], r))
        rest = e[:k] + (0,) + e[k + 1:]
        _add_into(out, _mul({rest: c}, powers[d]))
    return out


def _reduce(p: Poly, pairs: Sequence[tuple[int, int]], unbounded: Sequence[int]) -> Poly:
    """``p`` with sin^2 = 1 - cos^2 for each (sin, cos) generator pair, rounding residues dropped
    (terms without the ``unbounded`` generators)."""
    for s, c in pairs:
        if not any(e[s] > 1 for e in p):
            continue
        out: Poly = {}
        for e, coef in p.items():
            m, odd = divmod(e[s], 2)
            base = list(e)
            base[s] = odd
            # (1 - c^2)^m = sum_j binom(m, j) (-1)^j c^(2j)
            binom = 1
            for j in range(m + 1):
                term = list(base)
                term[c] += 2 * j
                key = tuple(term)
                out[key] = out.get(key, 0.0) + coef * binom * (-1) ** j
                binom = binom * (m - j) // (j + 1)
        p = out
    big = max((abs(c) for c in p.values()), default=0.0)
    return {e: c for e, c in p.items() if abs(c) > RESIDUE * big or any(e[k] for k in unbounded)}


def _split(p: Poly, order: Sequence[int]) -> tuple[int, Poly, Poly] | None:
    """(k, p_k / g_k, p without g_k) for the first generator k of ``order`` that ``p`` holds; None
    when only a constant is left."""
    for k in order:
        if any(e[k] for e in p):
            break
    else:
        return None
    inner: Poly = {}
    rest: Poly = {}
    for e, c in p.items():
        if e[k]:
            inner[e[:k] + (e[k] - 1,) + e[k + 1:]] = c
        else:
            rest[e] = c
    return k, inner, rest


def _horner(p: Poly, order: Sequence[int], gens: Sequence[sp.Expr]) -> sp.Expr:
    """Horner form, generators taken out in ``order``: p = g * (p_g / g) + (p without g)."""
    if not p:
        return sp.S.Zero
    split = _split(p, order)
    if split is None:
        (e, c), = p.items()  # only a constant is left
        return _monomial(e, c, gens)
    k, inner, rest = split
    return gens[k] * _horner(inner, order, gens) + _horner(rest, order, gens)


def _shape(p: Poly, order: Sequence[int], nodes: set) -> object:
    """The Horner form of ``p`` in ``order`` as nested tuples, its operations added to ``nodes``
    (equal parts are equal tuples: ``len(nodes)`` counts what CSE leaves, about)."""
    split = _split(p, order)
    if split is None:
        return float(f"{sum(p.values()):.{DIGITS}g}") if p else 0.0
    k, inner, rest = split
    a = _shape(inner, order, nodes)
    node: object = k if a == 1.0 else ("*", k, a)
    if node != k:
        nodes.add(node)
    if rest:
        node = ("+", node, _shape(rest, order, nodes))
        nodes.add(node)
    return node


def _operations(polys: Sequence[Poly], order: Sequence[int]) -> int:
    nodes: set = set()
    for p in polys:
        _shape(p, order, nodes)
    return len(nodes)


#: generator orders tried at most: hill climbing by swaps from a few starts
TRIALS = 400


def _best_horner(polys: list[Poly], gens: Sequence[sp.Expr]) -> list[sp.Expr]:
    """The Horner forms for the generator order with the fewest operations found (pairs swapped
    while that helps, from the most frequent generator first and from a few shuffled orders)."""
    counts = [0] * len(gens)
    for p in polys:
        for e in p:
            for k, d in enumerate(e):
                if d:
                    counts[k] += 1
    start = sorted((k for k in range(len(gens)) if counts[k]), key=lambda k: -counts[k])
    rng = random.Random(0)  # the same code for the same equations
    best, cost = start, _operations(polys, start)
    trials = 0
    for attempt in range(8):
        order = start[:] if attempt == 0 else rng.sample(start, len(start))
        here = _operations(polys, order)
        improved = True
        while improved and trials < TRIALS:
            improved = False
            for i, j in itertools.combinations(range(len(order)), 2):
                trials += 1
                trial = order[:]
                trial[i], trial[j] = trial[j], trial[i]
                c = _operations(polys, trial)
                if c < here:
                    order, here, improved = trial, c, True
        if here < cost:
            best, cost = order, here
    return [_horner(p, best, gens) for p in polys]


def _monomial(e: tuple[int, ...], c: float, gens: Sequence[sp.Expr]) -> sp.Expr:
    coef = sp.Float(float(f"{c:.{DIGITS}g}"))
    return sp.Mul(coef, *(g**d for g, d in zip(gens, e) if d))


def _terms(polys: list[Poly]) -> int:
    return sum(len(p) for p in polys)


def _angles(trig: set, joints: Sequence[sp.Symbol]) -> list[sp.Expr] | None:
    """The arguments of the sines and cosines in joint order, or None unless each names one joint
    (q_k or q_k plus a constant offset) and each joint has one."""
    by_joint: dict = {}
    for arg in {f.args[0] for f in trig}:
        names = arg.free_symbols
        if len(names) != 1 or not names <= set(joints) or not (arg - next(iter(names))).is_number:
            return None
        q = next(iter(names))
        if by_joint.setdefault(q, arg) != arg:
            return None
    return [by_joint[q] for q in joints if q in by_joint]


def nested_forms(exprs: Sequence[sp.Expr], joints: Sequence[sp.Symbol]) -> list[sp.Expr] | None:
    """``exprs`` rewritten (angle sums, sin^2 = 1 - cos^2, searched Horner form), equal up to
    rounding; None unless they are polynomials with numeric coefficients in the sines and cosines
    of the joint angles (``joints`` in order, each with one offset) and other symbols."""
    expanded = [sp.expand(e) for e in exprs]
    trig = set().union(*(e.atoms(sp.sin, sp.cos) for e in expanded))
    ordered = _angles(trig, joints)
    if ordered is None:
        return None
    # generators: cos and sin of every angle (sum angles added as found), then the other symbols
    gens: list[sp.Expr] = []
    for a in ordered:
        gens += [sp.cos(a), sp.sin(a)]
    places = {g: sp.Dummy(f"g{k}") for k, g in enumerate(gens)}
    plain = [e.xreplace(places) for e in expanded]
    others = sorted(set().union(*(e.free_symbols for e in plain)) - set(places.values()), key=sp.default_sort_key)
    gens += others
    if not gens:
        return None
    try:
        polys = [sp.Poly(e, *(places.get(g, g) for g in gens)) for e in plain]
    except sp.PolynomialError:
        return None
    if any(not c.is_number for p in polys for c in p.coeffs()):
        return None
    width = len(gens) + 2 * len(ordered)  # room for the cos and sin of one sum angle per joint
    dicts = [{e + (0,) * (width - len(e)): float(c) for e, c in p.terms()} for p in polys]
    pairs = [(2 * k + 1, 2 * k) for k in range(len(ordered))]
    unbounded = range(2 * len(ordered), len(gens))
    dicts = [_reduce(d, pairs, unbounded) for d in dicts]
    names = list(gens) + [sp.S.Zero] * (2 * len(ordered))
    slots = {a: (2 * k, 2 * k + 1) for k, a in enumerate(ordered)}
    angle = {ordered[0]: ordered[0]} if ordered else {}
    free = len(gens)
    for prev, a in zip(ordered, ordered[1:]):
        base, (c, s) = angle[prev], slots[a]
        cb, sb = slots[base]
        ca, sa = free, free + 1
        # a = total - base: cos a = cos total cos base + sin total sin base, sin a = sin total cos base - ...
        cos_a = {_unit(width, ca, cb): 1.0, _unit(width, sa, sb): 1.0}
        sin_a = {_unit(width, sa, cb): 1.0, _unit(width, ca, sb): -1.0}
        trial = [_reduce(_substitute(_substitute(d, c, cos_a), s, sin_a), pairs + [(sa, ca)], unbounded) for d in dicts]
        if _terms(trial) < _terms(dicts):
            total = base + a
            dicts = trial
            names[ca], names[sa] = sp.cos(total), sp.sin(total)
            slots[total] = (ca, sa)
            pairs.append((sa, ca))
            free += 2
            angle[a] = total
        else:
            angle[a] = a
    return _best_horner(dicts, names)


def _unit(width: int, i: int, j: int) -> tuple[int, ...]:
    e = [0] * width
    e[i] += 1
    e[j] += 1
    return tuple(e)


def sympy_horner(e: sp.Expr) -> sp.Expr:
    """Nested (Horner) form of ``e`` as a polynomial in its sines, cosines and symbols, by sympy: the
    route for entries :func:`nested_forms` does not take (not polynomials in sin q, cos q).

    Expanded M and G (a derivation's closed forms) nest to about three quarters of their
    operations (PUMA 560: 338 -> ~260).
    """
    if not e.free_symbols:
        return e
    funcs = sorted(e.atoms(sp.sin, sp.cos), key=sp.default_sort_key)
    placeholders = {f: sp.Dummy(f"t{k}") for k, f in enumerate(funcs)}
    try:
        nested = sp.horner(sp.expand(e.xreplace(placeholders)))
    except sp.PolynomialError:
        return e
    return nested.xreplace({v: k for k, v in placeholders.items()})


def nested_matrix(mat: sp.Matrix, joints) -> sp.Matrix:
    """``mat`` rewritten for fewer operations: angle sums and a searched Horner form
    (:func:`nested_forms`), else sympy's Horner form per entry (:func:`sympy_horner`)."""
    rows, cols = mat.shape
    symmetric = is_symmetric(mat)
    cells = [(i, j) for i in range(rows) for j in range(i if symmetric else 0, cols)]
    forms = nested_forms([mat[i, j] for i, j in cells], joints)
    if forms is None:
        return mat.applyfunc(sympy_horner)
    out = sp.zeros(rows, cols)
    for (i, j), e in zip(cells, forms):
        out[i, j] = e
        if symmetric:
            out[j, i] = e
    return out
