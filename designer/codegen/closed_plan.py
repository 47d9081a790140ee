"""The code of a linearly closing closed chain (parallelograms): every function a serial arm's code has.

:mod:`designer.dynamics.closed_form` gives the closed forms in the actuated coordinates q_a (the
closure q_p = A q_a + c substituted exactly), so tau, M, G and h are written like a serial arm's
derived forms, and the Coriolis matrix is that derivation's Christoffel C (M_a' - 2 C_a skew).

A linear closure has a constant W = d q_tree / d q_a (the rows of A, and unit rows for the actuated
joints), so the drive data of every joint of the tree projects exactly, as constants and the
actuated rates: the reflected inertia N^2 Jm of tree joint i adds W_i^T N^2 Jm W_i to M_a (coupling
the actuated joints when a passive joint has a rotor), its friction b (W_i qd_a) + fc sign(W_i qd_a)
adds W_i^T times that to tau_a and h_a (a passive bearing's friction acts on every actuated joint
that turns it). The regressor is :mod:`designer.dynamics.closed_regressor_form`'s Y_a (tau_a = Y_a pi,
pi the tree's standard parameters), with the drive parameters' columns projected the same way.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import sympy as sp

from ..dynamics.closed_form import linear_closure
from ..dynamics.results import Equations
from ..jobs import NEVER, CancelToken
from ..model.drives import drive_arrays, has_drive_terms
from ..model.manipulator import Manipulator
from .control_plan import _as, drive_columns
from .plan import BASIC_FUNCTIONS, CodePlan, plan_code

__all__ = ["closed_rate_matrix", "closed_drive_terms", "closed_chain_plan", "CLOSED_DRIVES_STATEMENT"]

CLOSED_DRIVES_STATEMENT = ("drive terms of every joint of the tree added, projected by the constant W = "
                           "d q_tree / d q_a: W^T diag(N^2 Jm) W in M, W^T (N^2 Jm W qdd + b W qd + fc sign(W qd)) "
                           "in tau, the friction in h")


def closed_rate_matrix(model: Manipulator) -> list[list[int]]:
    """W (n_tree x n_a, integers) of a linearly closing mechanism: row i is tree joint i's rate per
    actuated rate. Raises NotLinearClosure."""
    act, pas, A, _ = linear_closure(model)
    W = [[0] * len(act) for _ in range(model.n)]
    for k, i in enumerate(act):
        W[i][k] = 1
    for r, i in enumerate(pas):
        W[i] = [int(a) for a in A[r]]
    return W


def _tree_rates(W: list[list[int]], carrier: Manipulator) -> dict:
    """{tree symbol: expression in the carrier's (actuated) symbols} for the tree's rates qd, qdd."""
    def row(i, syms):
        return sp.Add(*[a * s for a, s in zip(W[i], syms) if a])
    return {"qd": [row(i, carrier.qd) for i in range(len(W))], "qdd": [row(i, carrier.qdd) for i in range(len(W))]}


def closed_drive_terms(model: Manipulator, carrier: Manipulator) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """(W^T diag(N^2 Jm) W for M_a, W^T N^2 Jm W qdd_a for tau_a, W^T friction(W qd_a)): the drive data
    of ``model``'s tree joints in the actuated symbols of ``carrier`` (the closed form's model)."""
    W = closed_rate_matrix(model)
    refl, visc, coul = drive_arrays(model)
    rates = _tree_rates(W, carrier)
    na = carrier.n

    def num(v: float) -> sp.Expr:
        return sp.Float(v) if v else sp.Integer(0)
    dM = sp.zeros(na, na)
    inertia, friction = sp.zeros(na, 1), sp.zeros(na, 1)
    for i, w in enumerate(W):
        qd, qdd = rates["qd"][i], rates["qdd"][i]
        f = num(visc[i]) * qd + num(coul[i]) * sp.sign(qd)
        for a in range(na):
            if not w[a]:
                continue
            inertia[a] += w[a] * num(refl[i]) * qdd
            friction[a] += w[a] * f
            for b in range(na):
                if w[b]:
                    dM[a, b] += w[a] * w[b] * num(refl[i])
    return dM, inertia, friction


def closed_drive_columns(model: Manipulator, carrier: Manipulator) -> tuple[sp.Matrix, str]:
    """The regressor's drive-parameter columns of the tree's joints (:func:`~.control_plan.drive_columns`
    order), projected: W^T times the tree's columns at the tree rates W qd_a, W qdd_a."""
    W = closed_rate_matrix(model)
    Y, doc = drive_columns(model)
    rates = _tree_rates(W, carrier)
    subs = dict(zip(model.qd, rates["qd"])) | dict(zip(model.qdd, rates["qdd"]))
    Wt = sp.Matrix(W).T
    return (Wt * Y.xreplace(subs)).applyfunc(sp.expand), (doc.replace("of joint j", "of tree joint j, projected by W")
                                                       .replace("columns qdd_j, qd_j, sign(qd_j)",
                                                                "columns W_j^T times W_j qdd, W_j qd, sign(W_j qd)"))


