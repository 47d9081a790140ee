"""The one interface of the numeric layer, and its errors.

Every numeric dynamics of an arm (the recursive engine :class:`~designer.numeric.engine.ArmDynamics`,
compiled symbolic equations through :class:`CompiledAdapter`) answers the same calls, each over
arrays of states of shape (..., n): one state (n,), a trajectory (N, n), a grid (A, B, n).
Results keep the leading shape: M is (..., n, n), G, h, tau and q'' are (..., n).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import DesignerError

__all__ = ["Dynamics", "BatchQuantities", "SingularConfigurationError", "MAX_CONDITION", "states", "solve_checked"]

#: M is treated as singular above this condition number (about 1/sqrt(machine epsilon) squared)
MAX_CONDITION = 1e12


class SingularConfigurationError(DesignerError):
    """The mass matrix is singular or too ill-conditioned to solve for q''."""

    def __init__(self, q: np.ndarray, condition: float):
        self.q = np.asarray(q, dtype=float)
        self.condition = float(condition)
        qs = ", ".join(f"{v:.6g}" for v in self.q.ravel())
        super().__init__(f"mass matrix singular at q = [{qs}] (condition number {self.condition:.3g}); "
                         "forward dynamics is undefined there (a massless link or joint?)")


@runtime_checkable
class Dynamics(Protocol):
    """M, G, h, tau and forward dynamics of an n-joint arm over states of shape (..., n)."""

    n: int

    def M(self, q) -> np.ndarray:
        """Mass matrix, (..., n, n)."""

    def G(self, q) -> np.ndarray:
        """Gravity torques, (..., n): tau = M q'' + h + G."""

    def h(self, q, qd) -> np.ndarray:
        """Coriolis and centrifugal torques, (..., n)."""

    def tau(self, q, qd, qdd) -> np.ndarray:
        """Inverse dynamics, (..., n)."""

    def qdd(self, q, qd, tau) -> np.ndarray:
        """Forward dynamics, (..., n); raises :class:`SingularConfigurationError` where M is singular."""

    def christoffel(self, q) -> np.ndarray:
        """Christoffel symbols of the first kind, (..., n, n, n): h_i = qd^T Gamma_i qd."""

    def com_jacobians(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(Jv, Jw), each (..., B, 3, n): the Jacobians of every body's COM (links, then point masses)."""

    def tool_jacobian(self, q) -> np.ndarray:
        """(..., 6, n): the geometric Jacobian [v; w] of the last frame's origin."""


def states(n: int, *named: tuple[str, Any]) -> list[np.ndarray]:
    """The named arrays as floats of one common shape (..., n); a one-line error names the culprit."""
    arrays = []
    for name, v in named:
        a = np.asarray(v, dtype=float)
        if a.ndim == 0 or a.shape[-1] != n:
            raise ValueError(f"{name}: expected {n} values per state, got shape {a.shape}")
        arrays.append(a)
    try:
        return list(np.broadcast_arrays(*arrays))
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape}" for (name, _), a in zip(named, arrays))
        raise ValueError(f"states of different shapes: {shapes}") from None


def solve_checked(M: np.ndarray, rhs: np.ndarray, q: np.ndarray) -> np.ndarray:
    """M^-1 rhs over (..., n, n) and (..., n), refusing the first singular M with its q."""
    cond = np.linalg.cond(M.reshape(-1, M.shape[-2], M.shape[-1]))
    bad = ~np.isfinite(cond) | (cond > MAX_CONDITION)
    if bad.any():
        k = int(np.argmax(bad))
        raise SingularConfigurationError(q.reshape(-1, q.shape[-1])[k], cond[k])
    return np.linalg.solve(M, rhs[..., None])[..., 0]


class BatchQuantities:
    """Christoffel symbols and Jacobians taken from a batch engine (``self._batch``, a
    :class:`~designer.numeric.batch.BatchDynamics`): shared by the engines that compute M, G, h and tau
    themselves."""

    _batch: Any

    def christoffel(self, q) -> np.ndarray:
        """Christoffel symbols of the first kind (..., n, n, n), h_i = qd^T Gamma_i qd."""
        return self._batch.christoffel(q)

    def com_jacobians(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(Jv, Jw), each (..., B, 3, n): every body's COM (links, then point masses)."""
        return self._batch.com_jacobians(q)

    def tool_jacobian(self, q) -> np.ndarray:
        """(..., 6, n) geometric Jacobian [v; w] of the tool point."""
        return self._batch.tool_jacobian(q)
