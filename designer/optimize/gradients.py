"""Exact derivatives of the optimizer's quantities with respect to its continuous variables, where the model
allows, for SLSQP's objective and constraint gradients (docs/optimize.md):

* ``mass``: the links' and point masses' symbolic expressions differentiated
  (:func:`~designer.optimize.problem.mass_gradient`; the catalog items' masses are constant within one
  combination of discrete picks);
* ``M[i,j]``, ``inertia_locked[i]``, ``coupling[i,j]``, ``gravity[i]`` at the metrics' pose: the entry of the
  Lagrange equations' closed form, the pose put in, differentiated by each parameter, as ``explore
  sensitivity`` does it (:mod:`designer.explore.sensitivity`; a serial arm, or a closed chain whose loops
  close linearly).

Every other quantity (eigenvalues, sags, frequencies, quantities along a cycle, the project's own requirements
evaluated by ``review``) has none: SLSQP takes finite differences of it, and the result says which.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ..model.manipulator import Manipulator

__all__ = ["exact_gradient"]

Gradient = Callable[[dict[str, float]], np.ndarray]


def exact_gradient(model: Manipulator, quantity: str, names: Sequence[str], q: Sequence[float] | None = None
                   ) -> Gradient | None:
    """d ``quantity`` / d (parameters ``names``) as a function of the design's values, exact; None when the
    quantity has no exact derivative here (module docstring). ``q``: the metrics' pose (default: every joint
    at zero)."""
    from .problem import mass_gradient
    if quantity.strip() == "mass":
        return mass_gradient(model, names)
    from ..explore.joint_names import model_joint_numbers
    from ..explore.metrics import MetricError, parse_metric
    from ..explore.sensitivity import SYMBOLIC_METRICS
    from ..explore.sweep import joint_count
    if quantity.partition("[")[0].strip() not in SYMBOLIC_METRICS:
        return None
    try:
        spec = parse_metric(quantity, joint_count(model), model_joint_numbers(model))
    except (MetricError, ValueError):
        return None
    if not spec.index:      # the largest over the joints: not differentiable as one entry
        return None
    return _metric_gradient(model, spec, names, q)


def _metric_gradient(model: Manipulator, spec, names: Sequence[str], q: Sequence[float] | None) -> Gradient | None:
    import sympy as sp

    from ..explore.sensitivity import _equations, _symbolic_metric
    from ..model.expr import symbol
    eq = _equations(model)
    if eq is None:
        return None
    pose = np.zeros(len(eq.model.q)) if q is None else np.asarray(q, float)
    expr = _symbolic_metric(eq, spec, pose)
    grads = [sp.diff(expr, symbol(n)) for n in names]
    free = sorted({s for g in (expr, *grads) for s in g.free_symbols}, key=lambda s: s.name)
    fn = sp.lambdify(free, [expr, *grads], modules="numpy")
    fixed = model.parameter_values
    absolute = spec.metric.name == "gravity"     # the metric is |G_i|

    def gradient(values: dict[str, float]) -> np.ndarray:
        args = [values.get(s.name, fixed.get(s.name, math.nan)) for s in free]
        value, *d = fn(*args)
        out = np.array([float(x) for x in d], dtype=float).reshape(len(names))
        return out * float(np.sign(value)) if absolute else out
    return gradient
