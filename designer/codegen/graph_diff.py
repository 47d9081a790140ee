"""Derivatives of expression graphs that share their parts, in time linear in the graph.

The recursive forms (:mod:`designer.dynamics.tree`) are directed acyclic graphs: one sympy
object for a link's rotation, used by every later link. ``expr.diff(q)`` walks them as trees
and rebuilds every path, so the Coriolis matrix of a generic 7-joint arm took minutes.
:func:`graph_diff` is forward-mode differentiation over the graph: each distinct node is visited
once, and its derivative is built from its arguments' derivatives (themselves shared nodes), so
the derivative graph stays linear in size and :func:`designer.graphs.cse.graph_cse`
recovers its sharing.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.parameters import distribute

from ..jobs import NEVER, CancelToken

__all__ = ["graph_diff"]

_ZERO = sp.S.Zero


def _post_order(exprs: list) -> list:
    """Distinct nodes of ``exprs``, children before parents (iterative: the graphs are deep)."""
    seen: set = set()
    order: list = []
    stack = [(e, False) for e in reversed(exprs)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        if node.args:
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args))
    return order


def _sum(terms: list) -> sp.Expr:
    return terms[0] if len(terms) == 1 else sp.Add(*terms)


def _product(factors: list) -> sp.Expr:
    if any(f is _ZERO for f in factors):
        return _ZERO
    factors = [f for f in factors if f is not sp.S.One]
    if not factors:
        return sp.S.One
    return factors[0] if len(factors) == 1 else sp.Mul(*factors)


def _derivative(node: sp.Basic, darg: list) -> sp.Expr:
    """d node from its arguments' derivatives ``darg`` (zeros where an argument is constant)."""
    args = node.args
    if isinstance(node, sp.Add):
        return _sum([d for d in darg if d is not _ZERO])
    if isinstance(node, sp.Mul):
        return _sum([_product([*args[:i], d, *args[i + 1:]]) for i, d in enumerate(darg) if d is not _ZERO])
    if isinstance(node, sp.Pow) and darg[1] is _ZERO:
        base, exp = args
        return _product([exp, base ** (exp - 1), darg[0]])
    # any other function: its partial derivatives on stand-ins for the (large) arguments, which the
    # substitution then puts back as the shared nodes themselves
    dummies = [sp.Dummy(real=True) for _ in args]
    plain = node.func(*dummies)
    back = dict(zip(dummies, args))
    return _sum([_product([plain.diff(x).xreplace(back), d]) for x, d in zip(dummies, darg) if d is not _ZERO])


def graph_diff(exprs: list, variables: list, token: CancelToken = NEVER) -> list[list[sp.Expr]]:
    """``[[d e / d v for e in exprs] for v in variables]``, each derivative a graph that shares
    its nodes with ``exprs`` and with the other derivatives."""
    exprs = [sp.sympify(e) for e in exprs]
    order = _post_order(exprs)
    out = []
    with distribute(False):  # a number times a large sum stays one product: no copy of the sum
        for v in variables:
            out.append(_one(exprs, order, v, token))
    return out


def _one(exprs: list, order: list, v: sp.Symbol, token: CancelToken) -> list[sp.Expr]:
    """The derivatives of ``exprs`` along ``v``, visiting ``order`` (children first) once."""
    d: dict = {}
    for k, node in enumerate(order):
        if k % 2048 == 0:
            token.check()
        darg = [d[a] if a.args else (sp.S.One if a == v else _ZERO) for a in node.args]
        d[node] = _ZERO if all(x is _ZERO for x in darg) else _derivative(node, darg)
    return [d.get(e, _ZERO) if e.args else (sp.S.One if e == v else _ZERO) for e in exprs]
