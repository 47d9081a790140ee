"""Newton-Euler on the standard inertial parameters in joint frames, unexpanded (graph form).

The recursion of :mod:`~designer.dynamics.customized` with each link given by its ten standard
parameters in joint frame j' (see :mod:`~designer.identification.base_params`) rather than by mass,
COM and inertia about the COM. With the base parameters in the kept places and zeros elsewhere it
gives tau with the base parameters as inputs (Khalil and Kleinfinger's customized model: every
zero parameter removes its products). Carried as linear forms in the parameters it gives the
regressor Y in graph form.
"""

from __future__ import annotations

from collections.abc import Iterator

import sympy as sp
from sympy.core.parameters import distribute

from ..graphs.cse import drop_unused, trivial
from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator
from .customized import (_add, _chain, _cross, _matvec, _mul, _planar_square, _tmatvec, _u_matrix, _vadd, base_motion,
                         custom_mass_matrix, link_step, link_wrench)
from .inertial import parameter_names, split

__all__ = ["standard_tau", "standard_tau_steps", "tau_steps", "custom_tau_steps", "standard_mass_matrix",
           "symbolic_regressor", "link_frame_columns"]

ZERO = sp.S.Zero


def _same(values: list) -> list:
    return values


def _kinematics(model: Manipulator, chain, token: CancelToken, qd=None, qdd=None, name=_same):
    """Per joint (w, wd, vd, U) in joint-frame axes; vd is the origin's acceleration (gravity included).
    ``qd``, ``qdd``: values instead of the joint-rate symbols (zeros give G and h directly: a
    substitution into the shared graph afterwards would walk it as a tree, minutes for 7 joints).
    ``name`` may replace each vector by named intermediates."""
    qd = model.qd if qd is None else [sp.sympify(v) for v in qd]
    qdd = model.qdd if qdd is None else [sp.sympify(v) for v in qdd]
    w, wd, vd = base_motion(model)  # gravity in frame 0 (turned from the world when the project says so)
    U = None
    out = []
    before = (w, wd)  # (w, wd) of frame (j-2)'
    for j, jt in enumerate(chain):
        token.check()
        parent = (w, wd)
        w, wd, vd = link_step(jt, w, wd, vd, U, qd[j], qdd[j])
        if j and _parallel(chain[j - 1], jt):
            w, wd = _composed(chain[j - 1], jt, *before, qd[j - 1] + qd[j], qdd[j - 1] + qdd[j], name)
        before = parent
        w, wd, vd = name(w), name(wd), name(vd)
        U = _u_matrix(w, wd, _planar_square(jt, U))
        out.append((w, wd, vd, U))
    return out


def _parallel(first, second) -> bool:
    """Two revolute joints with parallel axes (no twist between them)."""
    return first.revolute and second.revolute and second.alpha == 0


def _composed(first, second, w, wd, qd, qdd, name=_same) -> tuple[list, list]:
    """(w, wd) of the second of two parallel revolute joints straight from the frame before the first:
    one rotation by theta_1 + theta_2 and the summed rates (sin(q2 + q3) on the PUMA rather than
    products of sin q2, cos q3, ...; the position offset between them does not enter w or wd)."""
    theta, alpha = first.theta + second.theta, first.alpha
    ct, st, ca, sa = sp.cos(theta), sp.sin(theta), sp.cos(alpha), sp.sin(alpha)
    R = [[ct, -st, ZERO], [_mul(ca, st), _mul(ca, ct), -sa], [_mul(sa, st), _mul(sa, ct), ca]]
    w0 = name(_tmatvec(R, w))  # named before the products by qd (sympy would flatten qd1*sin(..)*qd23)
    return ([w0[0], w0[1], _add(w0[2], qd)],
            _vadd(_tmatvec(R, wd), [_mul(qd, w0[1]), -_mul(qd, w0[0]), qdd]))


def _wrench(pi, w, wd, vd, U):
    """Force and moment about the joint-frame origin of a body with parameters pi (ten, joint frame)."""
    m, ms, J = split(pi)
    f = _vadd([_mul(m, x) for x in vd], _matvec(U, ms))
    return f, _vadd(_inertia_moment(J, w, wd, U), _cross(ms, vd))


def _inertia_moment(J, w, wd, U) -> list:
    """J wd + w x (J w) on the products w_i w_j and the entries of U (Khalil's grouped form): each
    inertia parameter multiplies one shared factor, so a zero (grouped) parameter removes a
    product and YY - ZZ etc. are formed on the parameters, not on the rates."""
    (XX, XY, XZ), (_, YY, YZ), (_, _, ZZ) = J
    sq = [_mul(x, x) for x in w]
    xy, xz, yz = _mul(w[0], w[1]), _mul(w[0], w[2]), _mul(w[1], w[2])
    return [_add(_mul(XX, wd[0]), -_mul(XY, U[2][0]), _mul(XZ, U[1][0]), _mul(YZ, _add(sq[1], -sq[2])),
                 _mul(_add(ZZ, -YY), yz)),
            _add(_mul(YY, wd[1]), _mul(XY, U[2][1]), -_mul(YZ, U[0][1]), _mul(XZ, _add(sq[2], -sq[0])),
                 _mul(_add(XX, -ZZ), xz)),
            _add(_mul(ZZ, wd[2]), -_mul(XZ, U[1][2]), _mul(YZ, U[0][2]), _mul(XY, _add(sq[0], -sq[1])),
                 _mul(_add(YY, -XX), xy))]


