"""A size estimate of a closed form before expanding it, from the shared recursive graph.

Expanding the recursive Newton-Euler graph of tau_i multiplies its sums out: a sum has as many
terms as its parts together, a product as many as theirs multiplied, and the sine or cosine of
a sum of angles becomes two products. Counted once per distinct node, this bound costs
milliseconds and tells a 6-link textbook arm (thousands of terms) from a generic 7-link arm
(millions), before minutes are spent finding out. Like terms that cancel or merge make the true
count smaller, so the bound errs on the side of not expanding.
"""

from __future__ import annotations

import sympy as sp

from ..errors import DesignerError

__all__ = ["expanded_terms", "ExpansionTooLarge"]


class ExpansionTooLarge(DesignerError):
    """A closed form would be too large to derive and read; the recursive form is the answer.

    ``entry`` names it (tau_3), ``terms`` is the estimated number of terms.
    """

    def __init__(self, entry: str, terms: int, limit: int):
        self.entry, self.terms, self.limit = entry, terms, limit
        super().__init__(f"the expanded {entry} has about {terms:.2g} terms (limit {limit:,}); "
                         "show the recursive form instead?")


def expanded_terms(exprs: list) -> list[int]:
    """An upper bound of the number of terms of each expression once multiplied out."""
    memo: dict = {}

    def count(root) -> int:
        stack = [(root, False)]
        while stack:  # iterative: the graphs are deeper than the recursion limit
            node, ready = stack.pop()
            if node in memo:
                continue
            if not ready and node.args:
                stack.append((node, True))
                stack.extend((a, False) for a in node.args if a not in memo)
                continue
            if isinstance(node, sp.Add):
                value = sum(memo[a] for a in node.args)
            elif isinstance(node, sp.Mul):
                value = 1
                for a in node.args:
                    value *= memo[a]
            elif isinstance(node, sp.Pow) and node.exp.is_Integer and node.exp > 0:
                value = memo[node.base] ** int(node.exp)
            elif isinstance(node, (sp.sin, sp.cos)):
                value = 2 ** max(0, len(sp.Add.make_args(node.args[0])) - 1)
            else:
                value = 1
            memo[node] = value
        return memo[root]
    return [count(sp.sympify(e)) for e in exprs]
