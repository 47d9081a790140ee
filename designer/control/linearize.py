"""Linearized and discrete-time models of the arm about an operating point.

With x = (q, qd) and the forward dynamics f(x, tau) = M(q)^-1 (tau - h(q, qd) - G(q)), the model

    dx/dt = A dx + B dtau,   A = [[0, 1], [-M^-1 dtau/dq, -M^-1 dtau/dqd]],   B = [[0], [M^-1]]

follows from the inverse dynamics: tau_ID(q, qd, f(q, qd, tau)) = tau, so M df/dq = -dtau_ID/dq at
the operating acceleration qdd0 (and likewise for qd). The derivatives of tau_ID come from the
regressor by the complex step (tau(q + i h e_k) has imaginary part h dtau/dq_k to rounding, h = 1e-30:
no subtraction, so exact to machine precision, unlike finite differences).

One model for every mechanism (:func:`linearize_dynamics` over the numeric ``Dynamics`` of
:func:`designer.numeric.mechanism.load_dynamics`, by what the model holds):

- a serial arm: x = (q, qd), the derivatives by the complex step (:func:`linearize`);
- a closed chain: x = (q_a, qd_a) in its actuated coordinates, M_a, and the derivatives of the projected
  inverse dynamics tau_a (numeric/closed.py) by central differences (step 1e-6 rad: the loops are closed
  again at every shifted state, so the complex step does not carry through the closure; about 1e-9
  relative accuracy) (:func:`linearize_closed`);
- elastic joints: 4n states (2n + 2m with rigid joints), x = (q, theta_E, q', theta_E'), input the n motor
  torques (designer/numeric/elastic.py), the link side's derivatives as above (serial or closed), the springs
  and motors linear (:func:`elastic_state_space`):

    (M + R) dq''      = -dtau/dq dq - dtau/dq' dq' + d tau_j
    Jm dtheta''       = dtau_m,E - d tau_s / N
    tau_j             = tau_s (elastic joints), N tau_m (rigid joints)
    d tau_s           = K (dtheta/N - dq_E) + D (dtheta'/N - dq'_E)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..kinematics import NumericArm
from .expm import expm
from ..numeric.recursive import mass_matrix
from ..identification.regressor import regressor
from ..dynamics.inertial import standard_parameter_values

if TYPE_CHECKING:
    from ..numeric.closed import ClosedDynamics
    from ..numeric.elastic import ElasticArm, ElasticJoints
    from ..numeric.protocol import Dynamics

__all__ = ["LinearModel", "DiscreteModel", "linearize", "inverse_dynamics_derivatives", "METHODS", "state_space",
           "linearize_dynamics", "linearize_closed", "elastic_linearize", "elastic_linearize_closed",
           "elastic_state_space", "closed_derivatives", "CLOSED_STEP"]

_STEP = 1e-30
#: the central differences' step of a closed chain's derivatives (rad or m)
CLOSED_STEP = 1e-6
METHODS = {"zoh": "zero-order hold", "tustin": "Tustin (bilinear)"}


@dataclass(frozen=True)
class DiscreteModel:
    """x[k+1] = Ad x[k] + Bd tau[k] at sample time ``dt``."""

    Ad: np.ndarray
    Bd: np.ndarray
    dt: float
    method: str

    @property
    def eigenvalues(self) -> np.ndarray:
        return np.linalg.eigvals(self.Ad)


@dataclass(frozen=True)
class LinearModel:
    """The continuous model at (q0, qd0, qdd0), with the inverse-dynamics linearization."""

    q0: np.ndarray
    qd0: np.ndarray
    qdd0: np.ndarray
    tau0: np.ndarray     # the torque that holds the operating point
    dtau_dq: np.ndarray
    dtau_dqd: np.ndarray
    M: np.ndarray
    A: np.ndarray
    B: np.ndarray

    @property
    def eigenvalues(self) -> np.ndarray:
        return np.linalg.eigvals(self.A)

    def discretize(self, dt: float, method: str = "zoh") -> DiscreteModel:
        """Zero-order hold or Tustin (bilinear) discretization at sample time ``dt``."""
        if method not in METHODS:
            raise ValueError(f"method: {method!r} is not one of {', '.join(METHODS)}")
        if not (np.isfinite(dt) and dt > 0):
            raise ValueError(f"dt: the sample time must be positive, not {dt}")
        # what scipy.signal.cont2discrete computes, without importing scipy (0.6 s on first use)
        n2, m = self.B.shape
        if method == "zoh":   # exp([[A, B], [0, 0]] dt) = [[Ad, Bd], [0, 1]]
            big = np.zeros((n2 + m, n2 + m))
            big[:n2, :n2], big[:n2, n2:] = self.A * dt, self.B * dt
            E = expm(big)
            Ad, Bd = E[:n2, :n2], E[:n2, n2:]
        else:                 # (1 - A dt/2) x[k+1] = (1 + A dt/2) x[k] + B dt tau[k]
            left = np.eye(n2) - self.A * (dt / 2)
            Ad = np.linalg.solve(left, np.eye(n2) + self.A * (dt / 2))
            Bd = np.linalg.solve(left, self.B * dt)
        return DiscreteModel(Ad, Bd, float(dt), method)


def _vector(v, n: int, name: str) -> np.ndarray:
    v = np.zeros(n) if v is None else np.asarray(v, dtype=float)
    if v.shape != (n,) or not np.all(np.isfinite(v)):
        raise ValueError(f"{name}: expected {n} finite values, got {np.asarray(v).ravel().tolist()}")
    return v


def inverse_dynamics_derivatives(arm: NumericArm, q, qd, qdd) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tau, dtau/dq, dtau/dqd) at one state, by the complex step through the regressor."""
    n = arm.n
    pi = standard_parameter_values(arm)
    # columns: the state itself, then q + ih e_k, then qd + ih e_k
    Q = np.repeat(q[:, None], 2 * n + 1, axis=1).astype(complex)
    QD = np.repeat(qd[:, None], 2 * n + 1, axis=1).astype(complex)
    QDD = np.repeat(qdd[:, None], 2 * n + 1, axis=1).astype(complex)
    Q[np.arange(n), 1 + np.arange(n)] += 1j * _STEP
    QD[np.arange(n), 1 + n + np.arange(n)] += 1j * _STEP
    tau = regressor(arm, Q, QD, QDD) @ pi  # (2n+1, n)
    return tau[0].real, (tau[1:n + 1].imag / _STEP).T, (tau[n + 1:].imag / _STEP).T


