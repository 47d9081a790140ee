"""The linearized elastic-joint model: 4n states (2n + 2m with rigid joints) about an operating point.

State x = (q, theta_E, q', theta_E'), input the n motor torques (designer/numeric/elastic.py). The
link side's derivatives come from the inverse dynamics by the complex step
(:func:`~designer.control.linearize.inverse_dynamics_derivatives`), the springs and motors are linear:

    (M + R) dq''      = -dtau/dq dq - dtau/dq' dq' + d tau_j
    Jm dtheta''       = dtau_m,E - d tau_s / N
    tau_j             = tau_s (elastic joints), N tau_m (rigid joints)
    d tau_s           = K (dtheta/N - dq_E) + D (dtheta'/N - dq'_E)
"""

from __future__ import annotations

import numpy as np

from ..kinematics import NumericArm
from ..numeric.elastic import ElasticArm, ElasticJoints
from .linearize import LinearModel, inverse_dynamics_derivatives

__all__ = ["elastic_linearize", "elastic_state_space"]


def elastic_linearize(arm: NumericArm, joints: ElasticJoints, q0, qd0=None, qdd0=None) -> LinearModel:
    """The state-space model (A, B) at link state (q0, qd0, qdd0), motors where the springs hold it.

    ``dtau_dq``, ``dtau_dqd`` and ``M`` of the result are the link side's (M with the rigid joints'
    reflected inertia); ``tau0`` the motor torques of the operating point.
    """
    model = ElasticArm(arm, joints)
    n = model.n
    q0 = np.asarray(q0, dtype=float)
    qd0 = np.zeros(n) if qd0 is None else np.asarray(qd0, dtype=float)
    qdd0 = np.zeros(n) if qdd0 is None else np.asarray(qdd0, dtype=float)
    tau0, dq, dqd = inverse_dynamics_derivatives(arm, q0, qd0, qdd0)
    return elastic_state_space(model, q0, qd0, qdd0, tau0, dq, dqd)


def elastic_state_space(model: ElasticArm, q0, qd0, qdd0, tau0, dq, dqd) -> LinearModel:
    """The elastic model's (A, B) from the link side's inverse dynamics tau0 and its derivatives dtau/dq, dtau/dq'
    at (q0, qd0, qdd0) (a serial arm's by the complex step, a closed chain's M_a, h_a, G_a by differences:
    :func:`designer.control.closed_linearize.elastic_linearize_closed`)."""
    n, m, E, NE = model.n, model.m, model.E, model.NE
    M = model.dyn.M(q0) + np.diag(model.reflected)
    Minv = np.linalg.inv(M)
    tau_joint = tau0 + model.reflected * qdd0
    # the motors hold the springs: tau_s = tau_joint at E; at rest relative to the links (theta'' = N q'')
    tau_m = tau_joint / model.N
    tau_m[E] = NE * qdd0[E] * model.Jm + tau_joint[E] / NE
    size = model.size
    A = np.zeros((size, size))
    iq, ith = np.arange(n), n + np.arange(m)
    iqd, ithd = n + m + np.arange(n), 2 * n + m + np.arange(m)
    A[iq, iqd], A[ith, ithd] = 1.0, 1.0
    # link side: -dtau/dq and -dtau/dq', plus the springs at the elastic joints
    spring_q, spring_th = np.zeros((n, n)), np.zeros((n, m))
    spring_qd, spring_thd = np.zeros((n, n)), np.zeros((n, m))
    spring_q[E, E], spring_th[E, np.arange(m)] = -model.k, model.k / NE
    spring_qd[E, E], spring_thd[E, np.arange(m)] = -model.d, model.d / NE
    A[np.ix_(iqd, iq)] = Minv @ (spring_q - dq)
    A[np.ix_(iqd, ith)] = Minv @ spring_th
    A[np.ix_(iqd, iqd)] = Minv @ (spring_qd - dqd)
    A[np.ix_(iqd, ithd)] = Minv @ spring_thd
    # motor side
    A[ithd, iq[E]] = model.k / NE / model.Jm
    A[ithd, ith] = -model.k / NE ** 2 / model.Jm
    A[ithd, iqd[E]] = model.d / NE / model.Jm
    A[ithd, ithd] = -model.d / NE ** 2 / model.Jm
    B = np.zeros((size, n))
    rigid = model.R
    B[np.ix_(iqd, rigid)] = Minv[:, rigid] * model.N[rigid]
    B[ithd, E] = 1.0 / model.Jm
    return LinearModel(q0, qd0, qdd0, tau_m, dq, dqd, M, A, B)
