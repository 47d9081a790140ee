"""Exact derivatives of the optimizer's quantities with respect to its continuous variables, where the model
allows, for SLSQP's objective and constraint gradients (docs/optimize.md):

* ``mass``: the links' and point masses' symbolic expressions differentiated
  (:func:`mass_gradient`; the catalog items' masses are constant within one
  combination of discrete picks);
* ``M[i,j]``, ``inertia_locked[i]``, ``coupling[i,j]``, ``gravity[i]`` at the metrics' pose: the entry of the
  Lagrange equations' closed form, the pose put in, differentiated by each parameter, as ``explore
  sensitivity`` does it (:mod:`designer.explore.sensitivity`; a serial arm, or a closed chain whose loops
  close linearly).

* ``frequency`` (the lowest natural frequency with the motors locked, K v = w^2 M(q) v) at the metrics' pose, of
  a serial arm whose every joint has a drive stiffness (:func:`frequency_gradient`): a simple eigenvalue's
  derivative, d lambda = v^T (dK - lambda dM) v / v^T M v, with dM/dp from the Lagrange closed form (the
  parts' mass properties in it) and dK/dp from the drives' stiffness expressions;
* ``peak_torque[j]``, ``rms_torque[j]`` (and the largest over the joints) along a fixed-timing cycle, of a serial
  arm (:func:`cycle_gradient`): tau = M(q) qdd + h(q, qd) + G(q) of the closed form differentiated by each
  parameter at every sample; the peak's derivative at its arg-max sample (sign(tau) dtau/dp), the RMS's
  integral(tau dtau/dp) / (T rms).

Every other quantity (the other eigenvalues, sags, the links' bending frequencies, the
project's own requirements evaluated by ``review``) has none: SLSQP takes finite differences of it, and the
result says which.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import numpy as np

from ..model.manipulator import Manipulator

__all__ = ["cycle_gradient", "exact_gradient", "exact_possible", "frequency_gradient", "mass_gradient"]

Gradient = Callable[[dict[str, float]], np.ndarray]
#: a quantity along the cycle: peak_torque or rms_torque, of one joint (number) or the largest over them
CYCLE_RE = re.compile(r"^\s*(peak_torque|rms_torque)\s*(?:\[\s*([0-9]+)\s*\])?\s*$")


def exact_possible(quantity: str, cycle=None) -> bool:
    """Whether ``quantity`` may have an exact gradient here (cheap: nothing derived). One quantity without one
    makes SLSQP evaluate the same extra designs for its finite differences, so the search builds the costly
    symbolic gradients only when every quantity may have one."""
    name = quantity.strip()
    if name in ("mass", "frequency"):
        return True
    if CYCLE_RE.match(quantity):
        return cycle is not None
    from ..explore.sensitivity import SYMBOLIC_METRICS
    return name.partition("[")[0].strip() in SYMBOLIC_METRICS


def exact_gradient(model: Manipulator, quantity: str, names: Sequence[str], q: Sequence[float] | None = None,
                   cycle=None) -> Gradient | None:
    """d ``quantity`` / d (parameters ``names``) as a function of the design's values, exact; None when the
    quantity has no exact derivative here (module docstring). ``q``: the metrics' pose (default: every joint
    at zero); ``cycle``: the trajectory the cycle's quantities are taken along."""
    if quantity.strip() == "mass":
        return mass_gradient(model, names)
    if quantity.strip() == "frequency":
        return frequency_gradient(model, names, q)
    m = CYCLE_RE.match(quantity)
    if m:
        return None if cycle is None else cycle_gradient(model, names, cycle, m.group(1),
                                                         None if m.group(2) is None else int(m.group(2)))
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

    from ..explore.sensitivity import _symbolic_metric
    from ..model.expr import symbol
    eq = _closed_form(model)
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


_LAST: list = []     # (model, its closed form): the last derivation, which one combination's gradients share


def _closed_form(model: Manipulator):
    """explore sensitivity's Lagrange closed form of ``model`` (None without one), derived once for the several
    quantities of one search."""
    from ..explore.sensitivity import _equations
    if not (_LAST and _LAST[0] is model):
        _LAST[:] = [model, _equations(model)]
    return _LAST[1]


def mass_gradient(model: Manipulator, names: Sequence[str]) -> Callable[[dict[str, float]], np.ndarray]:
    """d(total mass)/d(parameters ``names``), exact: the links' mass expressions (a part's from its section and
    material) and the point masses differentiated symbolically, evaluated at a design's values."""
    import sympy as sp
    from ..model.expr import symbol
    total = sum((link.mass for link in model.links), sp.Integer(0)) + sum((p.mass for p in model.point_masses),
                                                                          sp.Integer(0))
    grads = [sp.diff(total, symbol(n)) for n in names]
    free = sorted({s for g in grads for s in g.free_symbols}, key=lambda s: s.name)
    fn = sp.lambdify(free, grads, modules="numpy")
    fixed = model.parameter_values

    def gradient(values: dict[str, float]) -> np.ndarray:
        args = [values.get(s.name, fixed.get(s.name, math.nan)) for s in free]
        return np.array(fn(*args), dtype=float).reshape(len(names))
    return gradient


