"""Code plans beyond the four standard functions: the Coriolis matrix and the regressor (the code
with the base parameters as inputs is :mod:`designer.identification.code_plan`).

:func:`extra_functions` adds ``coriolis_matrix`` C(q, qd) (Christoffel form of the compact M, so
that dM/dt - 2C is skew; dM/dq_k by forward mode on M's shared graph, :mod:`.graph_diff`) and
``regressor`` Y(q, qd, qdd) (n x 10 n, standard parameters; with the drive terms, a column for each
drive parameter after them, in the order of :func:`designer.dynamics.inertial.drive_slots`).

One plan for every mechanism (:func:`control_plan`): a linearly closing closed chain (parallelograms) gets
every function a serial arm's code has.
:mod:`designer.dynamics.closed_form` gives the closed forms in the actuated coordinates q_a (the
closure q_p = A q_a + c substituted exactly), so tau, M, G and h are written like a serial arm's
derived forms, and the Coriolis matrix is that derivation's Christoffel C (M_a' - 2 C_a skew).

A linear closure has a constant W = d q_tree / d q_a (the rows of A, and unit rows for the actuated
joints), so the drive data of every joint of the tree projects exactly, as constants and the
actuated rates: the reflected inertia N^2 Jm of tree joint i adds W_i^T N^2 Jm W_i to M_a (coupling
the actuated joints when a passive joint has a rotor), its friction b (W_i qd_a) + fc sign(W_i qd_a)
adds W_i^T times that to tau_a and h_a (a passive bearing's friction acts on every actuated joint
that turns it). The regressor is :func:`designer.dynamics.regressor_form.regressor_form`'s Y_a (tau_a = Y_a pi,
pi the tree's standard parameters), with the drive parameters' columns projected the same way.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import cast

import sympy as sp
from sympy.core.parameters import distribute

from ..dynamics.closed_form import rate_matrix
from ..dynamics.results import Equations, Form
from ..dynamics.regressor_form import regressor_form
from ..dynamics.tree import tree_mass_matrix
from ..jobs import NEVER, CancelToken
from ..model.angles import exact_angles
from ..model.drives import drive_arrays, has_drive_terms
from ..model.manipulator import Manipulator
from .compact_drives import drive_columns
from .graph_diff import graph_diff
from .plan import BASIC_FUNCTIONS, CodeFunction, CodePlan, plan_code, plan_function

__all__ = ["control_plan", "extra_functions", "tree_coriolis_matrix", "with_functions",
           "projected_drive_terms"]

_EXTRA_DOC = {
    "coriolis_matrix": "Coriolis matrix C(q, qd), h = C(q, qd) qd, dM/dt - 2C skew-symmetric; row-major",
    "regressor": "joint-torque regressor Y(q, qd, qdd), tau = Y pi with pi the 10 standard parameters per link "
                 "(m, mx, my, mz, XX, XY, XZ, YY, YZ, ZZ in link frame j about its origin); row-major",
}


def tree_coriolis_matrix(model: Manipulator, M: sp.Matrix | None = None, token: CancelToken = NEVER) -> sp.Matrix:
    """C(q, qd) from the Christoffel symbols of M(q) (default: the composite-rigid-body form)."""
    n = model.n
    M = tree_mass_matrix(model, token) if M is None else M
    # forward-mode on the shared graph: M.diff(q) would walk it as a tree (minutes for 7 joints)
    # (a symmetric M holds each off-diagonal entry once: the graph walk sees it once)
    dM = [sp.Matrix(n, n, column) for column in graph_diff(list(M), list(model.q), token)]
    qd = model.qd
    # qd_k / 2 as one shared node (a temporary after CSE): a number multiplying a sum would be
    # distributed over it whenever sympy rebuilds the product
    halves = [sp.Mul(sp.Rational(1, 2), v) for v in qd]

    def bracket(i: int, j: int, k: int) -> sp.Expr:
        """dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i as one unflattened sum: sympy's + would merge the
        terms of the three (large) sums into one, sort them and compare them deeply (seconds per
        entry for 12 joints) and leave copies the graph CSE cannot tell from the originals."""
        a, b, c = dM[k][i, j], dM[j][i, k], dM[i][j, k]
        if _same(c, a):
            return b
        if _same(c, b):
            return a
        return sp.Add(*[t for t in (a, b, -c) if t != 0], evaluate=False)   # one term: that term; none: 0

    def entry(i: int, j: int) -> sp.Expr:
        return sp.Add(*[halves[k] * bracket(i, j, k) for k in range(n)])
    with distribute(False):  # sympy would distribute -1 over the large sums and copy them
        return sp.Matrix(n, n, entry)


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    """Structural equality, the cached hashes first (== alone walks two large sums that differ
    deep down: 40 s over a 12-joint Coriolis matrix)."""
    return a is b or (hash(a) == hash(b) and a == b)


#: the Coriolis matrix and the regressor get sympy.cse's finer pass only up to this many shared nodes
#: (six-joint arms: about 450, 0.4 s for 15% fewer operations; a generic 7-joint arm's C has about
#: 1,000 and the pass would take 4 s)
REFINE = 600


def _as(template: str, name: str, mat: sp.Matrix, model: Manipulator, index: dict, prefix: str,
        token: CancelToken = NEVER) -> CodeFunction:
    """A CodeFunction for a quantity the plan module does not list, taking ``template``'s inputs."""
    func = plan_function(template, mat, model, index, prefix, REFINE, token=token)
    return replace(func, name=name, doc=_EXTRA_DOC[name])


