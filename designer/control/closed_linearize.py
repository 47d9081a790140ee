"""The linearized model of a closed-chain mechanism in its actuated coordinates, rigid or with elastic joints.

The same state-space model as :func:`designer.control.linearize.linearize` with x = (q_a, qd_a),
M_a, and the derivatives of the projected inverse dynamics tau_a (numeric/closed.py) by central
differences (step 1e-6 rad: the loops are closed again at every shifted state, so the complex step
of the serial arms does not carry through the closure; about 1e-9 relative accuracy). With elastic
joints (the actuated ones, docs/elastic.md "Closed chains") the same derivatives feed the serial arm's
elastic state space (:func:`designer.control.elastic_linearize.elastic_state_space`) over M_a.
"""

from __future__ import annotations

import numpy as np

from ..numeric.closed import ClosedDynamics
from ..numeric.elastic import ElasticArm, ElasticJoints
from .elastic_linearize import elastic_state_space
from .linearize import LinearModel, _vector, state_space

__all__ = ["linearize_closed", "elastic_linearize_closed", "closed_derivatives", "STEP"]

STEP = 1e-6


def closed_derivatives(cd: ClosedDynamics, q0, qd0, qdd0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tau_a, dtau_a/dq_a, dtau_a/dqd_a) at one state by central differences over fresh closures; a pose where
    a loop cannot close is a ClosureError."""
    n = cd.n
    near = cd.following(cd.positions(q0))   # each perturbed state closes on q0's branch
    tau0 = near.tau(q0, qd0, qdd0)
    dq, dqd = np.empty((n, n)), np.empty((n, n))
    for k, e in enumerate(np.eye(n) * STEP):
        dq[:, k] = (near.tau(q0 + e, qd0, qdd0) - near.tau(q0 - e, qd0, qdd0)) / (2 * STEP)
        dqd[:, k] = (near.tau(q0, qd0 + e, qdd0) - near.tau(q0, qd0 - e, qdd0)) / (2 * STEP)
    return tau0, dq, dqd


def linearize_closed(cd: ClosedDynamics, q0, qd0=None, qdd0=None) -> LinearModel:
    """The model at (q0, qd0, qdd0) of the actuated joints; a pose where a loop cannot close is a
    ClosureError."""
    n = cd.n
    q0, qd0, qdd0 = _vector(q0, n, "q"), _vector(qd0, n, "qd"), _vector(qdd0, n, "qdd")
    tau0, dq, dqd = closed_derivatives(cd, q0, qd0, qdd0)
    return state_space(q0, qd0, qdd0, tau0, dq, dqd, cd.M(q0))


def elastic_linearize_closed(cd: ClosedDynamics, joints: ElasticJoints, q0, qd0=None, qdd0=None) -> LinearModel:
    """The (2 n_a + 2 m)-state elastic model at the actuated joints' (q0, qd0, qdd0), x = (q_a, theta, qd_a,
    thetad), the motor torques in; ``joints`` the actuated joints' (numeric.elastic.elastic_joints)."""
    n = cd.n
    q0, qd0, qdd0 = _vector(q0, n, "q"), _vector(qd0, n, "qd"), _vector(qdd0, n, "qdd")
    model = ElasticArm(None, joints, cd)
    return elastic_state_space(model, q0, qd0, qdd0, *closed_derivatives(cd, q0, qd0, qdd0))
