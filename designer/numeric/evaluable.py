"""The equations of any mechanism in a form, at numbers: what ``eval`` (and ``torques`` with a method) evaluates.

The caller asks for a model's equations in a form and never for its kind; the engine is chosen here:

- the compact form: a mechanism whose coordinates are its tree's joints (a serial arm) gets its recursive forms
  compiled (:func:`compiled_equations`, the same for every method); one whose loops leave passive joints gets its
  numeric dynamics in the actuated coordinates at the state (:class:`~designer.numeric.closed.ClosedDynamics`, the
  tree's recursions projected by W), which no method changes;
- the closed form: the method's printed matrices, derived by the caller (its budgets, its progress). Equations in
  the coordinates themselves are assembled and compiled; a closed chain's, which read the passive positions (and a
  nonlinear loop's named quantities), are evaluated as printed with the passive positions from the numeric closure
  (:class:`~designer.dynamics.closed_nonlinear_eval.LoopEvaluator`), so that the numbers check the report itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..dynamics.results import Equations, Form, Method
from ..jobs import Progress, run
from ..model.manipulator import Manipulator
from .protocol import Dynamics

__all__ = ["Evaluable", "evaluable", "compiled_equations"]

#: (the dynamics closed at the state's branch, q, qd, qdd, its tree pose) -> {"tau", "M", "G", "h"}
Evaluable = Callable[[Any, Any, Any, Any, Any], dict]


def compiled_equations(model: Manipulator, method: str, closed_form: Equations | None = None,
                       progress: Callable[[Progress], None] | None = None):
    """The model's equations compiled at its parameter values (:func:`~designer.numeric.compiled.compile_equations`):
    its recursive forms (the same for every ``method``, never expanded), or the ``closed_form`` given (the method's
    printed matrices) with tau, M, G and h assembled from them alone. MissingParameterError names a symbol
    without a value."""
    from ..dynamics.engine import compact_equations_job
    from ..dynamics.methods import METHODS
    from .compiled import compile_equations
    if closed_form is None:
        eq = run(compact_equations_job(model.numeric(), Method(method)), progress)
    else:
        tau, M, G, h = METHODS[closed_form.method].assemble(model, closed_form.matrices)
        eq = replace(closed_form, tau=tau, mass_matrix=M, gravity=G, coriolis=h)
    if progress is not None:
        progress(Progress("compile"))
    return compile_equations(eq, form=None if closed_form is None else "derived")


def evaluable(dyn: Dynamics, model: Manipulator, method: str, form: Form | str,
              closed_form: Callable[[], Equations], progress: Callable[[Progress], None] | None = None) -> Evaluable:
    """The equations of ``model`` (whose numeric dynamics is ``dyn``) in ``form`` (compact or closed) at numbers (the
    module's docstring), called as ``(at, q, qd, qdd, q_tree)`` with ``at`` the numeric dynamics closed on the
    state's branch; ``closed_form()`` derives ``method``'s closed form as printed, called only for that form. A
    ValueError (MissingParameterError, ClosureError, a DesignerError) says why they cannot be evaluated."""
    if Form(form) is Form.CLOSED:
        eq = closed_form()
        if "closed_chain" in eq.extras or "loop_quantities" in eq.extras:   # they read the passive positions
            from ..dynamics.closed_nonlinear_eval import LoopEvaluator
            src = LoopEvaluator(eq)
            return lambda at, q, qd, qdd, q_tree: {"tau": src.tau(q, qd, qdd, q_tree), "M": src.M(q, q_tree),
                                                   "G": src.G(q, q_tree), "h": src.h(q, qd, q_tree)}
        cd = compiled_equations(model, method, eq, progress)
    elif dyn.n_tree > dyn.n:   # passive joints: no equations in the coordinates to compile, the numeric dynamics
        if Method(method) is not Method.LAGRANGE:
            raise ValueError("a closed-chain project evaluates its numeric projected dynamics "
                             "(no --method without --form closed)")
        return lambda at, q, qd, qdd, q_tree: {"tau": at.tau(q, qd, qdd), "M": at.M(q), "G": at.G(q), "h": at.h(q, qd)}
    else:
        cd = compiled_equations(model, method, None, progress)
    return lambda at, q, qd, qdd, q_tree: {"tau": cd.tau(q, qd, qdd), "M": cd.M(q), "G": cd.G(q), "h": cd.h(q, qd)}