def with_functions(plan: CodePlan, funcs: list[CodeFunction], parameters=None) -> CodePlan:
    return replace(plan, functions=plan.functions + tuple(funcs),
                   parameters=plan.parameters if parameters is None else parameters)


def extra_functions(plan: CodePlan, model: Manipulator, regressor: bool = True,
                    mass: sp.Matrix | None = None, Y: sp.Matrix | None = None,
                    token: CancelToken = NEVER, coriolis: bool = True, drives: bool = False) -> CodePlan:
    """``plan`` with coriolis_matrix (from ``mass``, default the compact M) and regressor added; the
    regressor uses only geometry parameters, which are already in the plan's list; ``drives``: with
    the columns of the drive parameters (:func:`drive_columns`) after the standard ones."""
    index = {name: k for k, (name, _) in enumerate(plan.parameters)}
    exact = exact_angles(model).model   # a twist of 1.5707963267948966 as pi/2, as the plan's forms read it
    funcs = []
    if coriolis:
        C = tree_coriolis_matrix(exact, mass, token)
        funcs.append(_as("bias", "coriolis_matrix", C, model, index, plan.temp_prefix, token))
    if regressor:
        if Y is None:
            Y = regressor_form(model, token)
        doc = ""
        if drives:
            columns, doc = drive_columns(model)
            Y = Y.row_join(columns)
        func = _as("tau", "regressor", Y, model, index, plan.temp_prefix, token)
        funcs.append(replace(func, doc=func.doc.replace("; row-major", doc + "; row-major")))
    return with_functions(plan, funcs)


_PROJECTED_DRIVES = ("drive terms of every joint of the tree added, projected by the constant W = "
                           "d q_tree / d q_a: W^T diag(N^2 Jm) W in M, W^T (N^2 Jm W qdd + b W qd + fc sign(W qd)) "
                           "in tau, the friction in h")


def _tree_rates(W: list[list[int]], carrier: Manipulator) -> dict:
    """{tree symbol: expression in the carrier's (actuated) symbols} for the tree's rates qd, qdd."""
    def row(i, syms):
        return sp.Add(*[a * s for a, s in zip(W[i], syms) if a])
    return {"qd": [row(i, carrier.qd) for i in range(len(W))], "qdd": [row(i, carrier.qdd) for i in range(len(W))]}


