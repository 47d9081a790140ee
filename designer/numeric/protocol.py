"""The one interface of the numeric layer, and its errors.

Every numeric dynamics of a mechanism answers the same calls, each over arrays of states of shape
(..., n): one state (n,), a trajectory (N, n), a grid (A, B, n). Results keep the leading shape: M is
(..., n, n), G, h, tau and q'' are (..., n), the energies (...). The engines: a serial arm's recursive
engine :class:`~designer.numeric.engine.ArmDynamics`, its batch engine
:class:`~designer.numeric.batch.BatchDynamics`, compiled symbolic equations through
:class:`~designer.numeric.adapter.CompiledAdapter`, and a closed chain in its actuated coordinates,
:class:`~designer.numeric.closed.ClosedDynamics`. :func:`designer.numeric.mechanism.load_dynamics` gives
the right one for any model: callers never choose.

A serial arm is the mechanism with no loops (W = I). What a closed chain adds is asked the same way
of every engine, and a serial one answers it trivially (:class:`NoLoops`):

- ``n_tree`` and ``actuated``: the tree's joint count and the tree joints (0-based) that the n
  coordinates are (a serial arm: n and 0..n-1);
- ``positions(q)`` (..., n_tree): every tree joint's value, the passive ones closing the loops;
- ``residual(q)`` (...): the largest loop residual of that closure (0 without loops);
- ``cut_forces(q, qd, qdd)``: :class:`CutForces` (..., loops, 3) the cut joints carry (no rows
  without loops);
- ``following()``: an engine on the same mechanism whose closure continues from its own last state
  (a trajectory keeps its branch: simulation); a serial engine returns itself. Without it, each call's
  states close one after the other, the first on the nominal pose's branch, so that a call's answer
  does not depend on the calls before it (worker threads share an engine).

An elastic arm is a mechanism of its own: :class:`~designer.numeric.elastic.ElasticDynamics` (link side any
engine above, and the drive data's springs) answers this protocol over (..., n + m), Spong's model in
(q, theta_E): M = diag(M(q) + the rigid joints' reflected rotors, Jm), the springs' and dampers' torques among
G and h, the rotors' kinetic and the springs' potential energy added; its extras are the link side's. A rigid
joint is the case with no spring (m = 0: the link side itself, as load_dynamics gives it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import DesignerError

__all__ = ["Dynamics", "BatchQuantities", "CutForces", "NoLoops", "SingularConfigurationError", "MAX_CONDITION",
           "states", "solve_checked"]

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
    """M, G, h, tau, forward dynamics, Jacobians and energy of a mechanism with n coordinates over states of
    shape (..., n), and the closed chain's extras (the module's docstring)."""

    n: int

    @property
    def n_tree(self) -> int:
        """The tree's joint count (n without loops)."""

    @property
    def actuated(self) -> tuple[int, ...]:
        """The tree joints (0-based) the n coordinates are."""

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
        """(..., 6, n): the geometric Jacobian [v; w] of the tool point."""

    def energy(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        """(kinetic, potential), each (...); the potential is zero with every COM at frame 0's origin."""

    # -- the closed chain's extras: every engine answers them ------------------------------------
    def positions(self, q) -> np.ndarray:
        """(..., n_tree) every tree joint's value, the passive ones from the loops."""

    def residual(self, q) -> np.ndarray:
        """(...) the largest loop residual of the closure at q (m or rad)."""

    def cut_forces(self, q, qd, qdd) -> CutForces:
        """What the cut joints carry while the coordinates follow (q, qd, qdd)."""

    def following(self, start=None) -> Dynamics:
        """The same mechanism, its closure continuing from its own last state (first from the tree pose
        ``start`` when given)."""


@dataclass(frozen=True)
class CutForces:
    """What each cut joint carries, frame-0 axes: ``force[..., k, :]`` on loop k's link i from its link j (N) at
    the cut point, ``moment[..., k, :]`` on link i (N m; zero for a ball joint); (..., 0, 3) without loops."""

    force: np.ndarray
    moment: np.ndarray

    def as_lists(self) -> list[dict]:
        """One state's loops as [{force, moment}, ...]."""
        return [{"force": f.tolist(), "moment": m.tolist()} for f, m in zip(self.force, self.moment)]


class NoLoops:
    """The closed chain's extras of a mechanism without loops (the protocol's docstring): the coordinates are
    the tree's joints, nothing to close, nothing cut."""

    n: int

    @property
    def n_tree(self) -> int:
        return self.n

    @property
    def actuated(self) -> tuple[int, ...]:
        return tuple(range(self.n))

    def positions(self, q) -> np.ndarray:
        """The joint values themselves, (..., n)."""
        return states(self.n, ("q", q))[0].copy()

    def residual(self, q) -> np.ndarray:
        """Zeros of the leading shape: no loop."""
        return np.zeros(states(self.n, ("q", q))[0].shape[:-1])

    def cut_forces(self, q, qd, qdd) -> CutForces:
        """No cut joint: (..., 0, 3)."""
        lead = states(self.n, ("q", q), ("qd", qd), ("qdd", qdd))[0].shape[:-1]
        return CutForces(np.zeros(lead + (0, 3)), np.zeros(lead + (0, 3)))

    def following(self, start=None):
        """Itself: nothing to keep continuous."""
        return self


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


class BatchQuantities(NoLoops):
    """Christoffel symbols, Jacobians and energy taken from a batch engine (``self._batch``, a
    :class:`~designer.numeric.batch.BatchDynamics`): shared by the serial engines that compute M, G, h and tau
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

    def energy(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        """(kinetic, potential), each (...)."""
        return self._batch.energy(q, qd)
