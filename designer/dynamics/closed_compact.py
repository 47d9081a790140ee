"""The compact (recursive) form of any closed chain in its actuated coordinates: named steps.

The tree's customized Newton-Euler recursion (:mod:`~designer.dynamics.tree_recursion`) over the tree's
q, qd, qdd, and the projection onto the actuated joints written as steps, one short assignment each:

1. the passive positions q_p from the closure: q_p = A q_a + c for a linear closure (a parallelogram),
   the two circles of a planar four-bar (the branch a sign, the nominal pose's), else inputs (``qp``:
   the caller solves the closure numerically, kinematics/closure.py);
2. the loop Jacobian J = [J_a J_p] in symbols (loop_symbols.py), n_p independent rows of it (chosen at
   the nominal pose), J_p factored (LU, the pivot order of the nominal pose), and
   W_p = -J_p^-1 J_a = d q_p / d q_a (a linear closure: A, nothing to compute);
3. the passive rates qd_p = W_p qd_a and accelerations qdd_p = W_p qdd_a + b with b = -J_p^-1 J' qd;
4. the tree's recursion (its torques named taut<j>), then tau_a = tau_tree,a + W_p^T tau_tree,p (= W^T tau_tree).

M_a, G_a and h_a for code generation come from the same steps: M_a e_k = W^T tau_tree(q, 0, W e_k)
without gravity, G_a = W^T tau_tree(q, 0, 0) with it, h_a = W^T tau_tree(q, qd, b) without it.

The equations are over the actuated model of :func:`~designer.dynamics.closed_form.actuated_model`
(q1..q_na); the passive joints are named qp<i>, qdp<i>, qddp<i> with the tree's index i.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..errors import DesignerError
from ..graphs.cse import graph_symbols
from ..jobs import NEVER, CancelToken, Job, Progress, run
from ..model.manipulator import Manipulator
from .customized import ZERO, _add, _mul
from .loop_symbols import Geometry, Steps, four_bar_angles, loop_rows
from .recursive_form import Assignment, RecursiveForm
from .results import Equations, Form, Method, SimplifyMode
from .tree_recursion import tree_joints, tree_tau_named

__all__ = ["ClosedCompact", "closed_compact", "closed_compact_job", "closed_compact_equations_job",
           "CLOSED_KINDS", "needed_steps", "parameter_names"]

#: the projection's kinds of step (the report's legend, beside the recursion's KINDS)
CLOSED_KINDS = {
    "qp": "passive joint positions from the loop closure",
    "T0": "rotation Rz and origin oz of link frame j in frame 0, the passive joints at 0",
    "T": "rotation R and origin o of link frame j in frame 0",
    "J": "loop Jacobian entries (selected rows) and their LU factors",
    "W": "W_p = d q_p / d q_a = -J_p^-1 J_a",
    "qdp": "passive joint rates qd_p = W_p qd_a",
    "V": "angular and linear velocity and acceleration (zero joint accelerations) of link j in frame 0",
    "Jd": "rate term J' qd of the selected loop rows",
    "qddp": "passive accelerations qdd_p = W_p qdd_a + b, b = -J_p^-1 J' qd",
}


class ClosedCompactError(DesignerError):
    """A closed chain whose projection cannot be written (its loops do not determine the passive joints)."""


@dataclass(frozen=True)
class ClosedCompact:
    """The steps and the four quantities over them (see the module docstring).

    ``closure``: "linear", "four-bar" or "input" (then ``inputs`` are the passive positions' symbols the
    generated code takes as its ``qp`` argument, in the tree's order of the passive joints)."""

    carrier: Manipulator
    steps: tuple[Assignment, ...]
    tau: sp.Matrix
    mass_matrix: sp.Matrix
    gravity: sp.Matrix
    bias: sp.Matrix
    closure: str
    inputs: tuple[sp.Symbol, ...]
    #: the projection (the drive terms read it): the tree model, its actuated and passive joints' indices,
    #: W_p (rows: passive joints), and the tree's rates, accelerations and those at qdd_a = 0 (b), in steps
    tree: Manipulator | None = None
    act: tuple[int, ...] = ()
    pas: tuple[int, ...] = ()
    Wp: tuple[tuple, ...] = ()
    tree_qd: tuple = ()
    tree_qdd: tuple = ()
    tree_qdd0: tuple = ()
    #: the tree's joint frames (tree_recursion.TreeJoint, passive positions the steps' qp) and the tau
    #: recursion's outward pass, per joint (w, wd, vd, U) over the steps' symbols: the regressor reads them
    joints: tuple = ()
    motion: tuple = ()


def parameter_names(cc: ClosedCompact) -> list[str]:
    """The parameters ``cc``'s steps and quantities read (its carrier model names the actuated links' only; each
    shared node of the graphs visited once: ``free_symbols`` walked a 19-link chain's for minutes)."""
    defined = {a.symbol for a in cc.steps} | set(cc.inputs)
    defined |= set(cc.carrier.q) | set(cc.carrier.qd) | set(cc.carrier.qdd)
    exprs = [a.value for a in cc.steps] + [e for m in (cc.tau, cc.mass_matrix, cc.gravity, cc.bias)
                                            if m is not None for e in m]
    return sorted({s.name for s in graph_symbols(exprs)} - {s.name for s in defined})


def needed_steps(steps, exprs) -> list:
    """The (symbol, value) pairs of ``steps`` the expressions read, in order."""
    value = {a.symbol: a.value for a in steps}
    need: set = set()
    todo = graph_symbols(exprs)   # each shared node once (free_symbols walks a 19-link chain's graph for minutes)
    while todo:
        s = todo.pop()
        if s in value and s not in need:
            need.add(s)
            todo |= graph_symbols([value[s]])
    return [(a.symbol, a.value) for a in steps if a.symbol in need]


def _row_choice(model: Manipulator, pas: list[int]):
    """(rows, pivot order, nominal J_p) chosen numerically at the reference pose (the nominal pose, assembled where
    its loops do not close: :func:`designer.kinematics.closure.assemble`): n_p independent rows of
    the stacked loop Jacobian (greedy Gram-Schmidt), then partial pivoting's order on them."""
    from ..kinematics.closure import Closure
    from ..kinematics.tree import TreeArm
    tree = TreeArm.from_model(model)
    closure = Closure(tree)   # the mechanism's checks: loops that cannot be assembled, mobility (ClosureError)
    J = tree.loop_terms(closure.reference).jacobian[:, pas]
    scale = max(1.0, float(np.abs(J).max(initial=0.0)))
    chosen: list[int] = []
    basis: list[np.ndarray] = []
    for _ in pas:
        best, best_norm, best_vec = -1, 1e-9 * scale, np.zeros(J.shape[1])
        for r in range(J.shape[0]):
            if r in chosen:
                continue
            v = J[r].copy()
            for e in basis:
                v -= (v @ e) * e
            if np.linalg.norm(v) > best_norm:
                best, best_norm, best_vec = r, float(np.linalg.norm(v)), v
        if best < 0:
            raise ClosedCompactError("the loops do not determine the passive joints at the reference pose "
                                     "(every actuated joint 0, the loops closed; docs/closed-chains.md)")
        chosen.append(best)
        basis.append(best_vec / best_norm)
    A = J[chosen].copy()
    order = list(range(len(chosen)))
    for k in range(len(order)):   # partial pivoting on the chosen rows
        p = k + int(np.argmax(np.abs(A[order[k:], k])))
        order[k], order[p] = order[p], order[k]
        for r in order[k + 1:]:
            A[r] -= A[r, k] / A[order[k], k] * A[order[k]]
    return [chosen[k] for k in order]


class _LU:
    """J_p = L U in symbols (rows already in pivot order), named; solve() gives named solutions."""

    def __init__(self, Jp: list[list], steps: Steps):
        n = len(Jp)
        U = [list(r) for r in Jp]
        self.L = [[ZERO] * n for _ in range(n)]
        for k in range(n):
            for r in range(k + 1, n):
                if U[r][k] == 0:
                    continue
                lf = steps.one("J", f"Jl{r + 1}{k + 1}", U[r][k] / U[k][k])
                self.L[r][k] = lf
                U[r] = [ZERO] * (k + 1) + [steps.one("J", f"Ju{r + 1}{c + 1}_{k + 1}",
                                                     _add(U[r][c], -_mul(lf, U[k][c]))) for c in range(k + 1, n)]
        self.U, self.n, self.steps = U, n, steps

    def solve(self, rhs: list, kind: str, names: list[str]) -> list:
        """x with J_p x = rhs (named ``names``, of ``kind``): forward then back substitution."""
        y: list = []
        for r in range(self.n):
            y.append(_add(rhs[r], *[-_mul(self.L[r][k], y[k]) for k in range(r)]))
        x: list = [ZERO] * self.n
        for r in reversed(range(self.n)):
            x[r] = self.steps.one(kind, names[r], _add(y[r], *[-_mul(self.U[r][c], x[c]) for c in range(r + 1, self.n)])
                                  / self.U[r][r])
        return x


def closed_compact_job(model: Manipulator, token: CancelToken = NEVER,
                       need: Collection[str] = ("tau", "M", "G", "h")) -> Job[ClosedCompact]:
    """Generator returning the :class:`ClosedCompact` of ``model`` (exact angles read)."""
    from ..model.angles import exact_angles
    from .closed_form import NotLinearClosure, actuated_model, linear_closure
    exact = exact_angles(model).model
    act = [i for i, l in enumerate(exact.links) if l.actuated]
    pas = [i for i, l in enumerate(exact.links) if not l.actuated]
    carrier = actuated_model(model, act)
    taken = set(exact.symbol_names())
    for i in pas:
        for stem in ("qp", "qdp", "qddp"):
            if f"{stem}{i + 1}" in taken:
                raise ClosedCompactError(f"the parameter {stem}{i + 1} has the name of a passive joint's variable in "
                                         "the compact form: rename it")
    q, qd, qdd = [ZERO] * exact.n, [ZERO] * exact.n, [ZERO] * exact.n
    for k, i in enumerate(act):
        q[i], qd[i], qdd[i] = carrier.q[k], carrier.qd[k], carrier.qdd[k]
    qd_sym = {i: sp.Symbol(f"qdp{i + 1}", real=True) for i in pas}
    qdd_sym = {i: sp.Symbol(f"qddp{i + 1}", real=True) for i in pas}
    steps = Steps()
    yield Progress("closure", 0.0, model.name)
    inputs: tuple = ()
    tree_qd = [qd_sym.get(i, qd[i]) for i in range(exact.n)]
    try:
        _, _, A, c = linear_closure(exact)
    except NotLinearClosure:
        kind, g0 = _nonlinear_positions(exact, act, pas, q, steps)
        if kind == "input":
            inputs = tuple(q[i] for i in pas)
        token.check()
        yield Progress("loop Jacobian", 0.2, model.name)
        Wp, bias = _loop_projection(exact, act, pas, q, tree_qd, carrier, steps, g0)
    else:
        kind = "linear"
        for r, i in enumerate(pas):
            q[i] = steps.one("qp", f"qp{i + 1}", sp.Add(*[a * carrier.q[k] for k, a in enumerate(A[r]) if a], c[r]),
                             i + 1, keep=True)
        Wp = [[sp.Integer(a) for a in row] for row in A]
        _passive_rates(steps, carrier, pas, Wp)
        bias = [ZERO] * len(pas)
    for r, i in enumerate(pas):
        steps.one("qddp", f"qddp{i + 1}", _add(*[_mul(Wp[r][k], carrier.qdd[k]) for k in range(len(act))], bias[r]),
                  i + 1, keep=True)
    yield Progress("tree recursion", 0.4, model.name)
    joints = tree_joints(exact, q)
    tree_qdd = [qdd_sym.get(i, qdd[i]) for i in range(exact.n)]

    motion: dict = {}

    def name(kind_: str, j: int, values: list) -> list:   # as recursive_form names them; the tree's tau: taut
        if kind_ == "U":
            out = steps.mat("U", f"U{j + 1}", values, j + 1)
        elif kind_ == "tau":
            return [steps.one("tau", f"taut{j + 1}", values[0], j + 1)]
        else:
            out = steps.vec(kind_, f"{kind_}{j + 1}", values, j + 1)
        motion[kind_, j] = out
        return out
    tau_tree = tree_tau_named(exact, joints, tree_qd, tree_qdd, True, name, token)

    def project(t: list) -> list:
        return [_add(t[i], *[_mul(Wp[r][k], t[p]) for r, p in enumerate(pas)]) for k, i in enumerate(act)]
    tau = project(tau_tree)
    na, zeros = len(act), [ZERO] * exact.n
    M = G = h = None
    qdd_b = [ZERO] * exact.n
    for r, i in enumerate(pas):
        qdd_b[i] = bias[r]
    if "M" in need:
        yield Progress("mass matrix", 0.6, model.name)
        cols_M = []
        for k in range(na):
            unit = [ZERO] * exact.n
            unit[act[k]] = sp.S.One
            for r, i in enumerate(pas):
                unit[i] = Wp[r][k]
            cols_M.append(project(tree_tau_named(exact, joints, zeros, unit, False, token=token)))
        M = sp.Matrix(na, na, lambda r, k: cols_M[min(r, k)][max(r, k)])   # symmetric: the upper triangle
    if "G" in need:
        G = sp.Matrix(project(tree_tau_named(exact, joints, zeros, zeros, True, token=token)))
    if "h" in need:
        h = sp.Matrix(project(tree_tau_named(exact, joints, tree_qd, qdd_b, False, token=token)))
    outward = tuple(tuple(motion[k, j] for k in ("w", "wd", "vd", "U")) for j in range(exact.n))
    return ClosedCompact(carrier, tuple(steps.items), sp.Matrix(tau), M, G, h, kind, inputs, exact, tuple(act),
                         tuple(pas), tuple(tuple(r) for r in Wp), tuple(tree_qd), tuple(tree_qdd), tuple(qdd_b),
                         tuple(joints), outward)


def _passive_rates(steps: Steps, carrier: Manipulator, pas: list[int], Wp: list[list]) -> None:
    """qd_p = W_p qd_a, named qdp<i>."""
    for r, i in enumerate(pas):
        steps.one("qdp", f"qdp{i + 1}", _add(*[_mul(w, qd) for w, qd in zip(Wp[r], carrier.qd)]), i + 1, keep=True)


def _loop_projection(exact: Manipulator, act, pas, q: list, tree_qd: list, carrier: Manipulator, steps: Steps,
                     g0: Geometry | None) -> tuple[list[list], list]:
    """(W_p, b) of a closure that is not linear, named: the loop Jacobian's independent rows, J_p's LU
    factors, W_p = -J_p^-1 J_a, the passive rates, the rate term J' qd, b = -J_p^-1 J' qd."""
    g = Geometry(exact, q, steps)
    if g0 is not None:   # the frames no passive joint moves are the ones the closure named already
        g.reuse(g0, set(pas))
    rows, _ = loop_rows(g)
    chosen = _row_choice(exact, pas)
    Jp = [[steps.one("J", f"J{r + 1}_{i + 1}", rows[r].get(i, ZERO)) for i in pas] for r in chosen]
    Ja = [[steps.one("J", f"J{r + 1}_{i + 1}", rows[r].get(i, ZERO)) for i in act] for r in chosen]
    lu = _LU(Jp, steps)
    cols = [lu.solve([-row[k] for row in Ja], "W", [f"W{i + 1}_{k + 1}" for i in pas]) for k in range(len(act))]
    Wp = [[cols[k][r] for k in range(len(act))] for r in range(len(pas))]
    _passive_rates(steps, carrier, pas, Wp)
    _, rates = loop_rows(g, tree_qd)   # after qd_p: the rates read it
    jd = [steps.one("Jd", f"Jd{r + 1}", rates[r]) for r in chosen]
    return Wp, lu.solve([-x for x in jd], "qddp", [f"b{i + 1}" for i in pas])


def _nonlinear_positions(exact: Manipulator, act, pas, q: list, steps: Steps) -> tuple[str, Geometry | None]:
    """Fill q's passive entries: a planar four-bar's two circles ("four-bar", and the geometry at q_p = 0
    it used), else input symbols ("input", None)."""
    from ..kinematics.closure import Closure
    from ..kinematics.tree import TreeArm
    tree = TreeArm.from_model(exact)
    closure = Closure(tree)
    fb = closure.four_bar
    if fb is None:
        for i in pas:
            q[i] = sp.Symbol(f"qp{i + 1}", real=True)
        return "input", None
    _, axes = tree.joint_axes(tree.frames(np.zeros(tree.n)))
    signs = (1, int(np.sign(axes[fb.p2] @ axes[fb.p1])) or 1)
    at_zero = list(q)
    for i in pas:
        at_zero[i] = ZERO
    g0 = Geometry(exact, at_zero, steps, tag="z")
    t1, t2 = four_bar_angles(g0, fb, signs, steps)
    q[fb.p1] = steps.one("qp", f"qp{fb.p1 + 1}", t1, fb.p1 + 1, keep=True)
    q[fb.p2] = steps.one("qp", f"qp{fb.p2 + 1}", t2, fb.p2 + 1, keep=True)
    return "four-bar", g0


def closed_compact(model: Manipulator, token: CancelToken = NEVER) -> ClosedCompact:
    return run(closed_compact_job(model, token), None, token)


def closed_compact_equations_job(model: Manipulator, method: Method = Method.LAGRANGE,
                                 token: CancelToken = NEVER) -> Job[Equations]:
    """Generator returning the compact :class:`Equations` of a closed chain: ``extras["recursive"]`` the
    named steps (the report), ``extras["closed_compact"]`` the :class:`ClosedCompact` (code generation);
    tau, M, G, h read the steps' names (never print them whole)."""
    started = time.perf_counter()
    cc = yield from closed_compact_job(model, token)
    rf = RecursiveForm(cc.carrier, cc.steps, tuple(cc.tau))
    how = {"linear": "the linear closure q_p = A q_a + c",
           "four-bar": "the planar four-bar's two circles (branch: the nominal pose's)",
           "input": "inputs qp (no closed form: solve the closure numerically)"}[cc.closure]
    seconds = time.perf_counter() - started
    act = [i for i, link in enumerate(model.links) if link.actuated]
    extras = {"recursive": rf, "closed_compact": cc, "seconds": seconds,
              "closed_chain": {"actuated": [f"q{k + 1} is the tree's q{i + 1}" for k, i in enumerate(act)],
                               "numbers": tuple(i + 1 for i in act),   # the tree's number of q1..q_na
                               "closure": [how]},
              "angles_read": [f"Closed chain, compact form: the tree's recursion projected onto the actuated joints; "
                              f"passive positions from {how}."]}
    yield Progress("done", 1.0, f"compact closed-chain form in {seconds:.2f} s")
    return Equations(method=Method(method), model=cc.carrier, simplify=SimplifyMode.OFF, matrices={}, tau=cc.tau,
                     mass_matrix=cc.mass_matrix, gravity=cc.gravity, coriolis=cc.bias, extras=extras,
                     form=Form.COMPACT)


