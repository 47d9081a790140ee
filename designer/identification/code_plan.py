"""Generated code with the base parameters as inputs: what ``codegen --parameters base`` writes.

:func:`plan_base_code` writes tau, M and G with the base parameters (and the geometry symbols)
as inputs: the recursions of :mod:`designer.dynamics.standard_ne` run on the base parameters in
joint frames with every grouped or lost parameter zero, so far fewer products remain (PUMA 560
with symbolic lengths: tau 499 operations in the generated code, each vector of the recursion a
named step, against 649 with mass, COM and inertia). It lives here, above code generation, because
it needs the base parameters (:mod:`.base_params`), whose numeric pass runs on the regressor.
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
from ..dynamics.standard_ne import standard_mass_matrix, standard_tau, standard_tau_steps, symbolic_regressor
from ..graphs.cse import graph_symbols
from ..kinematics import NumericArm
from ..model.angles import exact_angles
from ..model.drives import drive_statement
from ..model.manipulator import Manipulator
from .base_params import base_parameters

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
    Y = symbolic_regressor(model)[0] if extras else sp.zeros(1, 1)
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


def base_plan(model: Manipulator, drives: bool = False, only: Collection[str] | None = None) -> CodePlan:
    """What ``codegen --parameters base`` writes: tau, M and G with the base parameters as inputs, and
    (unless ``only`` leaves them out) h, the Coriolis matrix and the regressor; ``drives``: with the
    drive parameters (:func:`plan_base_code`)."""
    if not model.is_serial:   # a closed chain (the window's export): its closed-loop base parameters
        from .closed_code_plan import closed_base_plan
        return closed_base_plan(model, only, drives=drives)
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
