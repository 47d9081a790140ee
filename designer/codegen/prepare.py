"""Parameter-only work taken out of the per-call code: computed once, when the parameters are bound.

The recursive tau reads the inertial parameters through grouped terms that depend on the parameters
alone: Khalil's standard parameters in joint frames (first moments m c, inertia about the joint-frame
origin, moved through the DH offsets), differences such as ZZ - YY, products of lengths and masses,
cosines of symbolic twists. :func:`hoist` names every such piece (each largest parameter-only part
of a product or a sum) and returns the assignments that compute them, so that the generated code
evaluates them in a ``prepare`` step (a function of ``p`` alone) and the per-call code reads them as
numbers. With numeric parameters they are numbers already (sympy folds them), and nothing is left
to prepare.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import sympy as sp
from sympy.core.parameters import distribute

__all__ = ["hoist"]


def hoist(exprs: list, constant: Callable[[sp.Symbol], bool], symbols: Iterator[sp.Symbol]
          ) -> tuple[list, list]:
    """(prepared, reduced): ``exprs`` with each largest parameter-only piece replaced by a symbol of
    ``symbols``, and the ``(symbol, value)`` assignments of those symbols (values over the symbols
    ``constant`` accepts; equal pieces share one symbol). A piece is a whole parameter-only
    expression that is not an atom, the parameter-only factors of a product (numbers but -1 joining
    them when there is at least one symbol), or the parameter-only terms of a sum."""
    named: dict = {}
    prepared: list = []
    memo: dict = {}

    def name(e):
        if not e.args or (isinstance(e, sp.Mul) and len(e.args) == 2 and e.args[0] == -1 and not e.args[1].args):
            return e
        sym = named.get(e)
        if sym is None:
            sym = named[e] = next(symbols)
            named_set.add(sym)
            prepared.append((sym, e))
        return sym

    def fixed(e) -> bool:
        return all(s in named_set or constant(s) for s in e.free_symbols)
    named_set: set = set()

    def walk(e):
        if not e.args:
            return e
        got = memo.get(e)
        if got is not None:
            return got
        if fixed(e):
            if isinstance(e, sp.Mul) and e.args[0] == -1:   # -piece: keep the sign outside (a subtraction)
                out = -name(sp.Mul(*e.args[1:]))
            else:
                out = name(e)
        else:
            args = [walk(a) for a in e.args]
            if isinstance(e, (sp.Mul, sp.Add)):
                keep = [a for a in args if not (a.is_Number if isinstance(e, sp.Mul) else False) and not fixed(a)]
                if isinstance(e, sp.Mul):
                    numbers = [a for a in args if a.is_Number]
                    sign = [sp.S.NegativeOne] if any(a == -1 for a in numbers) else []
                    numbers = [a for a in numbers if a != -1]
                    consts = [a for a in args if not a.is_Number and fixed(a)]
                    if consts:
                        consts = [name(sp.Mul(*numbers, *consts))] if len(consts) + len(numbers) > 1 else consts
                        numbers = []
                    out = sp.Mul(*sign, *numbers, *consts, *keep)
                else:
                    consts = [a for a in args if fixed(a)]
                    if len(consts) > 1:
                        consts = [name(sp.Add(*consts))]
                    out = sp.Add(*consts, *keep)
            else:
                out = e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e
        memo[e] = out
        return out
    with distribute(False):
        reduced = [walk(sp.sympify(e)) for e in exprs]
    return prepared, reduced
