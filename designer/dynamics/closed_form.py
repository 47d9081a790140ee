"""Closed-form equations of motion of a closed chain whose loops close linearly (parallelograms).

A parallelogram's closure is q_p = A q_a + c with integer A (q3 = q4 - q2): substituted exactly,
every passive joint's cos and sin become polynomials in the actuated joints' c_k, s_k (angle sums
and multiples), so the tree's kinematics live in the same :class:`TrigRing` as a serial arm's and
the equations in the actuated coordinates come out in closed form, no projection left:

- the body Jacobians w.r.t. the actuated rates, by the outward recursion of
  :func:`~designer.dynamics.bodies.arm_frames_job` taken along the tree (each link from its
  parent, after Khalil-Kleinfinger's Rz(gamma) Tz(b)), each joint contributing its row of
  W = d q_tree / d q_a;
- M_a = sum m J_v^T J_v + J_w^T I J_w split as Lee's D_tra and D_rot, G_a = -sum m g^T J_v;
- the Christoffel symbols of M_a (and of each part: H_rot, H_tra), hence ROBMAT's B and C, h and tau.

The result is an :class:`Equations` over the *actuated* model: the actuated links in order, their
joint variables renumbered q1..q_na (``extras["closed_chain"]`` gives the tree's joint of each and
the closure), so that the reports and the code generators of serial arms print and compile it.
That model is a carrier of names: its links are not a serial arm (never hand it to the serial engines).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import sympy as sp

from ..errors import DesignerError
from ..jobs import NEVER, CancelToken, Job, Progress, run
from ..model.manipulator import Convention, Manipulator
from ..model.mechanism import parents_of
from .bodies import ArmFrames, bodies, link_rotation, rotate_back
from .assemble import to_matrix_job
from .results import Equations, Form, Method, SimplifyMode
from .trigpoly import TrigRing

__all__ = ["NotLinearClosure", "linear_closure", "rate_matrix", "closed_chain_equations",
           "closed_chain_equations_job", "actuated_model"]


class NotLinearClosure(DesignerError):
    """The loops do not close linearly: no closed form (the numeric commands take the mechanism)."""


def linear_closure(model: Manipulator):
    """(actuated indices, passive indices, A, c) with q_p = A q_a + c, A integer, c exact; raises
    NotLinearClosure. Detected at the default parameter values (kinematics.closure)."""
    from ..kinematics.closure import Closure
    from ..kinematics.tree import TreeArm
    closure = Closure(TreeArm.from_model(model))
    if closure.linear is None:
        raise NotLinearClosure("the loops do not close linearly (a four-bar or a general loop): no closed form "
                               "in the actuated joints; eval, torques and simulate solve them numerically")
    A = [[int(v) for v in row] for row in closure.linear.A]
    c = [sp.nsimplify(float(v), [sp.pi], tolerance=1e-12) for v in closure.linear.c]
    return list(closure.tree.actuated), list(closure.tree.passive), A, c


def rate_matrix(model: Manipulator) -> list[list[int]]:
    """W = d q_tree / d q_a (n_tree x n_a, integers) of a linearly closing mechanism: row i is tree joint i's
    rate per actuated rate (a serial arm's: the identity). Raises NotLinearClosure."""
    act, pas, A, _ = linear_closure(model)
    W = [[0] * len(act) for _ in range(model.n)]
    for k, i in enumerate(act):
        W[i][k] = 1
    for r, i in enumerate(pas):
        W[i] = [int(a) for a in A[r]]
    return W


def actuated_model(model: Manipulator, act: list[int]) -> Manipulator:
    """The carrier of the actuated coordinates' names (see the module docstring)."""
    links = tuple(replace(model.links[i], parent=None, actuated=True, gamma=0, b=0) for i in act)
    number = {i + 1: k + 1 for k, i in enumerate(act)}
    loads = tuple(p for p in model.point_masses if p.link in number)
    names = ", ".join(f"q{i + 1}" for i in act)
    note = (f"Closed chain: these equations are in the actuated coordinates, renumbered q1..q{len(act)} (the "
            f"mechanism's {names}); the link table lists the actuated links only, the project file holds the "
            "whole mechanism with its passive joints and loops. ")
    return replace(model, links=links, loops=(), point_masses=tuple(replace(p, link=number[p.link]) for p in loads),
                   name=model.name, tool=None, description=note + model.description)


class _Tree:
    """Joint trig and link placements of the tree in the ring, the passive joints substituted."""

    def __init__(self, model: Manipulator, act, pas, A, c, more=()):
        """``more``: further symbols the ring must hold (a nonlinear closure's named loop quantities)."""
        self.model, self.act = model, act
        n = model.n
        self.rate = [[0] * len(act) for _ in range(n)]      # rows of W: joint i's rate per actuated rate
        self.shift = [sp.S.Zero] * n
        for k, i in enumerate(act):
            self.rate[i][k] = 1
        for r, i in enumerate(pas):
            self.rate[i] = list(A[r])
            self.shift[i] = c[r]
        extra = []
        self.delta = {}
        for i in pas:
            if model.links[i].is_revolute:
                d = sp.nsimplify(model.links[i].theta + self.shift[i]
                                 - sum((a * model.links[act[k]].theta for k, a in enumerate(self.rate[i])), sp.S.Zero))
                self.delta[i] = d
                extra += [sp.cos(d), sp.sin(d)]
        for link in model.links:
            extra += [sp.cos(link.gamma), sp.sin(link.gamma)]
        for loop in model.loops:
            extra += list(loop.frame_i.sym_matrix()) + list(loop.frame_j.sym_matrix())
        self.tr = TrigRing(model, extra + list(more))

    def trig(self, i: int):
        tr = self.tr
        if i not in self.delta:
            return tr.joint_trig(i)
        C, S = tr.one, tr.zero
        for k, a in enumerate(self.rate[i]):
            ck, sk = tr.joint_trig(self.act[k])
            if a < 0:
                sk = -sk
            for _ in range(abs(a)):
                C, S = tr.reduce(C * ck - S * sk), tr.reduce(S * ck + C * sk)
        cd, sd = tr.var(sp.cos(self.delta[i])), tr.var(sp.sin(self.delta[i]))
        return tr.reduce(C * cd - S * sd), tr.reduce(S * cd + C * sd)

    def joint_value(self, i: int):
        """A prismatic joint's variable as a ring element."""
        tr = self.tr
        if i in self.act:
            return tr.gens[self.model.q[i]]
        out = tr.var(self.shift[i])
        for k, a in enumerate(self.rate[i]):
            if a:
                out += a * tr.gens[self.model.q[self.act[k]]]
        return out

    def placement(self, j: int):
        """(R, p): rotation frame j -> parent frame and origin of j there, after Rz(gamma) Tz(b)."""
        tr, link, z = self.tr, self.model.links[j], self.tr.zero
        R, p = link_rotation(self.model, tr, j, self.trig, self.joint_value)
        if link.gamma != 0 or link.b != 0:
            cg, sg = tr.var(sp.cos(link.gamma)), tr.var(sp.sin(link.gamma))
            G = [[cg, -sg, z], [sg, cg, z], [z, z, tr.one]]
            R = [tr.matvec(G, [R[0][k], R[1][k], R[2][k]]) for k in range(3)]
            R = [[R[k][r] for k in range(3)] for r in range(3)]
            p = tr.matvec(G, p)
            p[2] = p[2] + tr.var(link.b)
        return R, p


def _frames_job(t: _Tree, token: CancelToken) -> Job[ArmFrames]:
    """:func:`~designer.dynamics.bodies.arm_frames_job` along the tree, columns = actuated rates."""
    tr, model = t.tr, t.model
    n, na = model.n, len(t.act)
    modified = model.convention is Convention.MODIFIED
    zero = [tr.zero] * 3
    parents = parents_of(model.links)
    Rs: list = []
    ps: list = []
    Ws: list = []
    Vs: list = []
    gs: list = []
    g0 = [tr.var(c) for c in model.gravity_frame0]
    for j, link in enumerate(model.links):
        token.check()
        yield Progress("kinematics", j / n, f"link {j + 1}")
        R, p = t.placement(j)
        par = parents[j] - 1
        W_par = Ws[par] if par >= 0 else [list(zero) for _ in range(na)]
        V_par = Vs[par] if par >= 0 else [list(zero) for _ in range(na)]
        g_par = gs[par] if par >= 0 else g0
        W, V = [], []
        for k in range(na):
            w, v = list(W_par[k]), list(V_par[k])
            a = t.rate[j][k]
            if not modified and a:
                if link.is_revolute:
                    w = [w[0], w[1], w[2] + a]
                else:
                    v = [v[0], v[1], v[2] + a]
            if any(w):
                wp = tr.cross(w, p, token)
                v = [v[r] + wp[r] for r in range(3)]
            Wk = rotate_back(tr, R, w, token) if any(w) else list(zero)
            Vk = rotate_back(tr, R, v, token) if any(v) else list(zero)
            if modified and a:
                if link.is_revolute:
                    Wk[2] = Wk[2] + a
                else:
                    Vk[2] = Vk[2] + a
            W.append(Wk)
            V.append(Vk)
        Rs.append(R)
        ps.append(p)
        Ws.append(W)
        Vs.append(V)
        gs.append(rotate_back(tr, R, g_par, token))
    return ArmFrames(Rs, ps, Ws, Vs, gs)


def world_frame(t: _Tree, placed: dict, k: int, token: CancelToken = NEVER):
    """(R, o) of link k (1-based; 0 the base) in frame 0 as ring elements, memoized in ``placed``."""
    tr = t.tr
    if not placed:
        placed[0] = ([[tr.one if r == c else tr.zero for c in range(3)] for r in range(3)], [tr.zero] * 3)
    if k not in placed:
        Rp, pp = world_frame(t, placed, parents_of(t.model.links)[k - 1], token)
        R, p = t.placement(k - 1)
        token.check()
        cols = [tr.matvec(Rp, [R[0][c], R[1][c], R[2][c]]) for c in range(3)]
        Rk = [[cols[c][r] for c in range(3)] for r in range(3)]
        placed[k] = (Rk, [pp[r] + v for r, v in enumerate(tr.matvec(Rp, p))])
    return placed[k]


def cut_frame(t: _Tree, placed: dict, link: int, pose, token: CancelToken = NEVER):
    """(origin, rotation columns) in frame 0 of a cut frame given in link ``link``'s frame (1-based)."""
    tr = t.tr
    R, p = world_frame(t, placed, link, token)
    T = pose.sym_matrix()
    local_p = [tr.var(T[r, 3]) for r in range(3)]
    cols = [tr.matvec(R, [tr.var(T[r, c]) for r in range(3)]) for c in range(3)]
    return [p[r] + v for r, v in enumerate(tr.matvec(R, local_p))], cols


def _verify_closure(t: _Tree, token: CancelToken) -> None:
    """The linear closure found at the default values, checked as an identity: with it substituted,
    each loop's cut frames coincide (origins, and z axes for a revolute cut) as functions of the joint
    angles and of the parameters (the ring's polynomials at random points of both); NotLinearClosure
    when they do not."""
    tr, model = t.tr, t.model
    placed: dict = {}
    points = _points(tr, model)
    for k, loop in enumerate(model.loops, start=1):
        (pi, Fi), (pj, Fj) = (cut_frame(t, placed, loop.link_i, loop.frame_i, token),
                              cut_frame(t, placed, loop.link_j, loop.frame_j, token))
        gaps = [tr.reduce(a - b) for a, b in zip(pi, pj)]
        if loop.joint.value != "S":
            gaps += tr.cross(Fi[2], Fj[2])
        if any(_nonzero(tr, g, points) for g in gaps):
            raise NotLinearClosure(f"{loop.label(k)}: the linear closure found at the default values does not hold "
                                   "for every value of the parameters: no closed form")


def _points(tr: TrigRing, model: Manipulator, count: int = 3) -> list[list[float]]:
    """Values of the ring's generators at random joint angles and random parameter values (0.5 to 1.5
    times the defaults, or 0.3 to 1.3): the identity test below holds for every value, not the defaults."""
    rng = np.random.default_rng(1)
    defaults = model.parameter_values
    out = []
    for _ in range(count):
        subs = {q: float(rng.uniform(-np.pi, np.pi)) for q in model.q}
        subs.update({q: float(rng.normal()) for q in (*model.qd, *model.qdd)})
        for name in model.symbol_names():
            d = defaults.get(name)
            subs[sp.Symbol(name, real=True)] = float(d * rng.uniform(0.5, 1.5) if d else rng.uniform(0.3, 1.3))
        floats = {k: sp.Float(v) for k, v in subs.items()}
        # a prismatic joint's cos and sin generators stay dummies (they never occur): any value
        out.append([0.0 if isinstance(a, sp.Dummy) else complex(sp.sympify(a).xreplace(floats).evalf()).real
                    for a in tr._atoms_out])
    return out


def _nonzero(tr: TrigRing, p, points: list[list[float]]) -> bool:
    """Whether a ring element is not identically 0, as a function: at each point, its value against the
    size of its terms (1e-9: float models carry rounding, and cos(delta)^2 + sin(delta)^2 of an opaque
    angle is 1 only as numbers)."""
    for values in points:
        total, size = 0.0, 0.0
        for monom, coeff in p.items():
            term = float(coeff)
            for k, e in enumerate(monom):
                if e:
                    term *= values[k] ** e
            total += term
            size += abs(term)
        if abs(total) > 1e-9 * max(1.0, size):
            return True
    return False


def tree_mass_gravity_job(t: _Tree, frames: ArmFrames, token: CancelToken) -> Job[tuple[list, list, list]]:
    """(M_rot, M_tra, G) over the rates of ``t.act`` (Lee's parts, full symmetric nested lists)."""
    tr, exact, na = t.tr, t.model, len(t.act)
    M_rot = [[tr.zero] * na for _ in range(na)]
    M_tra = [[tr.zero] * na for _ in range(na)]
    G = [tr.zero] * na
    for b, body in enumerate(bodies(exact, tr)):
        yield Progress("mass matrix", b / max(1, exact.n), f"body {b + 1}")
        Jv, Jw = frames.body_jacobians(tr, body, token)
        IJw = [tr.matvec(body.inertia, Jw[k], token) if not body.is_point and any(Jw[k]) else None
               for k in range(na)]
        for a in range(na):
            for k in range(a, na):
                M_tra[a][k] += tr.mul(body.mass, tr.dot(Jv[a], Jv[k], token))
                if IJw[k] is not None:
                    M_rot[a][k] += tr.dot(Jw[a], IJw[k], token)
            G[a] -= tr.mul(body.mass, tr.dot(frames.g[body.link], Jv[a], token))
    for a in range(na):
        for k in range(a):
            M_tra[a][k], M_rot[a][k] = M_tra[k][a], M_rot[k][a]
    return M_rot, M_tra, G


def method_rows(method: Method, M: list, G: list, c_all: list, lee: tuple, christoffel, contract) -> dict[str, list]:
    """The ring rows of ``method``'s matrices in the actuated coordinates: M and G, Lagrange's B and C from
    the Christoffel symbols ``c_all`` of M, Lee's D_rot, D_tra (``lee``) and H_rot, H_tra (``contract`` of
    ``christoffel`` of each part)."""
    na = len(M)
    rows: dict[str, list] = {"M": M, "G": [[g] for g in G]}
    if method is Method.LAGRANGE:
        pairs = [(j, k) for j in range(na) for k in range(j + 1, na)]
        rows["B"] = [[c_all[i][j][k] for (j, k) in pairs] for i in range(na)]
        rows["C"] = [[c_all[i][j][j] for j in range(na)] for i in range(na)]
    elif method is Method.DALEMBERT:
        rows["D_rot"], rows["D_tra"] = lee
        rows["H_rot"] = [[h] for h in contract(christoffel(lee[0]))]
        rows["H_tra"] = [[h] for h in contract(christoffel(lee[1]))]
    return rows


def _christoffel(tr: TrigRing, M: list, act: list[int], token: CancelToken, diff: Callable | None = None) -> list:
    """c[i][j][k] of M over the actuated joints; ``diff(p, k)`` is d p / d q_a[k] (by default the partial
    derivative by joint act[k]; a nonlinear closure's is the total one along the closure)."""
    n = len(act)
    diff = diff or (lambda p, k: tr.diff_q(p, act[k]))
    dM = {}
    for a in range(n):
        for b in range(a, n):
            for k in range(n):
                token.check()
                dM[a, b, k] = dM[b, a, k] = diff(M[a][b], k)
    half = tr.domain.convert(1) / 2
    return [[[tr.chop((dM[i, j, k] + dM[i, k, j] - dM[j, k, i]) * half) for k in range(n)]
             for j in range(n)] for i in range(n)]


def closed_chain_equations_job(model: Manipulator, method: Method = Method.LAGRANGE,
                               simplify: SimplifyMode = SimplifyMode.FAST,
                               token: CancelToken = NEVER) -> Job[Equations]:
    """Generator returning the closed-form :class:`Equations` of a linearly closing mechanism."""
    from ..model.angles import exact_angles
    method, simplify = Method(method), SimplifyMode(simplify)
    started = time.perf_counter()
    yield Progress("closure", 0.0, model.name)
    act, pas, A, c = linear_closure(model)
    exact = exact_angles(model).model
    t = _Tree(exact, act, pas, A, c)
    _verify_closure(t, token)
    tr, na = t.tr, len(act)
    frames = yield from _frames_job(t, token)
    M_rot, M_tra, G = yield from tree_mass_gravity_job(t, frames, token)
    M = [[M_rot[a][k] + M_tra[a][k] for k in range(na)] for a in range(na)]
    qd = [tr.gens[exact.qd[i]] for i in act]

    def contract(christ):
        return [sum((tr.mul(christ[i][j][k], tr.mul(qd[j], qd[k])) for j in range(na) for k in range(na)), tr.zero)
                for i in range(na)]
    c_all = _christoffel(tr, M, act, token)
    rows = method_rows(method, M, G, c_all, (M_rot, M_tra), lambda Mx: _christoffel(tr, Mx, act, token), contract)
    h_raw = contract(c_all)
    qdd = [tr.gens[exact.qdd[i]] for i in act]
    rows["tau"] = [[sum((tr.mul(M[i][k], qdd[k]) for k in range(na)), tr.zero) + h_raw[i] + G[i]]
                   for i in range(na)]
    rows["h"] = [[h] for h in h_raw]
    carrier = actuated_model(model, act)
    rename = {}
    for k, i in enumerate(act):
        for old, new in ((exact.q[i], carrier.q[k]), (exact.qd[i], carrier.qd[k]), (exact.qdd[i], carrier.qdd[k])):
            rename[old] = new
    mats: dict[str, sp.Matrix] = {}
    for name, raw in rows.items():
        m = yield from to_matrix_job(exact, tr, raw, simplify, name, token, name in ("M", "D_rot", "D_tra"))
        mats[name] = m.xreplace(rename)
    form = {"lagrange": ("M", "B", "C", "G"), "newton-euler": ("tau",),
            "dalembert": ("D_rot", "D_tra", "H_rot", "H_tra", "G")}[method.value]
    relations = []   # in the tree's names
    for r, i in enumerate(pas):
        terms = " ".join(f"{'+' if a > 0 else '-'} {'' if abs(a) == 1 else abs(a)}q{act[k] + 1}"
                         for k, a in enumerate(A[r]) if a) or "0"
        relations.append(f"q{i + 1} = {terms.lstrip('+ ')}" + (f" + {c[r]}" if c[r] != 0 else ""))
    # C_ij = sum_k c_ijk qd_k (Christoffel form: M' - 2 C skew), for engine.coriolis_matrix
    C = sp.Matrix(na, na, lambda i, j: tr.expr(sum((tr.mul(c_all[i][j][k], qd[k]) for k in range(na)), tr.zero)))
    carrier = replace(carrier, description=f"Loop closure (the mechanism's joint names): {', '.join(relations)}. "
                      + carrier.description)
    extras = {"closed_chain": {"actuated": [f"q{k + 1} is the tree's q{i + 1}" for k, i in enumerate(act)],
                               "numbers": tuple(i + 1 for i in act),   # the tree's number of q1..q_na
                               "closure": relations,
                               "mechanism": model},   # the tree: its code's drive terms and regressor need it
              "coriolis_matrix": C.xreplace(rename),
              "seconds": time.perf_counter() - started}
    yield Progress("done", 1.0, f"{method.value} (closed chain, closed form) in {extras['seconds']:.2f} s")
    return Equations(method=method, model=carrier, simplify=simplify, matrices={k: mats[k] for k in form},
                     tau=mats["tau"], mass_matrix=mats["M"], gravity=mats["G"], coriolis=mats["h"],
                     extras=extras, form=Form.CLOSED)


def closed_chain_equations(model: Manipulator, method: Method = Method.LAGRANGE,
                           simplify: SimplifyMode = SimplifyMode.FAST, progress=None,
                           token: CancelToken = NEVER) -> Equations:
    return run(closed_chain_equations_job(model, method, simplify, token), progress, token)
