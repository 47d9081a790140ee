"""Code plans beyond the four standard functions: the Coriolis matrix and the regressor (the code
with the base parameters as inputs is :mod:`designer.identification.code_plan`).

:func:`extra_functions` adds ``coriolis_matrix`` C(q, qd) (Christoffel form of the compact M, so
that dM/dt - 2C is skew; dM/dq_k by forward mode on M's shared graph, :mod:`.graph_diff`) and
``regressor`` Y(q, qd, qdd) (n x 10 n, standard parameters; with the drive terms, a column for each
drive parameter after them, in the order of :func:`designer.dynamics.inertial.drive_slots`).
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp
from sympy.core.parameters import distribute

from ..dynamics.inertial import drive_parameter_values, drive_slots
from ..dynamics.standard_ne import symbolic_regressor
from ..dynamics.tree import tree_mass_matrix
from ..jobs import NEVER, CancelToken
from ..model.angles import exact_angles
from ..model.manipulator import Manipulator
from .graph_diff import graph_diff
from .plan import CodeFunction, CodePlan, plan_function

__all__ = ["extra_functions", "drive_columns", "tree_coriolis_matrix", "with_functions"]

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


def drive_columns(model: Manipulator) -> tuple[sp.Matrix, str]:
    """(columns, doc): the regressor's columns of the drive parameters (n x k; qdd_j, qd_j and
    sign(qd_j) for Ia_j, fv_j and fc_j, in :func:`~designer.dynamics.inertial.drive_slots` order,
    as the numeric regressor has them) and what the header says about them ('' without drive data)."""
    slots = drive_slots(model)
    Y = sp.zeros(model.n, len(slots))
    for c, (j, kind) in enumerate(slots):
        Y[j, c] = {"Ia": model.qdd[j], "fv": model.qd[j], "fc": sp.sign(model.qd[j])}[kind]
    if not slots:
        return Y, ""
    values = ", ".join(f"{kind}{j + 1} = {float(v):.15g}" for (j, kind), v in zip(slots, drive_parameter_values(model)))
    return Y, (f"; then the {len(slots)} drive parameters (Ia reflected rotor inertia N^2 Jm, fv viscous and "
               f"fc Coulomb friction of joint j; columns qdd_j, qd_j, sign(qd_j)), the project's values: {values}")


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
            Y, _ = symbolic_regressor(exact, token)
        doc = ""
        if drives:
            columns, doc = drive_columns(model)
            Y = Y.row_join(columns)
        func = _as("tau", "regressor", Y, model, index, plan.temp_prefix, token)
        funcs.append(replace(func, doc=func.doc.replace("; row-major", doc + "; row-major")))
    return with_functions(plan, funcs)
