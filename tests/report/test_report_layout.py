"""Line breaking of long entries: nothing lost, lines within the width."""

from __future__ import annotations

import sympy as sp

from designer.model import symbol
from designer.report.layout import Close, Open, Term, break_lines, render_lines
from designer.report.printing import to_text

from tests.support.report_equations import awkward_three_link, robmat_double_pendulum


def _rejoin(expr, width):
    lines = break_lines(expr, width)
    text = render_lines(lines, to_text, times="*")
    local = {s.name: s for s in expr.free_symbols}
    return lines, text, sp.sympify(" ".join(text), locals=local)


def _exprs():
    eq = awkward_three_link()
    q1, q2 = eq.model.q[:2]
    a, b = symbol("a"), symbol("b")
    long_sum = sum(symbol(f"c{k}") * sp.cos(q1 + k * q2) for k in range(1, 15))
    return [eq.tau[0], eq.mass_matrix[0, 0], eq.mass_matrix[2, 2], robmat_double_pendulum().tau[0],
            -a * long_sum, (a + b) * long_sum, a * b / 7 * (long_sum + a * long_sum)]


def test_lines_rejoin_to_the_same_expression():
    for expr in _exprs():
        for width in (20, 40, 64):
            _, _, back = _rejoin(expr, width)
            diff = sp.expand(back - expr)
            # floats read back from their shortest text may differ in the last bit
            assert all(abs(c) < 1e-12 for c in diff.as_coefficients_dict().values()), (expr, width)


def test_lines_respect_the_width_unless_one_term_is_longer():
    for expr in _exprs():
        lines, text, _ = _rejoin(expr, 40)
        assert len(lines) > 1
        for toks, line in zip(lines, text):
            terms = [t for t in toks if not isinstance(t, Close)]
            if len(terms) > 1:  # widths are estimated from the expression tree, hence a margin
                assert len(line) <= 40 * 1.2, line


def test_short_expression_is_one_term_and_long_product_is_opened():
    x = symbol("x")
    assert break_lines(x + 1, 40) == [[Term(x + 1)]]
    eq = robmat_double_pendulum()
    long = sp.expand(eq.tau[1]) * symbol("k")  # k*(sum of 5 terms), longer than 30 characters
    toks = [t for line in break_lines(long, 30) for t in line]
    assert isinstance(toks[0], Open) and toks[0].coeff == symbol("k") and isinstance(toks[-1], Close)
