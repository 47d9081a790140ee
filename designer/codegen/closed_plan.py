"""The code plan of a closed chain's compact form (:mod:`designer.dynamics.closed_compact`).

Each function is the named steps its outputs read (closure, loop Jacobian, W_p, passive rates and
accelerations, the tree's recursion, the projection), made temporaries, then CSE as for a serial arm.
Inputs: the actuated q, qd, qdd (q1..q_na); the passive positions are computed in the code (a linear
closure, a planar four-bar's two circles with the nominal pose's branch), except for a mechanism
without a closed-form closure: its functions then take ``qp`` after ``q``, the passive joints'
positions in the tree's order (a closed pose from a numeric solve of the loops, e.g.
``designer.kinematics.closure.Closure.solve``), and trust them (they are not checked).
A pose where a four-bar cannot close (its bars do not reach) gives NaN through the square root.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import sympy as sp

from ..dynamics.closed_compact import ClosedCompact, needed_steps
from ..dynamics.results import Equations
from ..jobs import NEVER, CancelToken, Job, Progress
from .plan import BASIC_FUNCTIONS, CodePlan, _substitute, comment_text, plan_function, temp_prefix

__all__ = ["CLOSED_COMPACT_FUNCTIONS", "closed_compact_plan_job", "closure_statement"]

#: what a closed chain's compact code has
CLOSED_COMPACT_FUNCTIONS = BASIC_FUNCTIONS


def closure_statement(cc: ClosedCompact) -> str:
    """How the code gets the passive positions (its header says it)."""
    if cc.closure == "input":
        names = ", ".join(s.name for s in cc.inputs)
        return (f"passive positions qp = ({names}) are inputs: a closed pose from a numeric solve of the loops "
                "(no closed-form closure)")
    if cc.closure == "four-bar":
        return ("passive positions from the four-bar's two circles (the nominal pose's branch; NaN where it "
                "cannot close)")
    return "passive positions from the linear closure"


def closed_compact_plan_job(eq: Equations, drives: bool = False, values: Mapping[str, float] | None = None,
                            token: CancelToken = NEVER, only: Collection[str] | None = None) -> Job[CodePlan]:
    """tau, M, G, h of ``eq`` (a closed chain's compact form) as a :class:`CodePlan`; ``values``: parameters
    written into the code as numbers (they leave ``p``)."""
    if drives:
        raise ValueError("drive terms: not for a closed chain's compact form yet")
    cc: ClosedCompact = eq.extras["closed_compact"]   # type: ignore[assignment]
    model = cc.carrier
    steps = [(a.symbol, a.value) for a in cc.steps]
    mats = dict(zip(BASIC_FUNCTIONS, (cc.tau, cc.mass_matrix, cc.gravity, cc.bias)))
    if values:
        every = set().union(*(sp.sympify(v).free_symbols for _, v in steps))
        subs = {s: sp.Float(values[s.name], 17) for s in every if s.name in values}
        steps = [(s, _substitute(sp.Matrix([v]), subs)[0]) for s, v in steps]
    defined = {s for s, _ in steps} | set(cc.inputs) | set(model.q) | set(model.qd) | set(model.qdd)
    names = {s.name for _, v in steps for s in sp.sympify(v).free_symbols if s not in defined}
    names |= {s.name for m in mats.values() if m is not None for s in m.free_symbols if s not in defined}
    ordered = sorted(names)
    index = {name: k for k, name in enumerate(ordered)}
    prefix = temp_prefix(names | {s.name for s, _ in steps})
    inputs = tuple((s, "qp", k) for k, s in enumerate(cc.inputs))
    chosen = [f for f in BASIC_FUNCTIONS if only is None or f in only]
    funcs = []
    for k, name in enumerate(chosen):
        yield Progress("common subexpressions", k / len(chosen), name)
        mat = mats[name]
        if mat is None:
            raise ValueError(f"{name}: not built")
        need = needed_steps(cc.steps, list(mat))
        if values:
            need = [(s, v) for s, v in steps if s in {t for t, _ in need}]
        funcs.append(plan_function(name, mat, model, index, prefix, steps=tuple(need), token=token, inputs=inputs))
    defaults = eq.model.parameter_values
    method = "compact closed-chain form (the tree's recursive Newton-Euler projected by W); " + closure_statement(cc)
    return CodePlan(comment_text(model.name), method, "none", model.n,
                    tuple((name, defaults.get(name)) for name in ordered), tuple(funcs), prefix)
