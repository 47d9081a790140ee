"""Sensitivities of a metric to the model's parameters (docs/metrics.md, "Sensitivities").

At one configuration the derivative is exact and symbolic where the metric is a closed form of M or G (a
closed chain's closed form in its actuated joints where its loops close linearly,
:mod:`designer.dynamics.closed_form`; a four-bar has none and gets a central difference); other metrics
get a central difference. Over the workspace the parameters are ranked by I_p = mean |d metric / d p| |p|."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
import sympy as sp

from ..model.expr import symbol
from ..model.manipulator import Manipulator
from .maps import sample_configurations
from .metrics import MetricSpec, Ratings, evaluate, parse_metric
from .metrics import design_ratings
from .joint_names import model_joint_numbers
from .sweep import arm_factory, joint_count

__all__ = ["Sensitivity", "sensitivity_at", "rank_parameters", "SYMBOLIC_METRICS"]

SYMBOLIC_METRICS = ("M", "inertia_locked", "coupling", "gravity")
STEP = 1e-6


@dataclass(frozen=True)
class Sensitivity:
    parameter: str
    value: float
    derivative: float                 # d metric / d p at the configuration (metric unit per parameter unit)
    expression: sp.Expr | None        # the exact derivative (parameters free, q put in), if symbolic
    influence: float = float("nan")   # workspace ranking (metric unit), see the module text
    derivative_mean_abs: float = float("nan")


def _equations(model: Manipulator):
    """The Lagrange closed form of M and G: a serial arm's, or a closed chain's in its actuated joints when
    its loops close linearly; None without one (a four-bar, or an arm too large: the derivative is numeric
    then)."""
    from ..dynamics.engine import derive
    from ..dynamics.results import Form, Method, SimplifyMode
    eq = derive(model, Method.LAGRANGE, SimplifyMode.OFF, loop_quantities=False)
    return eq if eq.form is Form.CLOSED else None


def _symbolic_metric(eq, spec: MetricSpec, q: np.ndarray) -> sp.Expr:
    qsubs = dict(zip(eq.model.q, (sp.Float(v) for v in q)))
    M = lambda i, j: eq.mass_matrix[i, j].xreplace(qsubs)  # noqa: E731
    name, idx = spec.metric.name, spec.index
    if name == "M":
        return M(*idx)
    if name == "inertia_locked":
        return M(idx[0], idx[0])
    if name == "coupling":
        i, j = idx
        return M(i, j) / sp.sqrt(M(i, i) * M(j, j))
    return eq.gravity[idx[0]].xreplace(qsubs)   # gravity: |G_i|, the sign is applied by the caller


def _numeric_derivative(model, names, values, spec, q, ratings, k) -> np.ndarray:
    base = list(values)
    h = STEP * max(abs(base[k]), 1e-3)
    factory = arm_factory(model, tuple(names), tuple(base))
    up, down = list(base), list(base)
    up[k] += h
    down[k] -= h

    def at(row):   # a named drive stiffness (k2) among the names moves the ratings' stiffness too
        return evaluate(factory(row), q, spec, design_ratings(model, ratings or Ratings(), dict(zip(names, row))))
    return (at(up) - at(down)) / (2 * h)


def sensitivity_at(model: Manipulator, spec: MetricSpec | str, q: ArrayLike, ratings: Ratings | None = None,
                   parameters: Sequence[str] | None = None) -> list[Sensitivity]:
    """d metric / d p at the configuration ``q`` for each parameter (default: all with values)."""
    spec = parse_metric(spec, joint_count(model), model_joint_numbers(model)) if isinstance(spec, str) else spec
    values = model.parameter_values
    names = list(parameters) if parameters else [n for n in model.symbol_names() if n in values]
    missing = [n for n in names if n not in values]
    if missing:
        raise ValueError(f"no value for parameter(s) {', '.join(missing)}")
    q = np.asarray(q, float)
    eq = _equations(model) if spec.metric.name in SYMBOLIC_METRICS and bool(spec.index) else None
    symbolic = eq is not None
    expr: Any = _symbolic_metric(eq, spec, q) if symbolic else None  # a sympy expression when symbolic
    subs = {symbol(k): v for k, v in values.items()}
    out = []
    for k, name in enumerate(names):
        if symbolic:
            d = sp.diff(expr, symbol(name))
            value = float(d.xreplace(subs))
            if spec.metric.name == "gravity":
                value *= float(np.sign(float(expr.xreplace(subs))))
            out.append(Sensitivity(name, values[name], value, d))
        else:
            d = _numeric_derivative(model, names, [values[n] for n in names], spec, q[None, :], ratings, k)
            out.append(Sensitivity(name, values[name], float(d[0]), None))
    return out


def rank_parameters(model: Manipulator, spec: MetricSpec | str, q: ArrayLike | None = None,
                    ratings: Ratings | None = None, samples: int = 256, seed: int = 0,
                    parameters: Sequence[str] | None = None) -> list[Sensitivity]:
    """Parameters by influence over workspace samples (largest first), with the derivative at ``q``
    (default: all joints at zero)."""
    spec = parse_metric(spec, joint_count(model), model_joint_numbers(model)) if isinstance(spec, str) else spec
    q0 = np.zeros(joint_count(model)) if q is None else np.asarray(q, float)
    at = sensitivity_at(model, spec, q0, ratings, parameters)
    names = [s.parameter for s in at]
    base = [s.value for s in at]
    factory = arm_factory(model, tuple(names), tuple(base))
    Q = sample_configurations(factory(base), samples, seed=seed)
    ranked = []
    for k, s in enumerate(at):
        d = _numeric_derivative(model, names, base, spec, Q, ratings, k)
        d = d[np.isfinite(d)]
        mean_abs = float(np.abs(d).mean()) if d.size else float("nan")
        ranked.append(Sensitivity(s.parameter, s.value, s.derivative, s.expression, mean_abs * abs(s.value), mean_abs))
    return sorted(ranked, key=lambda s: -np.nan_to_num(s.influence, nan=-1.0))
