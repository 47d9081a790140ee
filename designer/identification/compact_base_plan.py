"""``codegen --parameters base`` of a closed chain without a closed form (a four-bar, a general loop).

The closed-loop grouping is :func:`designer.identification.regressor.base_grouping`'s (QR with
pivoting of W^T Y_tree over random closed states: tau_a = Y_B beta, Y_B the regressor's columns of the
kept parameters pi_B, beta = pi_B + K pi_D), as for a linear closure (:func:`.code_plan.base_plan`). The code
is the compact form's (:mod:`designer.dynamics.closed_compact`): the loop quantities as steps once, then
each function a regressor over them (:mod:`designer.dynamics.regressor_form`) times beta:

- tau_a = Y_B(q, qd, qdd) beta, the regressor Y_B itself, over the tau recursion's outward pass;
- G_a: the outward pass at qd = qdd = 0 with gravity; h_a at the tree's rates and qdd_a = 0 (the passive
  accelerations' rate term b) without gravity; column k of M_a at qd = 0, qdd_tree = W e_k without
  gravity (the upper triangle, M_a symmetric); the Coriolis matrix by polarization of h_a's part
  quadratic in the rates (:mod:`designer.codegen.compact_coriolis`, friction left out).

K is numeric at the project's geometry, so the geometry is written into the code as numbers.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import numpy as np
import sympy as sp

from ..codegen.compact_coriolis import compact_coriolis
from ..codegen.plan import CodePlan, closure_statement, comment_text, plan_function, temp_prefix
from ..dynamics.closed_compact import closed_compact, needed_steps
from ..dynamics.regressor_form import compact_regressor, compact_regressor_at, rate_matrix, tree_of
from ..dynamics.recursive_form import Assignment
from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator
from ..numeric.closed import ClosedDynamics
from .regressor import base_grouping
from .base_params import BASE_DOC, base_name, grouping_text

__all__ = ["compact_base_plan"]


def compact_base_plan(model: Manipulator, only: Collection[str] | None = None, token: CancelToken = NEVER,
                      drives: bool = False) -> CodePlan:
    """tau, mass_matrix, gravity, bias, coriolis_matrix and the base regressor (``only``: those named) of
    ``model`` with its closed-loop base parameters as inputs (module docstring)."""
    from ..codegen.files import FUNCTIONS
    bp = base_grouping(ClosedDynamics(model), drives=drives)
    cols = bp.columns
    betas = sp.Matrix([sp.Symbol(base_name(name, combo), real=True) for name, combo in bp.base])
    rigid = [not name.startswith(("fv", "fc")) for name, _ in bp.base] if drives else [True] * len(cols)
    cc = closed_compact(model.numeric(), token)
    carrier, steps = cc.carrier, [(a.symbol, a.value) for a in cc.steps]
    na, n = len(cc.act), tree_of(cc).n
    zeros = [sp.S.Zero] * n

    def at(qd, qdd, gravity: bool, tag: str) -> tuple[list, sp.Matrix]:
        more, Y = compact_regressor_at(cc, qd, qdd, gravity, tag, drives, token)
        return more, Y.extract(list(range(na)), cols)
    chosen = tuple(FUNCTIONS) if only is None else tuple(f for f in FUNCTIONS if f in only)
    wanted: dict[str, tuple[list, sp.Matrix]] = {}
    if {"tau", "regressor"} & set(chosen):
        Y = compact_regressor(cc, drives, token).extract(list(range(na)), cols)
        wanted["regressor"], wanted["tau"] = ([], Y), ([], Y * betas)
    if "gravity" in chosen:
        more, Y = at(zeros, zeros, True, "_g")
        wanted["gravity"] = (more, Y * betas)
    if {"bias", "coriolis_matrix"} & set(chosen):
        more, Y = at(cc.tree_qd, cc.tree_qdd0, False, "_h")
        wanted["bias"] = (more, Y * betas)
        quadratic = sp.Matrix([b if keep else 0 for b, keep in zip(betas, rigid)])   # no friction in C
        extra, C = compact_coriolis(steps + more, Y * quadratic, carrier.qd, token)
        wanted["coriolis_matrix"] = (more + extra, C)
    if "mass_matrix" in chosen:
        W, more, columns = rate_matrix(cc), [], []
        for k in range(na):
            token.check()
            unit = [W[i][k] for i in range(n)]
            added, Y = at(zeros, unit, False, f"_m{k + 1}")
            more += added
            columns.append(Y * betas)
        wanted["mass_matrix"] = (more, sp.Matrix(na, na, lambda r, k: columns[min(r, k)][max(r, k)]))
    index = {b.name: k for k, b in enumerate(betas)}
    prefix = temp_prefix(set(index) | {s.name for s, _ in steps})
    inputs = tuple((s, "qp", k) for k, s in enumerate(cc.inputs))
    funcs = []
    for name in chosen:
        more, mat = wanted[name]
        need = needed_steps([Assignment(s, v, "", 0) for s, v in steps + more], list(mat))
        template = {"coriolis_matrix": "bias", "regressor": "tau"}.get(name, name)
        func = plan_function(template, mat, carrier, index, prefix, steps=tuple(need), token=token, inputs=inputs)
        funcs.append(replace(func, name=name, doc=BASE_DOC[name]) if name in BASE_DOC else func)
    return grouping_plan(model, bp, betas, carrier.n, funcs, prefix,
                         "compact closed-chain form (the tree's regressor projected by W)", closure_statement(cc))


def grouping_plan(model: Manipulator, bp, betas, n: int, funcs: list, prefix: str, form: str,
                  closure: str = "") -> CodePlan:
    """The code plan of a numeric grouping ``bp`` (:func:`~.regressor.base_grouping`'s) with its base parameters
    ``betas`` as inputs: the header says ``form``, the grouping and ``closure``."""
    groups = grouping_text(betas, bp.base)
    method = (f"{form} on its {bp.count} base parameters (closed-loop grouping found numerically at the project's "
              "geometry, written in as numbers" + (f": {groups}" if groups else "") + ")"
              + (f"; {closure}" if closure else ""))
    values = [float(v) if np.isfinite(v) else None for v in bp.values]
    return CodePlan(comment_text(model.name), method, "none", n, tuple((b.name, v) for b, v in zip(betas, values)),
                    tuple(funcs), prefix)
