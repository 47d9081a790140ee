"""How large a closed form will be, before expanding it, and the budget that stops one that is not
worth waiting for.

:func:`expanded_terms` bounds the terms of each expanded tau_i from the shared recursive graph,
in milliseconds, by the smaller of two upper bounds:

- multiplying out: a sum has as many terms as its parts together, a product as many as theirs
  multiplied, the sine or cosine of a sum of angles becomes two products. Tight when every
  inertial parameter is a symbol (no two terms can merge);
- distinct monomials: like terms merge once their coefficients are numbers, so an entry has at
  most as many terms as there are monomials it can hold: in each joint's cos/sin of degree t
  (s_i**2 reduced away) 2t + 1, in the joint rates of total degree D over k of them C(k + D, D),
  and so on. Tight when the parameters are numbers: a generic 4-joint arm with numeric twists
  and inertias bounds at 3e4 instead of 5e6 (it has 280 terms).

Both err on the side of not expanding. Time does not follow the term count closely (a KR5's 2,236
terms take longer than a generic 5-joint arm's 1,445), so :class:`Deadline` gives the expansion a
time budget as well: ``derive --form auto`` stops after :data:`~designer.dynamics.engine.AUTO_SECONDS`
and gives the recursive form instead (:class:`ClosedFormTooSlow` says so).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable

import sympy as sp

from ..errors import DesignerError
from ..jobs import NEVER, CancelToken, Cancelled

__all__ = ["expanded_terms", "ExpansionTooLarge", "ClosedFormTooSlow", "Deadline"]


class ExpansionTooLarge(DesignerError):
    """A closed form would be too large to derive and read; the recursive form is the answer.

    ``entry`` names it (tau_3), ``terms`` is the estimated number of terms.
    """

    def __init__(self, entry: str, terms: int, limit: int):
        self.entry, self.terms, self.limit = entry, terms, limit
        super().__init__(f"the expanded {entry} has about {terms:.2g} terms (limit {limit:,}); "
                         "show the recursive form instead?")


class ClosedFormTooSlow(DesignerError):
    """The closed form did not finish within its time budget (``seconds``); ``stage`` is the step it
    had reached (the progress detail, e.g. ``M[3,4]``)."""

    def __init__(self, seconds: float, stage: str):
        self.seconds, self.stage = seconds, stage
        super().__init__(f"the closed form did not finish within {seconds:g} s (stopped at {stage or 'the start'}); "
                         "show the recursive form instead?")


class Deadline(CancelToken):
    """A token that trips when ``parent`` is cancelled or ``seconds`` have passed since it was made.

    Everything that honours a token (``check()`` in the derivation loops, the watcher of
    :func:`~designer.jobs.interrupt.interruptible` inside one long sympy call) stops at the deadline
    as at a cancel; :attr:`expired` tells the two apart afterwards."""

    def __init__(self, parent: CancelToken = NEVER, seconds: float | None = None):
        super().__init__()
        self.parent, self.seconds = parent, seconds
        self._end = None if seconds is None else time.monotonic() + seconds

    @property
    def expired(self) -> bool:
        return self._end is not None and time.monotonic() >= self._end

    @property
    def cancelled(self) -> bool:
        return self.parent.cancelled or self.expired

    def cancel(self) -> None:
        self.parent.cancel()

    def check(self) -> None:
        self.parent.check()
        if self.expired:
            raise Cancelled("time limit")


def expanded_terms(exprs: list, q: Iterable = (), qd: Iterable = (), qdd: Iterable = ()) -> list[int]:
    """An upper bound of the number of terms of each expression once multiplied out and reduced
    (``q``, ``qd``, ``qdd``: the model's joint symbols; without them only the first bound is used)."""
    exprs = [sp.sympify(e) for e in exprs]
    products = _product_bound(exprs)
    if not (q or qd or qdd):
        return products
    monomials = _MonomialBound(q, qd, qdd).bounds(exprs)
    return [min(a, b) for a, b in zip(products, monomials)]


def _walk(roots: list, value, memo: dict) -> list:
    """``value(node)`` of every node, children first (iterative: the graphs are deeper than the
    recursion limit), each distinct node once."""
    for root in roots:
        stack = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if node in memo:
                continue
            if not ready and node.args:
                stack.append((node, True))
                stack.extend((a, False) for a in node.args if a not in memo)
                continue
            memo[node] = value(node)
    return [memo[r] for r in roots]


def _product_bound(exprs: list) -> list[int]:
    memo: dict = {}

    def value(node) -> int:
        if isinstance(node, sp.Add):
            return sum(memo[a] for a in node.args)
        if isinstance(node, sp.Mul):
            out = 1
            for a in node.args:
                out *= memo[a]
            return out
        if isinstance(node, sp.Pow) and node.exp.is_Integer and node.exp > 0:
            return memo[node.base] ** int(node.exp)
        if isinstance(node, (sp.sin, sp.cos)):
            return 2 ** max(0, len(sp.Add.make_args(node.args[0])) - 1)
        return 1
    return _walk(exprs, value, memo)


class _MonomialBound:
    """Degree profiles of the graph's nodes; a profile bounds the distinct monomials of its node.

    A profile maps ("trig", joint) and ("poly", joint) to a degree, and the groups "qd", "qdd" and
    "par" (the parameters and any opaque function of them) to (their symbols, total degree)."""

    def __init__(self, q: Iterable, qd: Iterable, qdd: Iterable):
        self.q, self.qd, self.qdd = set(q), set(qd), set(qdd)

    def atom(self, node) -> dict:
        if node.is_Number:
            return {}
        if isinstance(node, (sp.sin, sp.cos)):
            joints = node.args[0].free_symbols & self.q
            if joints:   # cos(q_i + theta_i) is one generator of the derivation's ring
                return {("trig", j): 1 for j in joints}
        if isinstance(node, sp.Symbol):
            if node in self.q:
                return {("poly", node): 1}
            for group, members in (("qd", self.qd), ("qdd", self.qdd)):
                if node in members:
                    return {group: (frozenset([node]), 1)}
        return {"par": (frozenset([node]), 1)}   # a parameter, or an opaque function of them

    @staticmethod
    def combine(profiles: list[dict], product: bool) -> dict:
        out: dict = {}
        for p in profiles:
            for key, v in p.items():
                if key not in out:
                    out[key] = v
                elif isinstance(v, tuple):
                    members, degree = out[key]
                    out[key] = (members | v[0], degree + v[1] if product else max(degree, v[1]))
                else:
                    out[key] = out[key] + v if product else max(out[key], v)
        return out

    @staticmethod
    def power(p: dict, k: int) -> dict:
        return {key: (v[0], v[1] * k) if isinstance(v, tuple) else v * k for key, v in p.items()}

    @staticmethod
    def count(p: dict) -> int:
        out = 1
        for key, v in p.items():
            if isinstance(v, tuple):
                out *= math.comb(len(v[0]) + v[1], v[1])   # monomials of degree <= D in k symbols
            elif key[0] == "trig":
                out *= 2 * v + 1    # c^a and c^a s of degree <= t: s^2 = 1 - c^2 is reduced away
            else:
                out *= v + 1
        return out

    def bounds(self, exprs: list) -> list[int]:
        memo: dict = {}

        def value(node) -> dict:
            if isinstance(node, (sp.Add, sp.Mul)):
                return self.combine([memo[a] for a in node.args], isinstance(node, sp.Mul))
            if isinstance(node, sp.Pow) and node.exp.is_Integer and node.exp > 0:
                return self.power(memo[node.base], int(node.exp))
            return self.atom(node)
        return [self.count(p) for p in _walk(exprs, value, memo)]
