"""Compiled symbolic equations as a :class:`~designer.numeric.protocol.Dynamics`: the (..., n) shapes,
forward dynamics by a checked solve, and the Christoffel symbols and Jacobians from the batch engine.

Apart from :mod:`.protocol` because it builds a :class:`~designer.numeric.batch.BatchDynamics`, which
itself uses the protocol's state helpers.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .batch import BatchDynamics
from .protocol import BatchQuantities, solve_checked, states

__all__ = ["CompiledAdapter"]


class CompiledAdapter(BatchQuantities):
    """:class:`Dynamics` over compiled symbolic equations.

    ``compiled`` needs ``n`` and the single-state calls ``M(q)``, ``G(q)``, ``h(q, qd)``,
    ``tau(q, qd, qdd)`` on (n,) plus the batch calls ``M_many``, ``G_many``, ``h_many``,
    ``tau_many`` on (N, n), as :class:`designer.numeric.compiled.CompiledDynamics` has; this
    adapter adds the (..., n) shapes and forward dynamics by a checked solve. The Christoffel
    symbols and Jacobians come from the batch engine of ``arm`` (the same arm at the same
    parameter values), which the equations do not hold.
    """

    def __init__(self, compiled, arm=None):
        self.compiled = compiled
        self.n = int(compiled.n)
        self.arm = arm

    @cached_property
    def _batch(self):  # built once, on the first call that needs it
        if self.arm is None:
            raise ValueError("Christoffel symbols and Jacobians of compiled equations need the arm: "
                             "CompiledAdapter(compiled, arm)")
        return BatchDynamics(self.arm, self.compiled)

    def _apply(self, one, many, names, values, tail: tuple[int, ...]) -> np.ndarray:
        arrays = states(self.n, *zip(names, values))
        lead = arrays[0].shape[:-1]
        if not lead:
            return np.asarray(one(*arrays), dtype=float)
        flat = [a.reshape(-1, self.n) for a in arrays]
        return np.asarray(many(*flat), dtype=float).reshape(lead + tail)

    def M(self, q) -> np.ndarray:
        c = self.compiled
        return self._apply(c.M, c.M_many, ("q",), (q,), (self.n, self.n))

    def G(self, q) -> np.ndarray:
        c = self.compiled
        return self._apply(c.G, c.G_many, ("q",), (q,), (self.n,))

    def h(self, q, qd) -> np.ndarray:
        c = self.compiled
        return self._apply(c.h, c.h_many, ("q", "qd"), (q, qd), (self.n,))

    def tau(self, q, qd, qdd) -> np.ndarray:
        c = self.compiled
        return self._apply(c.tau, c.tau_many, ("q", "qd", "qdd"), (q, qd, qdd), (self.n,))

    def qdd(self, q, qd, tau) -> np.ndarray:
        q, qd, tau = states(self.n, ("q", q), ("qd", qd), ("tau", tau))
        return solve_checked(self.M(q), tau - self.h(q, qd) - self.G(q), q)