def _parallel_run(chain, n: int) -> int:
    """Index of the last joint of the run of revolute joints parallel to joint 1 (0-based), when
    joint 0 is revolute and the run has at least two joints; else 0."""
    if n < 3 or not chain[0].revolute or not chain[1].revolute:
        return 0
    k = 1
    while k + 1 < n and _parallel(chain[k], chain[k + 1]):
        k += 1
    return k if k >= 2 else 0


def _backward(chain, wrenches, n: int, name=_same) -> list:
    """tau from the link wrenches (joint-frame axes), last link first.

    tau_0 of a revolute first joint is only the z row of R_1 n_1. Over a run of parallel revolute
    joints 1..k (joints 2 and 3 of most industrial arms) R_1 R_2 ... R_i turns by the summed angles,
    so tau_0 reads each link's own part of n_i through that one row, (sin a_1 sin(t_1 + .. + t_i),
    sin a_1 cos(..), cos a_1), instead of turning n_k, n_(k-1), ... into frame 1 one joint at a time
    (the forward pass composes w and wd the same way: PUMA 560 base-parameter tau 4 operations
    fewer). Along the run n_j's z is its own part's z plus n_(j+1)'s, as R_(j+1) keeps z."""
    tau = [ZERO] * n
    k = _parallel_run(chain, n)
    f, nm = [ZERO] * 3, [ZERO] * 3
    pieces: list = []     # (i, the part of n_i that tau_0 reads through the composed row)
    z_sum = ZERO          # n_(j+1)'s z along the run
    for j in range(n - 1, -1, -1):
        if j + 1 < n:
            nxt = chain[j + 1]
            Rf = _matvec(nxt.R, f)
            own = _vadd(wrenches[j][1], _cross(nxt.P, Rf))
            f = _vadd(wrenches[j][0], Rf)
            if 1 <= j < k:      # inside the run: n_j stays own part + R_(j+1) n_(j+1), never formed
                f, own = name(f), name(own)
                pieces.append((j, own))
                z_sum = _add(own[2], z_sum)
                tau[j] = z_sum
                continue
            if j == 0 and k:
                first = chain[1]
                sa, ca = sp.sin(first.alpha), sp.cos(first.alpha)
                terms = [own[2]]
                for i, v in pieces:
                    angle = sp.Add(*(chain[m].theta for m in range(1, i + 1)))
                    terms += [_mul(sa, sp.sin(angle), v[0]), _mul(sa, sp.cos(angle), v[1]), _mul(ca, v[2])]
                tau[0] = _add(*terms)
                break
            nm = _vadd(own, _matvec(nxt.R, nm))
        else:
            f, nm = wrenches[j]
        f, nm = name(f), name(nm)
        if j == k and k:
            pieces.append((j, nm))
            z_sum = nm[2]
        tau[j] = nm[2] if chain[j].revolute else f[2]
    return tau


def standard_tau(model: Manipulator, params: list[list], token: CancelToken = NEVER, qd=None,
                 qdd=None) -> sp.Matrix:
    """tau(q, qd, qdd) with ``params[j]`` the ten joint-frame parameters of link j; ``qd``, ``qdd``:
    values instead of the joint-rate symbols (zeros for G, or for h without gravity)."""
    with distribute(False):
        chain = _chain(model)
        kin = _kinematics(model, chain, token, qd, qdd)
        return sp.Matrix(_backward(chain, [_wrench(params[j], *kin[j]) for j in range(model.n)], model.n))


def standard_tau_steps(model: Manipulator, params: list[list], symbols: Iterator[sp.Symbol],
                       token: CancelToken = NEVER) -> tuple[list, sp.Matrix]:
    """(steps, tau): :func:`standard_tau` with every vector of the recursion (w, wd, vd, the link
    wrenches, f and n) a named intermediate, as Khalil's customized model evaluates it: ``steps``
    are the ``(symbol, value)`` that tau reads, in an order that evaluates; ``symbols`` gives the
    names. CSE over the small steps finds what the whole graph hides (sympy flattens
    ``qd1*sin(q2)*cos(q3)`` and loses ``qd1*sin(q2)``): PUMA 560 tau 553 -> 517 operations."""
    return tau_steps(model, lambda j, w, wd, vd, U: _wrench(params[j], w, wd, vd, U), symbols, token)


