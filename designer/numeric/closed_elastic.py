"""The link side of a closed chain for the elastic-joint model: M_a, h_a, G_a in its actuated coordinates.

A closed chain's elastic joints are its actuated ones (the gearboxes sit at the motors), so Spong's
model keeps its form with the actuated coordinates q_a (docs/elastic.md, "Closed chains"):

    M_a(q_a) q_a'' + h_a + G_a = K (theta/N - q_a) + D (theta'/N - q_a')   (N tau_m at a rigid actuated joint)
    Jm theta'' + (K (theta/N - q_a) + D (theta'/N - q_a')) / N = tau_m

with M_a = W^T M W, h_a = W^T (M W' qd_a + h), G_a = W^T G (:mod:`designer.numeric.closed`). The loops
are closed at every state: :class:`ClosedLinkSide` answers :class:`~designer.numeric.elastic.LinkSide`'s
calls, so :class:`~designer.numeric.elastic.ElasticArm` (forward dynamics, energy, the stiff Jacobian),
the simulation and the linearization are the serial arm's code over it. With ``follow`` each state's
closure starts from the previous one (a trajectory: the branch stays continuous); without, from the
nominal pose's branch (independent states, as the generated code and eval take them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .closed import ClosedDynamics, ClosureError
from .protocol import states

__all__ = ["ClosedLinkSide"]


class ClosedLinkSide:
    """M_a, G_a, h_a, forward dynamics and energy of a closed chain over states (..., n_a)."""

    def __init__(self, cd: ClosedDynamics, follow: bool = False):
        self.cd, self.n, self.follow = cd, cd.n, follow
        self._guess: np.ndarray | None = None

    def positions(self, q_a) -> np.ndarray:
        """The tree's joint values closing the loops at q_a (from the last state's when following)."""
        q = self.cd.positions(q_a, self._guess if self.follow else None)
        if self.follow:
            self._guess = q
        return q

    def residual(self, q_a) -> float:
        """The largest loop residual (m or rad) of the closure at q_a."""
        return self.cd.residual(self.positions(q_a))

    # -- one state ---------------------------------------------------------------------------------
    def _terms(self, q_a, qd_a, gravity: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(M_a, h_a [+ G_a]) from one closure of the loops."""
        cd = self.cd
        q = self.positions(q_a)
        qd, qdd0, W, _ = cd.closure.rates(q, qd_a, np.zeros(self.n))
        return W.T @ cd.tree_M(q) @ W, W.T @ cd.tree_tau(q, qd, qdd0, gravity)

    def _one_qdd(self, q_a, qd_a, tau) -> np.ndarray:
        M, bias = self._terms(q_a, qd_a)
        try:
            L = np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            raise ClosureError(f"the mass matrix in the actuated joints is singular at q = {list(q_a)}") from None
        return np.linalg.solve(L.T, np.linalg.solve(L, np.asarray(tau, dtype=float) - bias))

    def _one_energy(self, q_a, qd_a) -> np.ndarray:
        return np.array(self.cd.energy(q_a, qd_a, self.positions(q_a)))

    def _one_M(self, q_a) -> np.ndarray:
        """M_a alone (the integrator's Jacobian): no rates, no RNEA."""
        cd = self.cd
        q = self.positions(q_a)
        W = cd.closure.W(q)
        return W.T @ cd.tree_M(q) @ W

    def _one_G(self, q_a) -> np.ndarray:
        cd = self.cd
        q = self.positions(q_a)
        zero = np.zeros(cd.n_tree)
        return cd.closure.W(q).T @ cd.tree_tau(q, zero, zero, True)

    # -- over states (..., n_a), state by state (the loops close one state at a time) ---------------
    def _each(self, fn: Callable, named: tuple, width: tuple[int, ...]) -> np.ndarray:
        arrays = states(self.n, *named)
        lead = arrays[0].shape[:-1]
        flat = [a.reshape(-1, self.n) for a in arrays]
        out = np.array([fn(*row) for row in zip(*flat)]).reshape((-1,) + width)
        return out.reshape(lead + width)

    def M(self, q) -> np.ndarray:
        return self._each(self._one_M, (("q", q),), (self.n, self.n))

    def G(self, q) -> np.ndarray:
        return self._each(self._one_G, (("q", q),), (self.n,))

    def h(self, q, qd) -> np.ndarray:
        return self._each(lambda qa, qda: self._terms(qa, qda, False)[1], (("q", q), ("qd", qd)), (self.n,))

    def qdd(self, q, qd, tau) -> np.ndarray:
        """q_a'' = M_a^-1 (tau - h_a - G_a); ClosureError where a loop cannot close or M_a is singular."""
        return self._each(self._one_qdd, (("q", q), ("qd", qd), ("tau", tau)), (self.n,))

    def energy(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        """(kinetic, potential) of the whole mechanism's links."""
        both = self._each(self._one_energy, (("q", q), ("qd", qd)), (2,))
        return both[..., 0], both[..., 1]

    def scalar_function(self, quantity: str) -> Callable:
        """G as a list-in, list-out function (the motor-side PD's gravity compensation at its reference), with
        its own closure history: the reference moves apart from the simulated state."""
        if quantity != "G":
            raise ValueError(f"a closed chain's link side has no generated {quantity!r}")
        reference = ClosedLinkSide(self.cd, self.follow)
        return lambda q: reference._one_G(np.asarray(q, dtype=float)).tolist()
