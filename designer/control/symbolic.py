"""The linearization in symbols, on request: the graph forms of tau and M differentiated.

dtau/dq and dtau/dqd are the Jacobians of the customized Newton-Euler tau (unexpanded, so they stay
the size of a few hundred operations after CSE for a six-link arm); A and B need M^-1, whose
symbolic form grows quickly with the number of joints, so they are given up to three joints.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator

__all__ = ["SymbolicLinearization", "symbolic_linearization", "MAX_SYMBOLIC_AB"]

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
