"""The symbolic linearization of a linearly closing closed chain (parallelograms), in its actuated joints.

The closed forms of :mod:`designer.dynamics.closed_form` are exact in q_a, so dtau_a/dq_a and
dtau_a/dqd_a are their Jacobians and M_a their mass matrix. A and B (M_a^-1) are not given in
symbols: the expanded closed forms make M_a^-1 of a three-joint parallelogram arm (random floats)
3 MB of text for A after 40 s, where a serial arm's compact forms keep it small (the numeric A and B
are in ``linearize``'s output). The
expressions name the actuated joints as the mechanism does (the palletizer's q1, q2, q4, q6), the
names of ``linearize``'s state.
"""

from __future__ import annotations

from ..dynamics.closed_form import closed_chain_equations, linear_closure
from ..dynamics.results import Method
from ..jobs import NEVER, CancelToken
from ..model.manipulator import Manipulator
from .symbolic import SymbolicLinearization

__all__ = ["closed_symbolic_linearization"]


def closed_symbolic_linearization(model: Manipulator, token: CancelToken = NEVER) -> SymbolicLinearization:
    """Raises NotLinearClosure for loops that do not close linearly (a four-bar)."""
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
