"""Breaking long expressions into lines, independently of the output format.

An expression becomes a sequence of tokens: signed terms of a sum, and the
opening and closing of a parenthesised sum with its coefficient
(``a*(b + c + ...)`` when that sum is itself too long). The tokens are
packed greedily into lines whose width is measured on the plain text form,
a fair proxy for the printed width in every format. Each format then prints
the tokens of each line with its own printer.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

import sympy as sp

from .printing import to_text

__all__ = ["Term", "Open", "Close", "Token", "break_lines", "render_lines", "DEFAULT_WIDTH"]

DEFAULT_WIDTH = 64


@dataclass(frozen=True)
class Term:
    """A term ``expr`` printed with a minus sign when ``negative``, a plus sign unless ``lead``."""

    expr: sp.Expr
    negative: bool = False
    lead: bool = True


@dataclass(frozen=True)
class Open:
    """``coeff * (`` (coeff None for a bare parenthesis), signed like a term."""

    coeff: sp.Expr | None
    negative: bool = False
    lead: bool = True


@dataclass(frozen=True)
class Close:
    """``)``"""


Token = Term | Open | Close


class _Measure:
    """Length of an expression's plain text, estimated from its tree (printing it is far slower)."""

    def __init__(self):
        self.cache: dict[sp.Basic, int] = {}

    def __call__(self, expr) -> int:
        size = self.cache.get(expr)
        if size is None:
            size = self.cache[expr] = self._size(expr)
        return size

    def _size(self, e) -> int:
        if e.is_Symbol:
            return len(e.name)
        if e.is_Number:
            return len(to_text(e))
        args = e.args
        if e.is_Add:
            return sum(self(a) for a in args) + 3 * (len(args) - 1)
        if e.is_Mul:
            return sum(self(a) + (2 if a.is_Add else 0) for a in args) + len(args) - 1
        if e.is_Pow:
            base, exp = args
            return self(base) + self(exp) + 2 + (2 if not (base.is_Symbol or base.is_Function) else 0)
        if not args:
            return len(to_text(e))
        return len(type(e).__name__) + 2 + sum(self(a) for a in args) + 2 * (len(args) - 1)


def _split_product(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(coefficient, longest sum factor) of a product with a sum factor, else None."""
    if not expr.is_Mul:
        return None
    sums = [f for f in expr.args if f.is_Add]
    if not sums:
        return None
    longest = max(sums, key=lambda f: len(f.args))
    rest = [f for f in expr.args if f is not longest]
    return sp.Mul(*rest, evaluate=False) if rest else sp.S.One, longest


def _signed(term: sp.Expr) -> tuple[sp.Expr, bool]:
    if term.could_extract_minus_sign():
        return -term, True
    return term, False


def _tokens(expr: sp.Expr, width: int, measure: _Measure, negative: bool, lead: bool) -> list[Token]:
    if measure(expr) <= width:
        return [Term(expr, negative, lead)]
    if expr.is_Add:
        out: list[Token] = []
        if negative or not lead:
            out.append(Open(None, negative, lead))
        for k, term in enumerate(expr.as_ordered_terms()):
            body, neg = _signed(term)
            out += _tokens(body, width, measure, neg, k == 0)
        if negative or not lead:
            out.append(Close())
        return out
    split = _split_product(expr)
    if split is None:
        return [Term(expr, negative, lead)]  # a long function argument or quotient: kept whole
    coeff, total = split
    coeff, neg_c = _signed(coeff)
    out = [Open(None if coeff == 1 else coeff, negative != neg_c, lead)]
    for k, term in enumerate(total.as_ordered_terms()):
        body, neg = _signed(term)
        out += _tokens(body, width, measure, neg, k == 0)
    out.append(Close())
    return out


def break_lines(expr, width: int = DEFAULT_WIDTH) -> list[list[Token]]:
    """Tokens of ``expr`` packed into lines of about ``width`` characters of plain text."""
    expr = sp.sympify(expr)
    measure = _Measure()
    body, negative = _signed(expr) if measure(expr) > width and not expr.is_Add else (expr, False)
    tokens = _tokens(body, width, measure, negative, True)
    lines: list[list[Token]] = [[]]
    used = 0
    for tok in tokens:
        size = 1 if isinstance(tok, Close) else 3 + (measure(tok.expr) if isinstance(tok, Term)
                                                     else (measure(tok.coeff) if tok.coeff is not None else 0))
        # a closing parenthesis never starts a line
        if lines[-1] and used + size > width and not isinstance(tok, Close):
            lines.append([])
            used = 0
        lines[-1].append(tok)
        used += size
    return lines


def render_lines(lines: list[list[Token]], term: Callable[[sp.Expr], str], *, plus: str = " + ",
                 minus: str = " - ", lead_minus: str = "-", open_: str = "(", close: str = ")",
                 times: str = " ") -> list[str]:
    """Print token lines with a format's printer ``term`` and its punctuation.

    A token that begins a continuation line and is not the lead of its group
    keeps its sign (the line reads ``+ b + c``).
    """
    out = []
    for line in lines:
        parts = []
        for tok in line:
            if isinstance(tok, Close):
                parts.append(close)
                continue
            if tok.negative:
                parts.append(minus if (parts or not tok.lead) else lead_minus)
            elif not tok.lead:
                parts.append(plus)
            if isinstance(tok, Term):
                parts.append(term(tok.expr))
            else:
                coeff = "" if tok.coeff is None else term(tok.coeff)
                if tok.coeff is not None and tok.coeff.is_Add:
                    coeff = open_ + coeff + close
                parts.append((coeff + times if coeff else "") + open_)
        out.append("".join(parts))
    return out