def linearize(arm: NumericArm, q0, qd0=None, qdd0=None) -> LinearModel:
    """The state-space model at (q0, qd0, qdd0); qd0 and qdd0 default to zero."""
    n = arm.n
    q0, qd0, qdd0 = _vector(q0, n, "q"), _vector(qd0, n, "qd"), _vector(qdd0, n, "qdd")
    tau0, dq, dqd = inverse_dynamics_derivatives(arm, q0, qd0, qdd0)
    return state_space(q0, qd0, qdd0, tau0, dq, dqd, mass_matrix(arm, q0))


def state_space(q0, qd0, qdd0, tau0, dq, dqd, M) -> LinearModel:
    """The :class:`LinearModel` of the inverse dynamics' derivatives and M at an operating point."""
    n = len(q0)
    try:
        Minv = np.linalg.inv(M)
    except np.linalg.LinAlgError:
        raise ValueError("the mass matrix is singular at this pose (a massless link?)") from None
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv @ dq, -Minv @ dqd]])
    B = np.vstack([np.zeros((n, n)), Minv])
    return LinearModel(q0, qd0, qdd0, tau0, dq, dqd, M, A, B)


def closed_derivatives(cd: ClosedDynamics, q0, qd0, qdd0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tau_a, dtau_a/dq_a, dtau_a/dqd_a) at one state by central differences over fresh closures; a pose where
    a loop cannot close is a ClosureError."""
    n = cd.n
    near = cd.following(cd.positions(q0))   # each perturbed state closes on q0's branch
    tau0 = near.tau(q0, qd0, qdd0)
    dq, dqd = np.empty((n, n)), np.empty((n, n))
    for k, e in enumerate(np.eye(n) * CLOSED_STEP):
        dq[:, k] = (near.tau(q0 + e, qd0, qdd0) - near.tau(q0 - e, qd0, qdd0)) / (2 * CLOSED_STEP)
        dqd[:, k] = (near.tau(q0, qd0 + e, qdd0) - near.tau(q0, qd0 - e, qdd0)) / (2 * CLOSED_STEP)
    return tau0, dq, dqd


def linearize_closed(cd: ClosedDynamics, q0, qd0=None, qdd0=None) -> LinearModel:
    """A closed chain's model at (q0, qd0, qdd0) of the actuated joints; a pose where a loop cannot close is a
    ClosureError."""
    n = cd.n
    q0, qd0, qdd0 = _vector(q0, n, "q"), _vector(qd0, n, "qd"), _vector(qdd0, n, "qdd")
    tau0, dq, dqd = closed_derivatives(cd, q0, qd0, qdd0)
    return state_space(q0, qd0, qdd0, tau0, dq, dqd, cd.M(q0))


def elastic_linearize(arm: NumericArm, joints: ElasticJoints, q0, qd0=None, qdd0=None) -> LinearModel:
    """A serial arm's elastic state-space model (A, B) at link state (q0, qd0, qdd0), motors where the springs
    hold it.

    ``dtau_dq``, ``dtau_dqd`` and ``M`` of the result are the link side's (M with the rigid joints'
    reflected inertia); ``tau0`` the motor torques of the operating point.
    """
    from ..numeric.elastic import ElasticArm
    model = ElasticArm(arm, joints)
    n = model.n
    q0 = np.asarray(q0, dtype=float)
    qd0 = np.zeros(n) if qd0 is None else np.asarray(qd0, dtype=float)
    qdd0 = np.zeros(n) if qdd0 is None else np.asarray(qdd0, dtype=float)
    tau0, dq, dqd = inverse_dynamics_derivatives(arm, q0, qd0, qdd0)
    return elastic_state_space(model, q0, qd0, qdd0, tau0, dq, dqd)


def elastic_linearize_closed(cd: ClosedDynamics, joints: ElasticJoints, q0, qd0=None, qdd0=None) -> LinearModel:
    """A closed chain's (2 n_a + 2 m)-state elastic model at the actuated joints' (q0, qd0, qdd0), x = (q_a,
    theta, qd_a, thetad), the motor torques in; ``joints`` the actuated joints' (numeric.elastic.elastic_joints)."""
    from ..numeric.elastic import ElasticArm
    n = cd.n
    q0, qd0, qdd0 = _vector(q0, n, "q"), _vector(qd0, n, "qd"), _vector(qdd0, n, "qdd")
    model = ElasticArm(None, joints, cd)
    return elastic_state_space(model, q0, qd0, qdd0, *closed_derivatives(cd, q0, qd0, qdd0))


