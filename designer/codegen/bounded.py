"""Bounded nesting for generated code: long sums and products are split into partial results.

A derivation can leave one entry as a sum of thousands of terms; printed as ``a + b + c + ...``
it parses as a left-nested chain as deep as it is long, which overflows Python's compiler
(RecursionError) and slows C compilers down. After CSE every expression is rewritten so that no
Add or Mul has more than :data:`MAX_ARGS` arguments and no expression is deeper than
:data:`MAX_DEPTH`; the parts go to new temporaries, in an order that evaluates.
"""

from __future__ import annotations

from collections.abc import Iterator

import sympy as sp

__all__ = ["MAX_ARGS", "MAX_DEPTH", "bound_nesting", "nesting"]

#: the most arguments one printed Add or Mul keeps (a chain of at most this many operators)
MAX_ARGS = 16
#: the deepest expression tree kept in one assignment (16 x 16 operators: far below any limit)
MAX_DEPTH = 12


def nesting(e: sp.Basic) -> tuple[int, int]:
    """(depth, widest Add/Mul) of an expression tree."""
    if not e.args:
        return 0, 0
    depth, width = 0, len(e.args) if isinstance(e, (sp.Add, sp.Mul)) else 0
    for a in e.args:
        d, w = nesting(a)
        depth, width = max(depth, d), max(width, w)
    return depth + 1, width


class _Splitter:
    def __init__(self, symbols: Iterator[sp.Symbol]):
        self.symbols = symbols
        self.temps: list[tuple[sp.Symbol, sp.Expr]] = []

    def hoist(self, e: sp.Expr) -> sp.Symbol:
        s = next(self.symbols)
        self.temps.append((s, e))
        return s

    def run(self, e: sp.Expr) -> tuple[sp.Expr, int]:
        """``e`` rewritten within the bounds, and its depth."""
        if not e.args or isinstance(e, (sp.Symbol, sp.Number)):
            return e, 0
        parts = [self.run(a) for a in e.args]
        args = [a if d < MAX_DEPTH else self.hoist(a) for a, d in parts]
        depths = [d if d < MAX_DEPTH else 0 for _, d in parts]
        if isinstance(e, (sp.Add, sp.Mul)) and len(args) > MAX_ARGS:
            while len(args) > MAX_ARGS:
                groups = [args[k:k + MAX_ARGS] for k in range(0, len(args), MAX_ARGS)]
                args = [self.hoist(e.func(*g, evaluate=False)) if len(g) > 1 else g[0] for g in groups]
            depths = [0]
        elif all(a is b for a, (b, _) in zip(args, parts)) and all(a is b for a, b in zip(args, e.args)):
            return e, 1 + max(depths)
        return e.func(*args, evaluate=False), 1 + max(depths)


def bound_nesting(temps: list, outputs: list, symbols: Iterator[sp.Symbol]) -> tuple[list, list]:
    """(temps, outputs) after CSE rewritten within :data:`MAX_ARGS` and :data:`MAX_DEPTH`.

    ``symbols`` yields fresh names for the partial results; the new temporaries come right
    before the assignment that uses them, so the order still evaluates.
    """
    split = _Splitter(symbols)
    new_temps: list = []
    for sym, value in temps:
        value, _ = split.run(value)
        new_temps += split.temps + [(sym, value)]
        split.temps = []
    new_outputs = []
    for value in outputs:
        value, _ = split.run(sp.sympify(value))
        new_outputs.append(value)
    return new_temps + split.temps, new_outputs
