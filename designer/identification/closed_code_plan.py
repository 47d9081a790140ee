"""``codegen --parameters base`` of a linearly closing closed chain (parallelograms).

The closed-loop grouping is :func:`designer.numeric.closed_regressor.closed_base_parameters`'s (QR
with pivoting of W^T Y_tree over random closed states: beta = pi_B + K pi_D); the code is the closed
forms' per-parameter parts (:class:`designer.dynamics.closed_regressor_form.ClosedRegressorParts`)
summed over the base parameters: tau_a = Y_B beta, M_a = sum beta_k M^(k), G_a, h_a and the
Coriolis matrix likewise, exact in q_a. K is numeric at the project's geometry, so the geometry is
written into the code as numbers (the code is the project's mechanism, with any inertial values).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import numpy as np
import sympy as sp

from ..codegen.closed_plan import closed_rate_matrix
from ..codegen.plan import CodePlan, comment_text, plan_function, temp_prefix
from ..dynamics.closed_regressor_form import ClosedRegressorParts
from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator
from ..numeric.closed import ClosedDynamics
from ..numeric.closed_regressor import ClosedRegressor, closed_base_parameters
from .closed_base_text import BASE_DOC, base_name, grouping_text

__all__ = ["closed_base_plan"]


def _drive_parts(model: Manipulator, carrier: Manipulator, slot: tuple[int, str]) -> dict[str, sp.Matrix]:
    """A drive parameter's tau column, M, h (G and C: zero) in the actuated symbols, through the constant W:
    Ia_j: W_j^T W_j qdd, W_j^T W_j; fv_j: W_j^T W_j qd; fc_j: W_j^T sign(W_j qd)."""
    j, kind = slot
    w = sp.Matrix(closed_rate_matrix(model)[j])          # row j of W as a column
    qd, qdd = ((w.T * sp.Matrix(v))[0] for v in (carrier.qd, carrier.qdd))
    rate = {"Ia": qdd, "fv": qd, "fc": sp.sign(qd)}[kind]
    n = carrier.n
    return {"tau": w * rate, "M": w * w.T if kind == "Ia" else sp.zeros(n, n),
            "h": sp.zeros(n, 1) if kind == "Ia" else w * rate, "G": sp.zeros(n, 1), "C": sp.zeros(n, n)}


def closed_base_plan(model: Manipulator, only: Collection[str] | None = None,
                     token: CancelToken = NEVER, drives: bool = False) -> CodePlan:
    """tau, mass_matrix, gravity, bias, coriolis_matrix and the base regressor (``only``: those named)
    with the closed-loop base parameters as inputs (the module docstring); ``drives``: the drive
    parameters of the tree's joints among them (their terms through the constant W)."""
    from ..codegen.files import FUNCTIONS
    from ..dynamics.closed_form import NotLinearClosure, linear_closure
    try:
        linear_closure(model)
    except NotLinearClosure:   # a four-bar, a general loop: the compact form's regressor (compact_base_plan.py)
        from .compact_base_plan import compact_base_plan
        return compact_base_plan(model, only, token, drives)
    cd = ClosedDynamics(model)
    bp = closed_base_parameters(cd, drives=drives)
    reg = ClosedRegressor(cd, drives)
    names = reg.names
    parts = ClosedRegressorParts(model.numeric(), token)   # numbers in the ring: each monomial's factor one sum
    carrier = parts.carrier
    betas = [sp.Symbol(base_name(name, combo), real=True) for name, combo in bp.base]
    rigid = len(parts.M)
    weights = {names.index(name): beta for (name, _), beta in zip(bp.base, betas) if names.index(name) < rigid}
    driven = [(reg.slots[names.index(name) - rigid], beta) for (name, _), beta in zip(bp.base, betas)
              if names.index(name) >= rigid]

    def drive_sum(q: str) -> sp.Matrix:
        shape = (carrier.n, carrier.n) if q in ("M", "C") else (carrier.n, 1)
        return sum((beta * _drive_parts(model, carrier, slot)[q] for slot, beta in driven), sp.zeros(*shape))
    subs = model.substitutions()
    chosen = tuple(FUNCTIONS) if only is None else tuple(only)
    quantity = {"tau": "tau", "mass_matrix": "M", "gravity": "G", "bias": "h", "coriolis_matrix": "C"}
    index = {b.name: k for k, b in enumerate(betas)}
    prefix = temp_prefix(set(index))
    funcs = []
    for name in chosen:
        token.check()
        if name == "regressor":
            Y = parts.matrix("tau")
            cols = [Y[:, names.index(n)] if names.index(n) < rigid
                    else _drive_parts(model, carrier, reg.slots[names.index(n) - rigid])["tau"] for n, _ in bp.base]
            mat = sp.Matrix.hstack(*cols).xreplace(subs)
            func = plan_function("tau", mat, carrier, index, prefix, token=token)
        else:
            mat = (parts.matrix(quantity[name], weights) + drive_sum(quantity[name])).xreplace(subs)
            func = plan_function("bias" if name == "coriolis_matrix" else name, mat, carrier, index, prefix,
                                 token=token)
        if name in BASE_DOC:
            func = replace(func, name=name, doc=BASE_DOC[name])
        funcs.append(func)
    groups = grouping_text(betas, bp.base)
    method = (f"closed chain, closed form in the actuated coordinates, on its {bp.count} base parameters (closed-loop "
              "grouping found numerically at the project's geometry, written in as numbers"
              + (f": {groups}" if groups else "") + ")")
    values = [float(v) if np.isfinite(v) else None for v in bp.values]
    return CodePlan(comment_text(model.name), method, "none", carrier.n,
                    tuple((b.name, v) for b, v in zip(betas, values)), tuple(funcs), prefix)