def frequency_gradient(model: Manipulator, names: Sequence[str], q: Sequence[float] | None = None
                       ) -> Gradient | None:
    """d(lowest natural frequency, motors locked, Hz)/d(parameters ``names``) at the pose ``q`` (default: zero),
    exact: lambda = w^2 is a generalized eigenvalue of (K, M(q)), K the drives' stiffness; for a simple one,
    d lambda = v^T (dK - lambda dM) v / v^T M v (v any eigenvector), and f = sqrt(lambda) / 2 pi. M and dM/dp
    from the Lagrange closed form (a part-made link's mass properties in it), K and dK/dp from the stiffness
    expressions. None for a closed chain or a joint without a stiffness (rigid joints constrain the modes) and
    where the closed form is not at hand."""
    import sympy as sp
    from scipy.linalg import eigh

    from ..model.expr import symbol
    links = model.links
    if not model.is_serial or any(link.drive is None or link.drive.stiffness is None for link in links):
        return None
    eq = _closed_form(model)
    if eq is None or len(eq.model.q) != len(links):
        return None
    n = len(links)
    pose = np.zeros(n) if q is None else np.asarray(q, float)
    qsubs = dict(zip(eq.model.q, (sp.Float(v) for v in pose)))
    upper = [(i, j) for i in range(n) for j in range(i, n)]
    m_entries = [sp.sympify(eq.mass_matrix[i, j]).xreplace(qsubs) for i, j in upper]
    k_entries = [sp.sympify(link.drive.stiffness) for link in links if link.drive is not None]
    syms = [symbol(nm) for nm in names]
    dm = [[sp.diff(e, s) for e in m_entries] for s in syms]
    dk = [[sp.diff(e, s) for e in k_entries] for s in syms]
    exprs = [*m_entries, *k_entries, *(e for row in dm for e in row), *(e for row in dk for e in row)]
    free = sorted({s for e in exprs for s in e.free_symbols}, key=lambda s: s.name)
    fn = sp.lambdify(free, exprs, modules="numpy")
    fixed = model.parameter_values
    u = len(upper)

    def symmetric(flat) -> np.ndarray:
        out = np.zeros((n, n))
        for (i, j), v in zip(upper, flat):
            out[i, j] = out[j, i] = float(v)
        return out

    def gradient(values: dict[str, float]) -> np.ndarray:
        args = [values.get(s.name, fixed.get(s.name, math.nan)) for s in free]
        flat = list(fn(*args))
        M = symmetric(flat[:u])
        K = np.diag([float(v) for v in flat[u:u + n]])
        rest = flat[u + n:]
        lam, vec = eigh(K, M)
        v = vec[:, 0]
        lowest = float(lam[0])
        out = np.empty(len(names))
        for k in range(len(names)):
            dM = symmetric(rest[k * u:(k + 1) * u])
            dK = np.diag([float(x) for x in rest[len(names) * u + k * n:len(names) * u + (k + 1) * n]])
            dlam = float(v @ (dK - lowest * dM) @ v / (v @ M @ v))
            out[k] = dlam / (4.0 * math.pi * math.sqrt(lowest))
        return out
    return gradient


def cycle_gradient(model: Manipulator, names: Sequence[str], cycle, kind: str, joint: int | None = None
                   ) -> Gradient | None:
    """d(``kind``: ``peak_torque`` or ``rms_torque`` of joint number ``joint``, the largest over the joints when
    None)/d(parameters ``names``) along ``cycle`` (a trajectory: t, q, qd, qdd), exact: the closed form's
    tau = M qdd + h + G (the link dynamics the optimizer's cycle loads take) and its derivative by each parameter
    evaluated at every sample; the peak's derivative is sign(tau) dtau/dp at its arg-max sample (a kink where two
    samples tie), the RMS's integral(tau dtau/dp dt) / (T rms). None for a mechanism other than a serial arm."""
    import sympy as sp

    from ..explore.joints import explore_joints
    from ..model.expr import symbol
    from .sizing import _trapezoid as trapezoid
    if not model.is_serial:
        return None
    eq = _closed_form(model)
    if eq is None:
        return None
    numbers = list(explore_joints(model).numbers)
    if joint is not None and joint not in numbers:
        return None
    rows = range(len(numbers)) if joint is None else [numbers.index(joint)]
    mdl = eq.model
    tau = [sp.sympify((eq.mass_matrix[j, :] * sp.Matrix(mdl.qdd))[0] + eq.coriolis[j] + eq.gravity[j])
           for j in rows]
    syms = [symbol(nm) for nm in names]
    exprs = [*tau, *(sp.diff(e, s) for e in tau for s in syms)]
    state = [*mdl.q, *mdl.qd, *mdl.qdd]
    taken = set(state)
    free = sorted({s for e in exprs for s in e.free_symbols} - taken, key=lambda s: s.name)
    fn = sp.lambdify([*state, *free], exprs, modules="numpy")
    fixed = model.parameter_values
    t = np.asarray(cycle.t, float)
    samples = [np.asarray(a, float)[:, i] for a in (cycle.q, cycle.qd, cycle.qdd) for i in range(a.shape[1])]
    k, width = len(tau), len(names)

    def gradient(values: dict[str, float]) -> np.ndarray:
        args = [values.get(s.name, fixed.get(s.name, math.nan)) for s in free]
        out = [np.broadcast_to(np.asarray(v, float), t.shape) for v in fn(*samples, *args)]
        torque, d = np.array(out[:k]), np.array(out[k:]).reshape(k, width, len(t))
        if kind == "peak_torque":
            row, i = np.unravel_index(int(np.argmax(np.abs(torque))), torque.shape)
            return float(np.sign(torque[row, i])) * d[row, :, i]
        rms = np.sqrt(trapezoid(torque**2, t) / (t[-1] - t[0]))
        r = int(np.argmax(rms))
        return trapezoid(torque[r] * d[r], t) / ((t[-1] - t[0]) * rms[r])
    return gradient
