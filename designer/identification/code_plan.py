"""Generated code with the base parameters as inputs: what ``codegen --parameters base`` writes.

:func:`plan_base_code` writes tau, M and G with the base parameters (and the geometry symbols)
as inputs: the recursions of :mod:`designer.dynamics.standard_ne` run on the base parameters in
joint frames with every grouped or lost parameter zero, so far fewer products remain (PUMA 560
with symbolic lengths: tau 499 operations in the generated code, each vector of the recursion a
named step, against 649 with mass, COM and inertia). It lives here, above code generation, because
it needs the base parameters (:mod:`.base_params`), whose numeric pass runs on the regressor.

A linearly closing closed chain (parallelograms) takes the same front door, :func:`base_plan` (callers never
choose; :func:`_loop_base_plan`): the closed-loop grouping is
:func:`designer.identification.regressor.base_grouping`'s (QR with pivoting of W^T Y_tree over
random closed states: beta = pi_B + K pi_D); the code is the closed forms' per-parameter parts
(:class:`designer.dynamics.regressor_form.RegressorParts`) summed over the base parameters:
tau_a = Y_B beta, M_a = sum beta_k M^(k), G_a, h_a and the Coriolis matrix likewise, exact in q_a. K is
numeric at the project's geometry, so the geometry is written into the code as numbers (the code is the
project's mechanism, with any inertial values). Other loops: :mod:`.compact_base_plan`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import numpy as np
import sympy as sp

from ..codegen.control_plan import extra_functions
from ..codegen.files import code_files
from ..codegen.plan import CodePlan, comment_text, plan_function, temp_prefix
from ..dynamics.inertial import drive_parameter_values, standard_parameter_values
from ..dynamics.regressor_form import regressor_form
from ..dynamics.standard_ne import standard_mass_matrix, standard_tau, standard_tau_steps
from ..graphs.cse import graph_symbols
from ..kinematics import NumericArm
from ..model.angles import exact_angles
from ..model.drives import drive_statement
from ..model.manipulator import Manipulator
from ..jobs import NEVER, CancelToken
from .base_params import BASE_DOC, across_loops, base_name, base_parameters

__all__ = ["plan_base_code", "base_plan", "generate_base_files"]


def _drive_terms(model: Manipulator, bp) -> tuple[list, list, list]:
    """Per joint: (Ia for M's diagonal, Ia qdd, fv qd + fc sign(qd)) of the drive base parameters."""
    n = model.n
    inertia, accel, friction = [sp.S.Zero] * n, [sp.S.Zero] * n, [sp.S.Zero] * n
    for name, (j, kind) in zip(bp.names, bp.slots):
        sym = sp.Symbol(name, real=True)
        if kind == "Ia":
            inertia[j] += sym
            accel[j] += sym * model.qdd[j]
        elif kind == "fv":
            friction[j] += sym * model.qd[j]
        elif kind == "fc":
            friction[j] += sym * sp.sign(model.qd[j])
    return inertia, accel, friction


def plan_base_code(model: Manipulator, extras: bool = False, drives: bool = False) -> tuple[CodePlan, object]:
    """(plan, base parameters): tau, mass_matrix and gravity with the base parameters as inputs;
    ``extras``: also bias h(q, qd), coriolis_matrix and the standard regressor; ``drives``: with the
    drive parameters (Ia, fv, fc of the joints with drive data) among the base parameters, their
    terms in tau, M and h (an Ia grouped into ZZR of its link is in that parameter's value)."""
    model = exact_angles(model).model
    bp = base_parameters(model, drives=drives)
    inputs = bp.joint_frame_inputs()
    inertia, accel, friction = _drive_terms(model, bp)
    rigid = standard_tau(model, inputs)
    tau = sp.Matrix([rigid[j] + accel[j] + friction[j] for j in range(model.n)])
    zeros = [0] * model.n   # G and h by the recursion with zero rates: substituting into the graph walks it as a tree
    gravity = standard_tau(model, inputs, qd=zeros, qdd=zeros)
    mass = standard_mass_matrix(model, inputs)
    mass = mass + sp.diag(*inertia)
    joints = {s.name for s in (*model.q, *model.qd, *model.qdd)}
    geometry = set()
    Y = regressor_form(model) if extras else sp.zeros(1, 1)
    for mat in (tau, mass, Y):
        geometry |= {s.name for s in graph_symbols(list(mat))}
    geometry -= joints | set(bp.names)
    names = list(bp.names) + sorted(geometry)
    defaults = model.parameter_values
    base_values: list = [None] * bp.count
    if not model.unvalued_symbols():
        standard = standard_parameter_values(NumericArm.from_model(model))
        if drives:
            standard = np.concatenate([standard, drive_parameter_values(model)])
        base_values = [float(v) for v in bp.values(standard)]
    values = base_values + [defaults.get(name) for name in sorted(geometry)]
    index = {name: k for k, name in enumerate(names)}
    prefix = temp_prefix(set(names))
    # tau as Khalil's customized model evaluates it: each vector of the recursion a named step
    steps, named = standard_tau_steps(model, inputs, sp.numbered_symbols(temp_prefix(set(names) | {prefix + "0"}),
                                                                         real=True))
    tau = sp.Matrix([named[j] + accel[j] + friction[j] for j in range(model.n)])
    quantities = [("tau", tau), ("mass_matrix", mass), ("gravity", gravity)]
    if extras:
        weightless = replace(model, gravity=(0, 0, 0))
        bias = standard_tau(weightless, inputs, qdd=zeros)
        quantities.append(("bias", sp.Matrix([bias[j] + friction[j] for j in range(model.n)])))
    funcs = tuple(plan_function(name, mat, model, index, prefix, steps=tuple(steps) if name == "tau" else ())
                  for name, mat in quantities)
    method = "; ".join(filter(None, ("customized Newton-Euler and composite rigid bodies on the base parameters",
                                     drive_statement(model, drives))))
    plan = CodePlan(comment_text(model.name), method, "none", model.n,
                    tuple(zip(names, (None if v is None or not np.isfinite(v) else v for v in values))), funcs, prefix)
    return (extra_functions(plan, model, mass=mass, Y=Y, drives=drives) if extras else plan), bp


def base_plan(model: Manipulator, drives: bool = False, only: Collection[str] | None = None,
              token: CancelToken = NEVER) -> CodePlan:
    """What ``codegen --parameters base`` writes: tau, M and G with the base parameters as inputs, and
    (unless ``only`` leaves them out) h, the Coriolis matrix and the regressor; ``drives``: with the
    drive parameters (:func:`plan_base_code`). A mechanism with loops: its closed-loop base parameters
    (:func:`_loop_base_plan`; ValueError for a loop that cannot be posed)."""
    if across_loops(model):   # the tree's recursions do not hold across a loop: the closed forms' parts
        return _loop_base_plan(model, only, token, drives)
    extras = only is None or bool(set(only) - {"tau", "mass_matrix", "gravity"})
    plan, _ = plan_base_code(model, extras=extras, drives=drives)
    if only is not None:
        plan = replace(plan, functions=tuple(f for f in plan.functions if f.name in only))
    return plan


def generate_base_files(model: Manipulator, lang: str, target: str, prefix: str | None = None,
                        drives: bool = False) -> dict[str, str]:
    """:func:`~designer.codegen.files.code_files` of :func:`base_plan`: what ``codegen --parameters base
    --lang LANG --out TARGET [--drives]`` writes for ``model`` (no derivation needed)."""
    return code_files(base_plan(model, drives), lang, target, prefix)


def _drive_parts(model: Manipulator, carrier: Manipulator, slot: tuple[int, str]) -> dict[str, sp.Matrix]:
    """A drive parameter's tau column, M, h (G and C: zero) in the actuated symbols, through the constant W:
    Ia_j: W_j^T W_j qdd, W_j^T W_j; fv_j: W_j^T W_j qd; fc_j: W_j^T sign(W_j qd)."""
    from ..dynamics.closed_form import rate_matrix
    j, kind = slot
    w = sp.Matrix(rate_matrix(model)[j])          # row j of W as a column
    qd, qdd = ((w.T * sp.Matrix(v))[0] for v in (carrier.qd, carrier.qdd))
    rate = {"Ia": qdd, "fv": qd, "fc": sp.sign(qd)}[kind]
    n = carrier.n
    return {"tau": w * rate, "M": w * w.T if kind == "Ia" else sp.zeros(n, n),
            "h": sp.zeros(n, 1) if kind == "Ia" else w * rate, "G": sp.zeros(n, 1), "C": sp.zeros(n, n)}


def _loop_base_plan(model: Manipulator, only: Collection[str] | None = None,
                    token: CancelToken = NEVER, drives: bool = False) -> CodePlan:
    """tau, mass_matrix, gravity, bias, coriolis_matrix and the base regressor (``only``: those named)
    with the closed-loop base parameters as inputs (the module docstring); ``drives``: the drive
    parameters of the tree's joints among them (their terms through the constant W)."""
    from ..codegen.files import FUNCTIONS
    from ..dynamics.closed_form import NotLinearClosure, linear_closure
    from ..dynamics.regressor_form import RegressorParts
    from ..numeric.closed import ClosedDynamics
    from .compact_base_plan import compact_base_plan, grouping_plan
    from .regressor import base_grouping
    try:
        linear_closure(model)
    except NotLinearClosure:   # a four-bar, a general loop: the compact form's regressor (compact_base_plan.py)
        return compact_base_plan(model, only, token, drives)
    bp = base_grouping(ClosedDynamics(model), drives=drives)
    names = list(bp.names)
    parts = RegressorParts(model.numeric(), token)   # numbers in the ring: each monomial's factor one sum
    carrier = parts.carrier
    betas = [sp.Symbol(base_name(name, combo), real=True) for name, combo in bp.base]
    rigid = len(parts.M)
    weights = {names.index(name): beta for (name, _), beta in zip(bp.base, betas) if names.index(name) < rigid}
    driven = [(bp.slots[names.index(name) - rigid], beta) for (name, _), beta in zip(bp.base, betas)
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
                    else _drive_parts(model, carrier, bp.slots[names.index(n) - rigid])["tau"] for n, _ in bp.base]
            mat = sp.Matrix.hstack(*cols).xreplace(subs)
            func = plan_function("tau", mat, carrier, index, prefix, token=token)
        else:
            mat = (parts.matrix(quantity[name], weights) + drive_sum(quantity[name])).xreplace(subs)
            func = plan_function("bias" if name == "coriolis_matrix" else name, mat, carrier, index, prefix,
                                 token=token)
        if name in BASE_DOC:
            func = replace(func, name=name, doc=BASE_DOC[name])
        funcs.append(func)
    return grouping_plan(model, bp, betas, carrier.n, funcs, prefix,
                         "closed chain, closed form in the actuated coordinates,")
