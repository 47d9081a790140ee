"""Linearized and discrete-time models of the arm about an operating point.

With x = (q, qd) and the forward dynamics f(x, tau) = M(q)^-1 (tau - h(q, qd) - G(q)), the model

    dx/dt = A dx + B dtau,   A = [[0, 1], [-M^-1 dtau/dq, -M^-1 dtau/dqd]],   B = [[0], [M^-1]]

follows from the inverse dynamics: tau_ID(q, qd, f(q, qd, tau)) = tau, so M df/dq = -dtau_ID/dq at
the operating acceleration qdd0 (and likewise for qd). The derivatives of tau_ID come from the
regressor by the complex step (tau(q + i h e_k) has imaginary part h dtau/dq_k to rounding, h = 1e-30:
no subtraction, so exact to machine precision, unlike finite differences).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics import NumericArm
from .expm import expm
from ..numeric.recursive import mass_matrix
from ..identification.regressor import regressor
from ..dynamics.inertial import standard_parameter_values

__all__ = ["LinearModel", "DiscreteModel", "linearize", "inverse_dynamics_derivatives", "METHODS", "state_space"]

_STEP = 1e-30
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