def linearize_dynamics(dyn: Dynamics, q0, qd0=None, qdd0=None) -> LinearModel:
    """The model of any mechanism's numeric dynamics (:func:`designer.numeric.mechanism.load_dynamics`), by what
    it holds: a serial arm's engine (its ``arm``: the complex step), a closed chain's in its actuated coordinates
    (central differences over fresh closures), and either as the link side of an elastic-joint model (its
    ``link`` and ``joints``: then (q0, qd0, qdd0) are the link side's state and the model has the motor states
    too)."""
    link = getattr(dyn, "link", None)
    joints = getattr(dyn, "joints", None)
    if link is not None and joints is not None:   # ElasticDynamics over a serial or closed link side
        arm = getattr(link, "arm", None)
        if isinstance(arm, NumericArm):   # a serial engine's arm (a closed chain's .arm is its ActuatedArm)
            return elastic_linearize(arm, joints, q0, qd0, qdd0)
        return elastic_linearize_closed(link, joints, q0, qd0, qdd0)
    arm = getattr(dyn, "arm", None)
    if isinstance(arm, NumericArm):
        return linearize(arm, q0, qd0, qdd0)
    return linearize_closed(dyn, q0, qd0, qdd0)  # type: ignore[arg-type]


def elastic_state_space(model: ElasticArm, q0, qd0, qdd0, tau0, dq, dqd) -> LinearModel:
    """The elastic model's (A, B) from the link side's inverse dynamics tau0 and its derivatives dtau/dq, dtau/dq'
    at (q0, qd0, qdd0) (a serial arm's by the complex step, a closed chain's M_a, h_a, G_a by differences)."""
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
