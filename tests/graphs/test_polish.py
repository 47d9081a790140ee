"""The passes after CSE (graph_cse.polish): fewer operations, the same values."""

from __future__ import annotations

import random

import sympy as sp

from designer.graphs.cse import _ops, polish, reuse_temporaries
from designer.graphs.peephole import cancel_sums, flip_signs, reuse_products, tidy_signs

a, b, c, d, e, f, q = sp.symbols("a b c d e f q", real=True)
x0, x1, x2, x3, x4 = sp.symbols("x0:5", real=True)


def _values(temps: list, outputs: list) -> list:
    """The outputs with every temporary substituted back (temporaries in evaluation order)."""
    env: dict = {}
    for s, v in temps:
        env[s] = v.xreplace(env)
    return [sp.expand(sp.sympify(o).xreplace(env)) for o in outputs]


def _check(temps: list, outputs: list, new: tuple[list, list]) -> int:
    got = _values(*new)
    want = _values(temps, outputs)
    rng = random.Random(3)
    point = {s: rng.uniform(-2, 2) for s in (a, b, c, d, e, f, q)}
    for g, w in zip(got, want):
        assert abs(float(g.subs(point)) - float(w.subs(point))) < 1e-12
    return _ops(*new) - _ops(temps, outputs)


def test_flip_signs_moves_an_all_negative_sum_into_its_readers():
    # x0 = -a b - c d costs a negation; both readers can take the sign instead
    temps = [(x0, -a * b - c * d), (x1, e * x0), (x2, f - x0)]
    outputs = [x1 + q, x2 * q]
    assert _check(temps, outputs, flip_signs(temps, outputs)) < 0


def test_flip_signs_keeps_what_a_flip_would_not_lower():
    temps = [(x0, a * b - c), (x1, e + x0)]
    outputs = [x1 * q, x0 * f]
    assert flip_signs(temps, outputs) == (temps, outputs)


def test_reuse_temporaries_reads_a_product_another_expression_spells_out():
    # x1 holds q*x0 and x2 still computes it
    temps = [(x0, sp.sin(a)), (x1, q * x0), (x2, b - q * x0)]
    outputs = [x1 * e + x2, x2 * f]
    new = reuse_temporaries(temps, outputs, sp.numbered_symbols("r", real=True))
    assert _check(temps, outputs, new) < 0


def test_polish_never_raises_the_count():
    rng = random.Random(7)
    for _ in range(20):
        pool = [a, b, c, d, e, f, q]   # each temporary reads only inputs and earlier temporaries
        temps: list = []
        for s in (x0, x1, x2, x3, x4):
            u, v, w = rng.sample(pool, 3)
            temps.append((s, rng.choice([-1, 1]) * u * v + rng.choice([-1, 1]) * w))
            pool.append(s)
        outputs = [x4 * x3 - x2, x1 + x0 * q]
        assert _check(temps, outputs, polish(temps, outputs, sp.numbered_symbols("r", real=True))) <= 0


def test_cancel_sums_finds_terms_that_cancel_across_a_temporary():
    # x1 = x0 + q with x0 = a*b - q: x1 is a*b, which x2 then reads from x1 rather than spelling out
    from designer.graphs.cse import _cancelled
    temps = [(x0, a * b - q), (x1, x0 + q), (x2, x0 * c)]
    outputs = [x1 * d + x2, x1 * e]
    new = cancel_sums(temps, outputs)
    assert dict(new[0])[x1] == a * b
    assert _check(temps, outputs, _cancelled(temps, outputs, sp.numbered_symbols("r", real=True))) <= 0
    # a sum that only combines terms (2 q) is left alone: nothing cancels
    assert cancel_sums([(x0, a * b + q), (x1, x0 + q)], [x1])[0][1] == (x1, x0 + q)


def test_reuse_products_reads_a_held_product_among_more_factors():
    temps = [(x0, a * b), (x1, c - a * b * q), (x2, -a * b)]
    outputs = [x1 * x0 + x2]
    new = reuse_products(temps, outputs)
    assert dict(new[0])[x1] == c - q * x0 and dict(new[0])[x2] == -x0
    assert _check(temps, outputs, new) < 0


def test_tidy_signs_takes_the_sign_out_of_a_negative_sum():
    e = -a * (-b - c)
    assert sp.count_ops(tidy_signs(e)) < sp.count_ops(e)
    assert sp.expand(tidy_signs(e) - e) == 0


def test_flip_signs_carries_a_negation_along_a_chain_until_a_sum_takes_it():
    # x0 = -sin(a): negated alone, x1 = -b*x0 - c gains a negation; x1 negated too, x2 = -x1*d
    # does; only with x2 negated as well does a sum (x3, the second output) take the sign
    temps = [(x0, -sp.sin(a)), (x1, b * x0 - c), (x2, x1 * d), (x3, e - x2)]
    outputs = [x3 * q, x2 + f]
    flipped = flip_signs(temps, outputs)
    assert _check(temps, outputs, flipped) == -1
    assert dict(flipped[0])[x0] == sp.sin(a)
