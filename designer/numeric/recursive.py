"""Single-state numeric dynamics of a :class:`~designer.kinematics.NumericArm`.

The convenience calls for one state at a time (q, qd, qdd of shape (n,)), all
answered by the numeric engine (:class:`~designer.numeric.engine.ArmDynamics`:
recursive Newton-Euler, composite rigid bodies, generated once per arm), so
the physics is written once. Point masses are lumped into the link that
carries them (:func:`~designer.numeric.model.lumped_bodies`).

The Coriolis coefficients in ROBMAT's form are read off the quadratic form
h(qd) exactly by polarization.
"""

from __future__ import annotations

import numpy as np

from ..kinematics import NumericArm
from .engine import arm_dynamics
from .model import LumpedBodies, lumped_bodies

__all__ = ["LumpedBodies", "lumped_bodies", "rnea", "mass_matrix", "gravity_torque", "bias",
           "coriolis_coefficients", "christoffel", "coriolis_matrix"]


def _check(arm: NumericArm, name: str, v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    if v.shape != (arm.n,):
        raise ValueError(f"{name}: expected {arm.n} values, got shape {v.shape}")
    return v


def rnea(arm: NumericArm, q, qd, qdd, gravity: bool = True) -> np.ndarray:
    """Inverse dynamics tau(q, qd, qdd) by the recursive Newton-Euler method.

    Parameters
    ----------
    arm : NumericArm
    q, qd, qdd : array_like, shape (n,)
        Joint positions, velocities, accelerations (rad or m).
    gravity : bool
        Include the gravity torques (``arm.gravity``).

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    q, qd, qdd = (_check(arm, k, v) for k, v in (("q", q), ("qd", qd), ("qdd", qdd)))
    dyn = arm_dynamics(arm)
    tau = dyn.tau(q, qd, qdd)
    return tau if gravity else tau - dyn.G(q)


def mass_matrix(arm: NumericArm, q) -> np.ndarray:
    """M(q), symmetric n x n, by composite rigid bodies."""
    return arm_dynamics(arm).M(_check(arm, "q", q))


def gravity_torque(arm: NumericArm, q) -> np.ndarray:
    """G(q): the joint torques that hold the arm still against gravity."""
    return arm_dynamics(arm).G(_check(arm, "q", q))


def bias(arm: NumericArm, q, qd) -> np.ndarray:
    """h(q, qd) = tau(q, qd, 0) - G(q): Coriolis and centrifugal torques."""
    return arm_dynamics(arm).h(_check(arm, "q", q), _check(arm, "qd", qd))


def christoffel(arm: NumericArm, q) -> np.ndarray:
    """Gamma (n, n, n), symmetric in its last two indices, with h_i = qd^T Gamma_i qd.

    These are the Christoffel symbols of the first kind of M; they are read
    off h exactly by polarization: Gamma_i,jj = h_i(e_j) and
    Gamma_i,jk = (h_i(e_j + e_k) - h_i(e_j - e_k)) / 4, all velocities in one call.
    """
    q = _check(arm, "q", q)
    n = arm.n
    E = np.eye(n)
    j, k = np.triu_indices(n, 1)
    velocities = np.concatenate([E, E[j] + E[k], E[j] - E[k]])
    h = arm_dynamics(arm).h(np.broadcast_to(q, velocities.shape), velocities)
    gamma = np.empty((n, n, n))
    gamma[:, np.arange(n), np.arange(n)] = h[:n].T
    mixed = 0.25 * (h[n:n + len(j)] - h[n + len(j):]).T
    gamma[:, j, k] = mixed
    gamma[:, k, j] = mixed
    return gamma


def coriolis_coefficients(arm: NumericArm, q) -> tuple[np.ndarray, np.ndarray]:
    """(B, C) of ROBMAT's form tau = M qdd + 2 B [qd_j qd_k] + C [qd_j^2] + G.

    B is n x n(n-1)/2 against the products ordered (1,2), (1,3), ..., (n-1,n);
    C is n x n against the squares.
    """
    gamma = christoffel(arm, q)
    n = arm.n
    j, k = np.triu_indices(n, 1)
    B = gamma[:, j, k].reshape(n, len(j))
    C = np.stack([gamma[:, i, i] for i in range(n)], axis=1)
    return B, C


def coriolis_matrix(arm: NumericArm, q, qd) -> np.ndarray:
    """C(q, qd) with h = C qd and dM/dt - 2C skew-symmetric (C_ij = sum_k Gamma_ijk qd_k)."""
    return np.einsum("ijk,k->ij", christoffel(arm, q), _check(arm, "qd", qd))


