"""The linearization in symbols, on request: the graph forms of tau and M differentiated.

dtau/dq and dtau/dqd are the Jacobians of the customized Newton-Euler tau (unexpanded, so they stay
the size of a few hundred operations after CSE for a six-link arm); A and B need M^-1, whose
symbolic form grows quickly with the number of joints, so they are given up to three joints.

A linearly closing closed chain (parallelograms) in its actuated joints
(:func:`closed_symbolic_linearization`): the closed forms of :mod:`designer.dynamics.closed_form` are exact
in q_a, so dtau_a/dq_a and dtau_a/dqd_a are their Jacobians and M_a their mass matrix. A and B (M_a^-1)
are not given in symbols: the expanded closed forms make M_a^-1 of a three-joint parallelogram arm
(random floats) 3 MB of text for A after 40 s, where a serial arm's compact forms keep it small (the
numeric A and B are in ``linearize``'s output). The expressions name the actuated joints as the
mechanism does (the palletizer's q1, q2, q4, q6), the names of ``linearize``'s state.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator

__all__ = ["SymbolicLinearization", "symbolic_linearization", "closed_symbolic_linearization",
           "mechanism_symbolic_linearization", "MAX_SYMBOLIC_AB"]

MAX_SYMBOLIC_AB = 3


@dataclass(frozen=True)
class SymbolicLinearization:
    """Expressions in q, qd, qdd and the model's symbols; A and B None beyond MAX_SYMBOLIC_AB joints."""

    dtau_dq: sp.Matrix
    dtau_dqd: sp.Matrix
    M: sp.Matrix
    A: sp.Matrix | None
    B: sp.Matrix | None


def symbolic_linearization(model: Manipulator, token: CancelToken = NEVER) -> SymbolicLinearization:
    from ..dynamics.tree import tree_mass_matrix, tree_tau
    n = model.n
    tau = tree_tau(model, token)
    token.check()
    dq, dqd = tau.jacobian(list(model.q)), tau.jacobian(list(model.qd))
    M = tree_mass_matrix(model, token)
    A = B = None
    if n <= MAX_SYMBOLIC_AB:
        token.check()
        Minv = M.inv(method="LU")
        A = sp.BlockMatrix([[sp.zeros(n), sp.eye(n)], [-Minv * dq, -Minv * dqd]]).as_explicit()
        B = sp.Matrix.vstack(sp.zeros(n), Minv)
    return SymbolicLinearization(dq, dqd, M, A, B)


def closed_symbolic_linearization(model: Manipulator, token: CancelToken = NEVER) -> SymbolicLinearization:
    """A linearly closing closed chain's; raises NotLinearClosure for loops that do not close linearly (a
    four-bar)."""
    from ..dynamics.closed_form import closed_chain_equations, linear_closure
    from ..dynamics.results import Method
    act = linear_closure(model)[0]
    eq = closed_chain_equations(model, Method.NEWTON_EULER, token=token)
    carrier = eq.model
    rename = {}
    for k, i in enumerate(act):   # q1..q_na of the closed forms -> the mechanism's joint names
        for syms, tree in ((carrier.q, model.q), (carrier.qd, model.qd), (carrier.qdd, model.qdd)):
            rename[syms[k]] = tree[i]
    tau, M = eq.tau.xreplace(rename), eq.mass_matrix.xreplace(rename)
    q, qd = [model.q[i] for i in act], [model.qd[i] for i in act]
    token.check()
    return SymbolicLinearization(tau.jacobian(q), tau.jacobian(qd), M, None, None)


def mechanism_symbolic_linearization(model: Manipulator, token: CancelToken = NEVER) -> SymbolicLinearization:
    """Any mechanism's (callers need not know its kind): a serial arm's (:func:`symbolic_linearization`), a linearly
    closing closed chain's in its actuated joints (:func:`closed_symbolic_linearization`; NotLinearClosure
    otherwise)."""
    if model.is_serial:
        return symbolic_linearization(model, token)
    return closed_symbolic_linearization(model, token)