def tau_steps(model: Manipulator, wrench, symbols: Iterator[sp.Symbol], token: CancelToken = NEVER
              ) -> tuple[list, sp.Matrix]:
    """(steps, tau) of the named recursion with ``wrench(j, w, wd, vd, U)`` giving link j's (F, N)
    about its joint-frame origin (the standard parameters' :func:`_wrench`, or the bodies' mass,
    COM and inertia about the COM: :func:`custom_tau_steps`)."""
    steps: list = []

    def name(values: list) -> list:
        out = []
        for v in values:
            if trivial(sp.sympify(v)):
                out.append(v)
                continue
            sym = next(symbols)
            steps.append((sym, v))
            out.append(sym)
        return out
    with distribute(False):
        chain = _chain(model)
        kin = _kinematics(model, chain, token, name=name)
        wrenches = [tuple(name(v) for v in wrench(j, *kin[j])) for j in range(model.n)]
        tau = _backward(chain, wrenches, model.n, name)
    return drop_unused(steps, tau), sp.Matrix(tau)   # the steps tau reads (each reads only earlier ones)


def standard_mass_matrix(model: Manipulator, params: list[list], token: CancelToken = NEVER) -> sp.Matrix:
    """M(q) by composite rigid bodies with ``params[j]`` the ten joint-frame parameters of link j."""
    given = []
    for pi in params:
        m, ms, J = split(pi)
        given.append((m, ms, [J[0][0], J[1][1], J[2][2], J[0][1], J[0][2], J[1][2]]))
    return custom_mass_matrix(model, token, given)


def symbolic_regressor(model: Manipulator, token: CancelToken = NEVER) -> tuple[sp.Matrix, list[str]]:
    """(Y, names): tau = Y pi with pi the standard parameters in link frames (graph form)."""
    n = model.n
    names = parameter_names(n)
    with distribute(False):
        chain = _chain(model)
        kin = _kinematics(model, chain, token)
        Yj = sp.zeros(n, 10 * n)
        for j in range(n):  # link j's columns: tau of a unit joint-frame parameter on link j alone
            token.check()
            for k in range(10):
                unit = [ZERO] * 10
                unit[k] = sp.S.One
                wrenches = [([ZERO] * 3, [ZERO] * 3)] * n
                wrenches[j] = _wrench(unit, *kin[j])
                for i, t in enumerate(_backward(chain, wrenches, j + 1)):
                    Yj[i, 10 * j + k] = t
    return link_frame_columns(model, Yj), names


def link_frame_columns(model: Manipulator, Yj: sp.Matrix) -> sp.Matrix:
    """The regressor on the link-frame standard parameters from ``Yj``, its columns of the joint-frame
    ones (10 a link of ``model``, any number of rows): pi' = T pi per link (identity in the modified
    convention), so link-frame column k gathers c * (joint-frame column l)."""
    from .inertial import joint_frame_parameters
    n = model.n
    symbols = [sp.Symbol(s, real=True) for s in parameter_names(n)]
    moved = joint_frame_parameters(model, symbols)
    rows = Yj.shape[0]
    Y = sp.zeros(rows, 10 * n)
    with distribute(False):  # a float coefficient would be distributed over every sum it multiplies
        for j in range(n):
            gather: list[list] = [[] for _ in range(10)]
            for l, expr in enumerate(moved[j]):
                coeffs = sp.Poly(sp.expand(expr), *symbols[10 * j:10 * j + 10]).as_dict() if expr != 0 else {}
                for monom, c in coeffs.items():
                    gather[monom.index(1)].append((l, c))
            for k in range(10):
                for i in range(rows):
                    terms = [_mul(Yj[i, 10 * j + l], c) for l, c in gather[k] if Yj[i, 10 * j + l] != 0]
                    Y[i, 10 * j + k] = sp.Add(*terms) if terms else ZERO
    return Y


def custom_tau_steps(model: Manipulator, symbols, token: CancelToken = NEVER) -> tuple[list, sp.Matrix]:
    """(steps, tau): what ``codegen`` writes for tau, Khalil's customized model evaluated as named
    steps (each vector of the recursion a ``(symbol, value)``, ``symbols`` giving the names) on the
    bodies' mass, COM and inertia about the COM (:func:`~designer.dynamics.customized.link_wrench`, no conversion
    to first moments
    paid), with the parallel-joint composition of :func:`tau_steps`. The first
    joint's own part (the base at rest: w and wd along its axis) is collected on qdd_1, where
    the qd_1^2 terms cancel. PUMA 560 symbolic tau: 649 -> 621 operations after CSE."""
    chain = _chain(model)

    def wrench(j, w, wd, vd, U):
        F, N = link_wrench(chain[j].bodies, w, wd, vd, U)
        if j == 0 and chain[0].revolute:
            qdd = model.qdd[0]
            N = [N[0], N[1], sp.collect(sp.expand(N[2]), qdd)]
        return F, N
    return tau_steps(model, wrench, symbols, token)