def projected_drive_terms(model: Manipulator, carrier: Manipulator) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """(W^T diag(N^2 Jm) W for M_a, W^T N^2 Jm W qdd_a for tau_a, W^T friction(W qd_a)): the drive data
    of ``model``'s tree joints in the actuated symbols of ``carrier`` (the closed form's model)."""
    W = rate_matrix(model)
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


def _projected_drive_columns(model: Manipulator, carrier: Manipulator) -> tuple[sp.Matrix, str]:
    """The regressor's drive-parameter columns of the tree's joints (:func:`~.compact_drives.drive_columns`
    order), projected: W^T times the tree's columns at the tree rates W qd_a, W qdd_a."""
    W = rate_matrix(model)
    Y, doc = drive_columns(model)
    rates = _tree_rates(W, carrier)
    subs = dict(zip(model.qd, rates["qd"])) | dict(zip(model.qdd, rates["qdd"]))
    Wt = sp.Matrix(W).T
    return (Wt * Y.xreplace(subs)).applyfunc(sp.expand), (doc.replace("of joint j", "of tree joint j, projected by W")
                                                       .replace("columns qdd_j, qd_j, sign(qd_j)",
                                                                "columns W_j^T times W_j qdd, W_j qd, sign(W_j qd)"))


def control_plan(eq: Equations, form, drives: bool, only: Collection[str], token: CancelToken = NEVER) -> CodePlan:
    """The code plan of any mechanism's equations ``eq``: ``only`` any of tau, mass_matrix, gravity, bias,
    coriolis_matrix, regressor (:func:`~.files.full_plan` passes them) in ``form`` (a
    :class:`~.plan.CodeForm`), ``drives``: with the drive terms. A serial arm's forms as derived, with the Coriolis
    matrix of M's Christoffel symbols and the tree's symbolic regressor (:func:`extra_functions`); a linearly
    closing closed chain's closed forms in the actuated coordinates (whatever ``form``), every tree joint's drive
    data projected by W (see the module docstring)."""
    from .plan import CodeForm
    chosen = tuple(only)
    basic = [f for f in chosen if f in BASIC_FUNCTIONS]
    closed = eq.extras.get("closed_chain")
    if closed is None:   # a mechanism without loops: W = I, the tree's own forms
        # a compact derivation's M (without drive terms: they leave C alone) is the graph C is differentiated from
        mass = eq.mass_matrix if eq.form is Form.COMPACT and CodeForm(form) is CodeForm.COMPACT else None
        plan = plan_code(eq, form, drives, token=token, only=basic)
        if "coriolis_matrix" not in chosen and "regressor" not in chosen:
            return plan
        return extra_functions(plan, eq.model, mass=mass, token=token, coriolis="coriolis_matrix" in chosen,
                               regressor="regressor" in chosen, drives=drives)
    model, carrier = cast("dict", closed)["mechanism"], eq.model
    statement = ""
    if drives:
        dM, inertia, friction = projected_drive_terms(model, carrier)
        eq = replace(eq, mass_matrix=eq.mass_matrix + dM, tau=eq.tau + inertia + friction,
                     coriolis=eq.coriolis + friction)
        statement = _PROJECTED_DRIVES
    elif has_drive_terms(model):
        statement = "drive terms of the project not added"
    plan = plan_code(eq, "derived", False, token=token, only=basic)
    plan = replace(plan, method="; ".join(filter(None, (f"{eq.method.value} (closed chain, closed form in the "
                                                        "actuated coordinates)", statement))))
    funcs = []
    Y, doc = _projected_regressor(model, carrier, drives, token) if "regressor" in chosen else (None, "")
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


def _projected_regressor(model, carrier, drives, token) -> tuple[sp.Matrix, str]:
    """A linearly closing chain's Y_a (tau_a = Y_a pi over the tree's standard parameters), with the drive
    parameters' columns projected by W."""
    Y = regressor_form(model, token)
    if not drives:
        return Y, ""
    columns, doc = _projected_drive_columns(model, carrier)
    return Y.row_join(columns), doc
