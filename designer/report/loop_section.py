"""The section "Loop quantities" of a nonlinear closed chain's closed form (dynamics/closed_nonlinear.py):
each named quantity with its definition, in evaluation order, above the matrices that read them."""

from __future__ import annotations

from typing import Any

from ..dynamics.results import Equations

__all__ = ["LOOP", "LOOP_INTRO", "KIND_TEXT", "loop_items", "loop_symbol_names", "loop_entries"]

LOOP_INTRO = ("The loops do not close linearly: the matrices below read these loop quantities, each defined "
              "from the actuated joint variables and the quantities above it. W = [I; W_p] = d q_tree / d q_a "
              "(rows in the tree's order), W_p = -J_p^-1 J_a from the loop Jacobian's independent rows; "
              "dW_i_j_k = d W_i_j / d q_k by implicit differentiation of J_p W_p = -J_a "
              "(J_p dW = -(dJ_p W_p + dJ_a), the total derivatives along the closure).")

KIND_TEXT = {"closure": "closure step", "qp": "passive position", "det": "det J_p",
             "W": "d qp / d q_a", "dW": "second derivative of qp", "qdp": "passive rate",
             "qddp": "passive acceleration"}


def loop_items(eq: Equations) -> list[tuple[Any, Any, str]]:
    """(symbol, value or None (from the closure, numerically), kind text) of each loop quantity; [] for
    equations without loop quantities."""
    loops: Any = eq.extras.get("loop_quantities")
    if loops is None:
        return []
    return [(it.symbol, it.value, KIND_TEXT.get(it.kind, it.kind)) for it in loops.items]


#: the matrix name of the loop quantities' entries (:func:`loop_entries`)
LOOP = "loop"


def loop_entries(eq: Equations) -> list:
    """The loop quantities as :class:`~designer.report.entries.Entry` in evaluation order, to stand before the
    matrices that read them (the Equations view, the PDF design report); a quantity the closure gives only
    numerically reads ``closure(q1, ...)``. [] for equations without loop quantities."""
    import sympy as sp
    from .entries import Entry
    closure = sp.Function("closure")(*eq.model.q)
    return [Entry(LOOP, (k,), s.name, sp.latex(s), closure if value is None else value)
            for k, (s, value, _kind) in enumerate(loop_items(eq), start=1)]


def loop_symbol_names(eq: Equations) -> set[str]:
    return {s.name for s, _, _ in loop_items(eq)}
