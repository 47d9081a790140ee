"""Newton-Euler on the standard inertial parameters in joint frames, unexpanded (graph form).

The recursion of :mod:`~designer.dynamics.customized` with each link given by its ten standard
parameters in joint frame j' (see :mod:`~designer.dynamics.base_params`) rather than by mass,
COM and inertia about the COM. With the base parameters in the kept places and zeros elsewhere it
gives tau with the base parameters as inputs (Khalil and Kleinfinger's customized model: every
zero parameter removes its products). Carried as linear forms in the parameters it gives the
regressor Y in graph form.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.parameters import distribute

from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator
from .customized import _chain, _cross, _mul, _u_matrix, _vadd, _matvec, base_motion, custom_mass_matrix, link_step
from .inertial import parameter_names, split

__all__ = ["standard_tau", "standard_mass_matrix", "symbolic_regressor"]

ZERO = sp.S.Zero


def _kinematics(model: Manipulator, chain, token: CancelToken, qd=None, qdd=None):
    """Per joint (w, wd, vd, U) in joint-frame axes; vd is the origin's acceleration (gravity included).
    ``qd``, ``qdd``: values instead of the joint-rate symbols (zeros give G and h directly: a
    substitution into the shared graph afterwards would walk it as a tree, minutes for 7 joints)."""
    qd = model.qd if qd is None else [sp.sympify(v) for v in qd]
    qdd = model.qdd if qdd is None else [sp.sympify(v) for v in qdd]
    w, wd, vd = base_motion(model)  # gravity in frame 0 (turned from the world when the project says so)
    U = None
    out = []
    for j, jt in enumerate(chain):
        token.check()
        w, wd, vd = link_step(jt, w, wd, vd, U, qd[j], qdd[j])
        U = _u_matrix(w, wd)
        out.append((w, wd, vd, U))
    return out


def _wrench(pi, w, wd, vd, U):
    """Force and moment about the joint-frame origin of a body with parameters pi (ten, joint frame)."""
    m, ms, J = split(pi)
    f = _vadd([_mul(m, x) for x in vd], _matvec(U, ms))
    n = _vadd(_matvec(J, wd), _cross(w, _matvec(J, w)), _cross(ms, vd))
    return f, n


def _backward(chain, wrenches, n: int) -> list:
    tau = [ZERO] * n
    f, nm = [ZERO] * 3, [ZERO] * 3
    for j in range(n - 1, -1, -1):
        if j + 1 < n:
            nxt = chain[j + 1]
            Rf = _matvec(nxt.R, f)
            nm = _vadd(wrenches[j][1], _matvec(nxt.R, nm), _cross(nxt.P, Rf))
            f = _vadd(wrenches[j][0], Rf)
        else:
            f, nm = wrenches[j]
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


def standard_mass_matrix(model: Manipulator, params: list[list], token: CancelToken = NEVER) -> sp.Matrix:
    """M(q) by composite rigid bodies with ``params[j]`` the ten joint-frame parameters of link j."""
    given = []
    for pi in params:
        m, ms, J = split(pi)
        given.append((m, ms, [J[0][0], J[1][1], J[2][2], J[0][1], J[0][2], J[1][2]]))
    return custom_mass_matrix(model, token, given)


def symbolic_regressor(model: Manipulator, token: CancelToken = NEVER) -> tuple[sp.Matrix, list[str]]:
    """(Y, names): tau = Y pi with pi the standard parameters in link frames (graph form)."""
    from .base_params import joint_frame_parameters
    n = model.n
    names = parameter_names(n)
    symbols = [sp.Symbol(s, real=True) for s in names]
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
    # pi' = T pi per link (identity in the modified convention): standard column k gathers c * (column l)
    moved = joint_frame_parameters(model, symbols)
    Y = sp.zeros(n, 10 * n)
    with distribute(False):  # a float coefficient would be distributed over every sum it multiplies
        for j in range(n):
            gather: list[list] = [[] for _ in range(10)]
            for l, expr in enumerate(moved[j]):
                coeffs = sp.Poly(sp.expand(expr), *symbols[10 * j:10 * j + 10]).as_dict() if expr != 0 else {}
                for monom, c in coeffs.items():
                    gather[monom.index(1)].append((l, c))
            for k in range(10):
                for i in range(n):
                    terms = [_mul(Yj[i, 10 * j + l], c) for l, c in gather[k] if Yj[i, 10 * j + l] != 0]
                    Y[i, 10 * j + k] = sp.Add(*terms) if terms else ZERO
    return Y, names
