"""Closed-form equations of a closed chain whose loops do not close linearly (a four-bar, a general loop).

A nonlinear closure has no polynomial q_p(q_a): the equations are written in the actuated joint
variables plus named *loop quantities*, each an explicit expression of the ones before it
(:class:`LoopQuantities`, printed above the matrices):

- qp_i: the passive positions: a planar four-bar's two circles with the nominal pose's branch
  (the steps of :func:`~designer.dynamics.loop_symbols.four_bar_angles`), otherwise "from the
  closure, numerically";
- detJp and W_i_k: W_p = -J_p^-1 J_a = -adj(J_p) J_a / det(J_p), J the loop Jacobian's independent
  rows (the compact form's choice), explicit in q and qp;
- dW_i_j_k = d W_p[i, j] / d q_a[k] (symmetric in j, k) by implicit differentiation,
  J_p dW = -(dJ_p W + dJ_a), explicit in q, qp and W: nothing is a finite difference;
- Newton-Euler only: the passive rates qdp = W_p qd_a and accelerations qddp = W_p qdd_a + dW[qd qd].

Everything else lives in the spanning tree's :class:`TrigRing` (every tree joint a variable, the loop
quantities opaque generators): the tree's Lee parts M_rot, M_tra and G, then with W = [I; W_p]
(rows in the tree's order)

- M_a = W^T M W (D_rot, D_tra likewise), G_a = W^T G;
- the Christoffel symbols of M_a (and of D_rot, D_tra: H_rot, H_tra) with the total derivative
  d/dq_a[k] = d/dq_a[k] + sum_i W_i_k d/dqp_i + sum_ij dW_i_j_k d/dW_i_j, so B and C are those of
  ROBMAT's form (:mod:`~designer.dynamics.lagrange`) and H includes the loops' W' qd terms;
- Newton-Euler: tau_a = W^T tau_tree(q, qd_tree, qdd_tree), the tree's closed form at the loop's rates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import sympy as sp

from ..errors import DesignerError
from ..jobs import NEVER, CancelToken, Job, Progress
from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import parents_of, path_to_base
from .assemble import to_matrix_job
from .closed_form import (_christoffel, _frames_job, _Tree, actuated_model, cut_frame, method_rows,
                          tree_mass_gravity_job, world_frame)
from .results import Equations, Form, Method, SimplifyMode

__all__ = ["LoopQuantity", "LoopQuantities", "NonlinearClosedError", "nonlinear_equations_job", "NUMERIC_CLOSURE"]

#: what a passive position's definition says when the closure has no closed form
NUMERIC_CLOSURE = "from the closure, numerically"


@dataclass(frozen=True)
class LoopQuantity:
    """One named loop quantity: its symbol, its value (None: :data:`NUMERIC_CLOSURE`) and its kind
    (closure, qp, det, W, dW, qdp, qddp)."""

    symbol: sp.Symbol
    value: sp.Expr | None
    kind: str


@dataclass(frozen=True)
class LoopQuantities:
    """The definitions in evaluation order, the mechanism (the tree) and its actuated and passive joints."""

    items: tuple[LoopQuantity, ...]
    mechanism: Manipulator
    act: tuple[int, ...]
    pas: tuple[int, ...]
    closure: str   # "four-bar" or "input"

    @property
    def symbols(self) -> set[sp.Symbol]:
        return {it.symbol for it in self.items}


class NonlinearClosedError(DesignerError):
    """A mechanism whose nonlinear closed form cannot be written."""


def _det_adj(tr, A: list[list]) -> tuple:
    """(det A, adj A) of a square matrix of ring elements (Laplace expansion, minors memoized)."""
    n = len(A)
    memo: dict = {}

    def det(rows: tuple, cols: tuple):
        if not rows:
            return tr.one
        key = (rows, cols)
        if key not in memo:
            r, out = rows[0], tr.zero
            for k, c in enumerate(cols):
                if A[r][c]:
                    minor = det(rows[1:], cols[:k] + cols[k + 1:])
                    out += (1 if k % 2 == 0 else -1) * tr.mul(A[r][c], minor)
            memo[key] = tr.reduce(out)
        return memo[key]
    idx = tuple(range(n))
    adj = [[(1 if (i + j) % 2 == 0 else -1) * det(tuple(r for r in idx if r != j), tuple(c for c in idx if c != i))
            for j in range(n)] for i in range(n)]
    return det(idx, idx), adj


def _loop_rows(t: _Tree, token: CancelToken) -> list[dict]:
    """The stacked loop Jacobian's rows as {tree joint: ring element}, in kinematics/tree.py's order."""
    from .loop_symbols import PAIRS
    tr, model = t.tr, t.model
    parents = parents_of(model.links)
    placed: dict = {}

    def path(link: int) -> set[int]:   # 0-based joints between link (1-based, 0 the base) and the base
        return {k - 1 for k in path_to_base(parents, link)} if link > 0 else set()

    def axis(i: int):
        if model.convention is Convention.MODIFIED:
            R, o = world_frame(t, placed, i + 1, token)
            return o, [R[0][2], R[1][2], R[2][2]]
        R, o = world_frame(t, placed, parents[i], token)
        z = [R[0][2], R[1][2], R[2][2]]
        b = tr.var(model.links[i].b)
        return ([o[r] + tr.mul(b, z[r]) for r in range(3)] if b else o), z

    def column(i: int, p):
        o, z = axis(i)
        if model.links[i].is_revolute:
            return tr.cross(z, [p[r] - o[r] for r in range(3)], token), z
        return z, [tr.zero] * 3
    rows: list[dict] = []
    for loop in model.loops:
        pi, Fi = cut_frame(t, placed, loop.link_i, loop.frame_i, token)
        pj, Fj = cut_frame(t, placed, loop.link_j, loop.frame_j, token)
        side_i, side_j = path(loop.link_i), path(loop.link_j)
        pos: list[dict] = [{} for _ in range(3)]
        ang: dict = {}
        for sign, only, p in ((1, side_i - side_j, pi), (-1, side_j - side_i, pj)):
            for k in only:
                jv, jw = column(k, p)
                for r in range(3):
                    pos[r][k] = sign * jv[r]
                ang[k] = (sign, jw)
        rows += pos
        for a, b in PAIRS[loop.joint]:
            ax = tr.cross(Fj[a], Fi[b], token)
            rows.append({k: -sign * tr.dot(ax, jw, token) for k, (sign, jw) in ang.items()})
    return rows


def nonlinear_equations_job(model: Manipulator, method: Method = Method.LAGRANGE,
                            simplify: SimplifyMode = SimplifyMode.FAST,
                            token: CancelToken = NEVER) -> Job[Equations]:
    """Generator returning the closed-form :class:`Equations` (``extras["loop_quantities"]``: the
    :class:`LoopQuantities` its matrices read) of a mechanism whose loops do not close linearly."""
    from ..model.angles import exact_angles
    from .closed_compact import _nonlinear_positions, _row_choice, needed_steps
    from .customized import ZERO
    from .loop_symbols import Steps
    method, simplify = Method(method), SimplifyMode(simplify)
    started = time.perf_counter()
    yield Progress("closure", 0.0, model.name)
    exact = exact_angles(model).model
    n = exact.n
    act = [i for i, link in enumerate(exact.links) if link.actuated]
    pas = [i for i, link in enumerate(exact.links) if not link.actuated]
    na = len(act)
    taken = set(exact.symbol_names())
    S = lambda name: sp.Symbol(name, real=True)  # noqa: E731
    qp = [S(f"qp{i + 1}") for i in pas]
    Ws = [[S(f"W{i + 1}_{k + 1}") for k in range(na)] for i in pas]
    dWs = {(r, j, k): S(f"dW{i + 1}_{j + 1}_{k + 1}") for r, i in enumerate(pas) for j in range(na)
           for k in range(j, na)}
    qdp, qddp = [S(f"qdp{i + 1}") for i in pas], [S(f"qddp{i + 1}") for i in pas]
    det_sym = S("detJp")
    clash = sorted(s.name for s in (*qp, *sum(Ws, []), *dWs.values(), *qdp, *qddp, det_sym) if s.name in taken)
    if clash:
        raise NonlinearClosedError(f"the parameter {clash[0]} has the name of a loop quantity of the closed form: "
                                   "rename it")
    carrier = actuated_model(model, act)
    # the passive positions: the compact form's four-bar steps (in the carrier's names), or inputs
    steps = Steps()
    q_list = [ZERO] * n
    for k, i in enumerate(act):
        q_list[i] = carrier.q[k]
    kind, _ = _nonlinear_positions(exact, act, pas, q_list, steps)
    items: list[LoopQuantity] = []
    if kind == "four-bar":
        for sym, value in needed_steps(steps.items, [q_list[i] for i in pas]):
            items.append(LoopQuantity(S(sym.name), value, "qp" if sym.name.startswith("qp") else "closure"))
    else:
        items += [LoopQuantity(s, None, "qp") for s in qp]
    chosen = _row_choice(exact, pas)
    token.check()
    t = _Tree(exact, list(range(n)), [], [], [], [*sum(Ws, []), *dWs.values(), *qdp, *qddp])
    tr = t.tr
    yield Progress("loop Jacobian", 0.1, model.name)
    rows = _loop_rows(t, token)
    Jp = [[rows[r].get(i, tr.zero) for i in pas] for r in chosen]
    Ja = [[rows[r].get(i, tr.zero) for i in act] for r in chosen]
    det, adj = _det_adj(tr, Jp)
    Wg = [[tr.gens[s] for s in row] for row in Ws]
    dWg = {key: tr.gens[s] for key, s in dWs.items()}
    npas = len(pas)
    num_W = [[tr.reduce(-sum((tr.mul(adj[r][s], Ja[s][k]) for s in range(npas)), tr.zero)) for k in range(na)]
             for r in range(npas)]

    def total(p, k: int, through_W: bool = True):
        """d p / d q_a[k] along the closure (the module text)."""
        out = tr.diff_q(p, act[k])
        for r, i in enumerate(pas):
            out += tr.mul(tr.diff_q(p, i), Wg[r][k])
        if through_W:
            for r in range(npas):
                for j in range(na):
                    d = p.diff(Wg[r][j])
                    if d:
                        out += tr.mul(d, dWg[r, min(j, k), max(j, k)])
        return tr.reduce(out)
    num_dW = {}
    for j in range(na):
        for k in range(j, na):
            token.check()
            yield Progress("dW/dq", 0.2, f"column {j + 1}, q{k + 1}")
            rhs = []
            for s in range(npas):   # a check per row: one pair of a large loop's takes minutes
                token.check()
                rhs.append(tr.reduce(sum((tr.mul(total(Jp[s][p], k, False), Wg[p][j]) for p in range(npas)),
                                         tr.zero) + total(Ja[s][j], k, False)))
            for r in range(npas):
                token.check()
                num_dW[r, j, k] = tr.reduce(-sum((tr.mul(adj[r][s], rhs[s]) for s in range(npas)), tr.zero))
    frames = yield from _frames_job(t, token)
    Mr_t, Mt_t, G_t = yield from tree_mass_gravity_job(t, frames, token)
    Wf = [[tr.one if i == act[k] else tr.zero for k in range(na)] for i in range(n)]
    for r, i in enumerate(pas):
        Wf[i] = list(Wg[r])

    def project(Mx):
        MW = [[tr.reduce(sum((tr.mul(Mx[i][j], Wf[j][b]) for j in range(n)), tr.zero)) for b in range(na)]
              for i in range(n)]
        return [[tr.reduce(sum((tr.mul(Wf[i][a], MW[i][b]) for i in range(n)), tr.zero)) for b in range(na)]
                for a in range(na)]
    yield Progress("projection", 0.5, model.name)
    D_rot, D_tra = project(Mr_t), project(Mt_t)
    M = [[D_rot[a][b] + D_tra[a][b] for b in range(na)] for a in range(na)]
    G = [tr.reduce(sum((tr.mul(Wf[i][k], G_t[i]) for i in range(n)), tr.zero)) for k in range(na)]

    def christoffel(Mx) -> list:
        return _christoffel(tr, Mx, act, token, total)
    qd = [tr.gens[exact.qd[i]] for i in act]
    qdd = [tr.gens[exact.qdd[i]] for i in act]

    def contract(c) -> list:
        return [tr.reduce(sum((tr.mul(c[i][j][k], tr.mul(qd[j], qd[k])) for j in range(na) for k in range(na)),
                              tr.zero)) for i in range(na)]
    yield Progress("Christoffel symbols", 0.6, model.name)
    c_all = christoffel(M)
    h = contract(c_all)
    raw = method_rows(method, M, G, c_all, (D_rot, D_tra), christoffel, contract)
    raw["h"] = [[x] for x in h]
    if method is Method.NEWTON_EULER:   # the tree's closed form at the loop's rates, projected
        qd_t = [tr.gens[qdp[pas.index(i)]] if i in pas else tr.gens[exact.qd[i]] for i in range(n)]
        qdd_t = [tr.gens[qddp[pas.index(i)]] if i in pas else tr.gens[exact.qdd[i]] for i in range(n)]
        c_t = _christoffel(tr, [[Mr_t[a][b] + Mt_t[a][b] for b in range(n)] for a in range(n)], list(range(n)), token)
        tau_t = [tr.reduce(sum((tr.mul(Mr_t[i][k] + Mt_t[i][k], qdd_t[k]) for k in range(n)), tr.zero)
                           + sum((tr.mul(c_t[i][j][k], tr.mul(qd_t[j], qd_t[k])) for j in range(n) for k in range(n)),
                                 tr.zero) + G_t[i]) for i in range(n)]
        raw["tau"] = [[tr.reduce(sum((tr.mul(Wf[i][k], tau_t[i]) for i in range(n)), tr.zero))] for k in range(na)]
    else:
        raw["tau"] = [[tr.reduce(sum((tr.mul(M[i][k], qdd[k]) for k in range(na)), tr.zero) + h[i] + G[i])]
                      for i in range(na)]
    rename = {exact.q[i]: s for i, s in zip(pas, qp)}
    for k, i in enumerate(act):
        rename.update({exact.q[i]: carrier.q[k], exact.qd[i]: carrier.qd[k], exact.qdd[i]: carrier.qdd[k]})
    mats: dict[str, sp.Matrix] = {}
    for name, rows_ in raw.items():
        m = yield from to_matrix_job(exact, tr, rows_, simplify, name, token, name in ("M", "D_rot", "D_tra"))
        mats[name] = m.xreplace(rename)
    # the loop quantities' definitions, simplified as the matrices are
    dets = yield from to_matrix_job(exact, tr, [[det]], simplify, "det J_p", token)
    items.append(LoopQuantity(det_sym, dets[0, 0].xreplace(rename), "det"))
    nums = yield from to_matrix_job(exact, tr, num_W, simplify, "W_p", token)
    items += [LoopQuantity(Ws[r][k], nums[r, k].xreplace(rename) / det_sym, "W")
              for r in range(npas) for k in range(na)]
    keys = sorted(num_dW)
    if keys:
        dnum = yield from to_matrix_job(exact, tr, [[num_dW[key] for key in keys]], simplify, "dW_p", token)
        items += [LoopQuantity(dWs[key], dnum[0, c].xreplace(rename) / det_sym, "dW") for c, key in enumerate(keys)]
    if method is Method.NEWTON_EULER:
        for r in range(npas):
            items.append(LoopQuantity(qdp[r], sp.Add(*[Ws[r][k] * carrier.qd[k] for k in range(na)]), "qdp"))
        for r in range(npas):
            items.append(LoopQuantity(qddp[r], sp.Add(*[Ws[r][k] * carrier.qdd[k] for k in range(na)],
                                                      *[dWs[r, min(j, k), max(j, k)] * carrier.qd[j] * carrier.qd[k]
                                                        for j in range(na) for k in range(na)]), "qddp"))
    loops = LoopQuantities(tuple(items), model, tuple(act), tuple(pas), kind)
    C = sp.Matrix(na, na, lambda i, j: tr.expr(sum((tr.mul(c_all[i][j][k], qd[k]) for k in range(na)), tr.zero)))
    how = ("the planar four-bar's two circles (branch: the nominal pose's)" if kind == "four-bar"
           else NUMERIC_CLOSURE)
    names = ", ".join(f"q{i + 1}" for i in pas)
    carrier = replace(carrier, description=f"Nonlinear loop closure: the passive joints {names} of the mechanism are "
                      f"the loop quantities qp (from {how}); W, dW and detJp are defined in the section Loop "
                      "quantities. " + carrier.description)
    seconds = time.perf_counter() - started
    extras = {"closed_chain": {"actuated": [f"q{k + 1} is the tree's q{i + 1}" for k, i in enumerate(act)],
                               "numbers": tuple(i + 1 for i in act),   # the tree's number of q1..q_na
                               "closure": [f"passive positions from {how}"], "mechanism": model},
              "loop_quantities": loops, "coriolis_matrix": C.xreplace(rename), "seconds": seconds}
    form = {"lagrange": ("M", "B", "C", "G"), "newton-euler": ("tau",),
            "dalembert": ("D_rot", "D_tra", "H_rot", "H_tra", "G")}[method.value]
    yield Progress("done", 1.0, f"{method.value} (closed chain, nonlinear closed form) in {seconds:.2f} s")
    return Equations(method=method, model=carrier, simplify=simplify, matrices={k: mats[k] for k in form},
                     tau=mats["tau"], mass_matrix=mats["M"], gravity=mats["G"], coriolis=mats["h"],
                     extras=extras, form=Form.CLOSED)
