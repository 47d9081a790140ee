"""The equations of any mechanism in a form, at numbers: what ``eval`` (and ``torques`` with a method) evaluates.

The caller asks for a model's equations in a form and never for its kind; the engine is chosen here:

- the compact form: numbers only, so :func:`evaluable` gives any mechanism's numeric dynamics at the state (a serial
  arm's recursive Newton-Euler and composite rigid bodies; a closed chain's in the actuated coordinates,
  :class:`~designer.numeric.closed.ClosedDynamics`, the tree's recursions projected by W), which no method changes
  (a 30-link arm's symbolic recursive forms took some 28 s to compile for the same numbers). :func:`torques` with
  a method, which asks for the derivation itself, still compiles a serial arm's recursive forms
  (:func:`compiled_equations`, the same for every method);
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

__all__ = ["Evaluable", "evaluable", "torques", "elastic_accelerations", "compiled_equations"]

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


def _engine(dyn: Dynamics, model: Manipulator, method: str, form: Form | str, closed_form: Callable[[], Equations],
            progress: Callable[[Progress], None] | None):
    """What evaluates ``method``'s equations in ``form`` (the module's docstring): a LoopEvaluator (a closed chain's
    printed closed form), compiled equations, or None for the numeric dynamics itself."""
    if Form(form) is Form.CLOSED:
        eq = closed_form()
        if "closed_chain" in eq.extras or "loop_quantities" in eq.extras:   # they read the passive positions
            from ..dynamics.closed_nonlinear_eval import LoopEvaluator
            return LoopEvaluator(eq)
        return compiled_equations(model, method, eq, progress)
    if not model.is_serial:   # a tree or loops: no recursive form to compile (dynamics/tree.py), the numeric dynamics,
        return None           # the same for every method, as a serial arm's compact form is
    return compiled_equations(model, method, None, progress)


def evaluable(dyn: Dynamics, model: Manipulator, method: str, form: Form | str,
              closed_form: Callable[[], Equations], progress: Callable[[Progress], None] | None = None) -> Evaluable:
    """The equations of ``model`` (whose numeric dynamics is ``dyn``) in ``form`` (compact or closed) at numbers (the
    module's docstring), called as ``(at, q, qd, qdd, q_tree)`` with ``at`` the numeric dynamics closed on the
    state's branch; ``closed_form()`` derives ``method``'s closed form as printed, called only for that form. A
    ValueError (MissingParameterError, ClosureError, a DesignerError) says why they cannot be evaluated."""
    # the compact form: the numeric dynamics (any mechanism's, the same for every method)
    src = None if Form(form) is Form.COMPACT else _engine(dyn, model, method, form, closed_form, progress)
    if src is None:
        return lambda at, q, qd, qdd, q_tree: {"tau": at.tau(q, qd, qdd), "M": at.M(q), "G": at.G(q), "h": at.h(q, qd)}
    if not hasattr(src, "tau_many"):   # a LoopEvaluator: the passive positions from the numeric closure
        return lambda at, q, qd, qdd, q_tree: {"tau": src.tau(q, qd, qdd, q_tree), "M": src.M(q, q_tree),
                                               "G": src.G(q, q_tree), "h": src.h(q, qd, q_tree)}
    return lambda at, q, qd, qdd, q_tree: {"tau": src.tau(q, qd, qdd), "M": src.M(q), "G": src.G(q),
                                           "h": src.h(q, qd)}


def torques(dyn: Dynamics, model: Manipulator, method: str, form: Form | str,
            closed_form: Callable[[], Equations], progress: Callable[[Progress], None] | None = None):
    """tau along a trajectory of any mechanism: ``(at, Q, QD, QDD) -> (rows, n)`` with ``at`` the numeric dynamics
    following the rows' branch; ``method`` "rnea" is the numeric dynamics itself, a derivation its equations in
    ``form`` as :func:`evaluable` chooses them (compiled equations every row at once)."""
    import numpy as np
    src = None if method == "rnea" else _engine(dyn, model, method, form, closed_form, progress)
    if src is None:
        return lambda at, Q, QD, QDD: at.tau(Q, QD, QDD)
    if not hasattr(src, "tau_many"):   # a LoopEvaluator: row by row, the passive positions from the closure
        return lambda at, Q, QD, QDD: np.array([src.tau(q, qd, qdd, at.positions(q)) for q, qd, qdd in zip(Q, QD, QDD)])
    return lambda at, Q, QD, QDD: src.tau_many(Q, QD, QDD)


def elastic_accelerations(dyn):
    """(q'', theta'', tau_s) of the elastic-joint model ``dyn`` (an :class:`~designer.numeric.elastic.ElasticDynamics`)
    at one state, called as ``(q, theta, qd, thetad, tau_m)``: numbers only, so over the numeric dynamics of the
    link side (a serial arm's recursions at the parameter values, a closed chain's in its actuated coordinates; the
    same for every method), the rigid joints' reflected rotors added. A ValueError
    (ElasticModelError, a singular mass matrix) says why not."""
    import numpy as np
    from .elastic import ElasticArm
    link, joints = dyn.link, dyn.joints
    arm = ElasticArm(None, joints, link)   # the drive data checked: every elastic joint's rotor inertia

    def numeric(q, theta, qd, thetad, tau_m):
        try:
            qdd, thetadd = arm.accelerations(np.concatenate([q, theta, qd, thetad]), tau_m)
        except np.linalg.LinAlgError:
            raise ValueError("the mass matrix is singular there") from None
        return qdd, thetadd, arm.spring(q, theta, qd, thetad)
    return numeric