def closed_chain_plan(eq: Equations, model: Manipulator, drives: bool, only: Collection[str],
                      token: CancelToken = NEVER) -> CodePlan:
    """The code plan of a linearly closing ``model`` from its closed forms ``eq`` (in the actuated
    coordinates): ``only`` any of tau, mass_matrix, gravity, bias, coriolis_matrix, regressor
    (:func:`~.files.full_plan` passes them); ``drives``: with every tree joint's drive data projected
    by W (see the module docstring)."""
    chosen = tuple(only)
    carrier = eq.model
    statement = ""
    if drives:
        dM, inertia, friction = closed_drive_terms(model, carrier)
        eq = replace(eq, mass_matrix=eq.mass_matrix + dM, tau=eq.tau + inertia + friction,
                     coriolis=eq.coriolis + friction)
        statement = CLOSED_DRIVES_STATEMENT
    elif has_drive_terms(model):
        statement = "drive terms of the project not added"
    plan = plan_code(eq, "derived", False, token=token, only=[f for f in chosen if f in BASIC_FUNCTIONS])
    plan = replace(plan, method="; ".join(filter(None, (f"{eq.method.value} (closed chain, closed form in the "
                                                        "actuated coordinates)", statement))))
    funcs = []
    Y, doc = _closed_regressor(model, carrier, drives, token) if "regressor" in chosen else (None, "")
    if Y is not None:   # geometry only the regressor reads (the length of a massless bar): more inputs
        known = {name for name, _ in plan.parameters} | {s.name for s in (*carrier.q, *carrier.qd, *carrier.qdd)}
        more = sorted({s.name for s in Y.free_symbols} - known)
        plan = replace(plan, parameters=plan.parameters + tuple((name, model.parameter_values.get(name))
                                                                for name in more))
    index = {name: k for k, (name, _) in enumerate(plan.parameters)}
    if "coriolis_matrix" in chosen:   # the drive terms leave C alone: W^T diag(N^2 Jm) W is constant
        funcs.append(_as("bias", "coriolis_matrix", eq.extras["coriolis_matrix"], carrier, index,
                         plan.temp_prefix, token))
    if Y is not None:
        func = _as("tau", "regressor", Y, carrier, index, plan.temp_prefix, token)
        text = func.doc.replace("per link", "per link of the tree (every joint, passive ones too)")
        funcs.append(replace(func, doc=text.replace("; row-major", doc + "; row-major")))
    return replace(plan, functions=plan.functions + tuple(funcs))


def _closed_regressor(model, carrier, drives, token) -> tuple[sp.Matrix, str]:
    from ..dynamics.closed_regressor_form import closed_regressor_matrix
    Y = closed_regressor_matrix(model, token)
    if not drives:
        return Y, ""
    columns, doc = closed_drive_columns(model, carrier)
    return Y.row_join(columns), doc
