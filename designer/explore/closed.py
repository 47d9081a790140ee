"""The explore metrics of a closed-chain mechanism, over M_a, G_a and the tool Jacobian J W.

:class:`ClosedArm` stands where the metrics take a :class:`~designer.kinematics.NumericArm` (its
actuated joints, their limits, the total mass) and gives :class:`ClosedBatch` for a block of
actuated states: M_a, M_a^-1, G_a and the tool Jacobian in the actuated rates, so that the metrics
built on them (coupling, effective inertias, condition number, Cartesian inertia, Yoshikawa's
dynamic manipulability, gravity) and the A/B comparison work on a closed chain as on a serial arm.
The Christoffel symbols and Lee's split (the coriolis and tra_share metrics) are not given for
closed chains yet: those metrics are left out, as a metric lacking a rating is. A state where a
loop cannot close gives NaN, which the summaries leave out.

The tool sits on the deepest leaf of the tree (the arm's end, not a parallelogram's coupler), with
the model's ``tool`` pose on it.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..kinematics.closure import ClosureError
from ..model.manipulator import Manipulator
from ..numeric.closed import ClosedDynamics
from .metrics import MetricError

__all__ = ["ClosedArm", "ClosedBatch"]


class ClosedArm:
    """A closed chain in the metrics' terms; ``n`` is the number of actuated joints."""

    def __init__(self, model: Manipulator, overrides=None):
        self.cd = ClosedDynamics(model, overrides)
        tree = self.cd.tree
        self.n = self.cd.n
        self.revolute = tree.arm.revolute[self.cd.act]
        self.limits = tree.arm.limits[self.cd.act]
        depth = [len(tree.path(i)) for i in range(tree.n)]
        self.tool_link = max(range(tree.n), key=lambda i: (depth[i], i))
        self.tool = tree.arm.tool

    def total_mass(self) -> float:
        return self.cd.tree.arm.total_mass()

    def tool_points(self, Q) -> np.ndarray:
        """(N, 3) the tool point in frame 0 at actuated states Q (N, n); NaN where a loop cannot close."""
        out = np.full((len(Q), 3), np.nan)
        guess = None
        for k, qa in enumerate(np.asarray(Q, float)):
            try:
                guess = self.cd.positions(qa, guess)
            except ClosureError:
                guess = None
                continue
            out[k] = (self.cd.tree.frames(guess)[self.tool_link + 1] @ self.tool)[:3, 3]
        return out

    def batch(self, q) -> ClosedBatch:
        return ClosedBatch(self, np.atleast_2d(np.asarray(q, float)))


class ClosedBatch:
    """M, M_inv, G, tool_jacobian of a block of actuated states (N, n)."""

    def __init__(self, arm: ClosedArm, q: np.ndarray):
        self.arm, self.q, self.n = arm, q, arm.n
        cd, N, n = arm.cd, len(q), arm.n
        self.M = np.full((N, n, n), np.nan)
        self.G = np.full((N, n), np.nan)
        self.tool_jacobian = np.full((N, 6, n), np.nan)
        guess = None
        for k, qa in enumerate(q):
            try:
                guess = cd.positions(qa, guess)
            except ClosureError:
                guess = None
                continue
            W = cd.closure.W(guess)
            self.M[k] = W.T @ cd.tree_M(guess) @ W
            zero = np.zeros(cd.n_tree)
            self.G[k] = W.T @ cd.tree_tau(guess, zero, zero, True)
            T = cd.tree.frames(guess)
            point = (T[arm.tool_link + 1] @ arm.tool)[:3, 3]
            self.tool_jacobian[k] = cd.tree.point_jacobian(T, cd.tree.joint_axes(T), point, arm.tool_link) @ W

    def torque(self, qd, qdd) -> np.ndarray:
        """tau_a (N, n) at the batch's positions and these rates (NaN where a loop cannot close)."""
        out = np.full((len(self.q), self.n), np.nan)
        guess = None
        for k, (qa, v, a) in enumerate(zip(self.q, np.asarray(qd, float), np.asarray(qdd, float))):
            try:
                guess = self.arm.cd.positions(qa, guess)
            except ClosureError:
                guess = None
                continue
            out[k] = self.arm.cd.tau(qa, v, a, guess)
        return out

    @cached_property
    def M_inv(self) -> np.ndarray:
        out = np.full_like(self.M, np.nan)
        ok = np.isfinite(self.M).all(axis=(1, 2))
        if ok.any():
            out[ok] = np.linalg.pinv(self.M[ok])
        return out

    def _missing(self, what: str):
        raise MetricError(f"{what} of a closed chain: not computed yet (closed chains give the metrics over "
                          "M_a, G_a and the tool Jacobian)")

    @property
    def gamma(self):
        self._missing("the Christoffel symbols")

    @property
    def D_rot(self):
        self._missing("Lee's split")

    @property
    def D_tra(self):
        self._missing("Lee's split")

    def lee_h(self, speed):
        self._missing("Lee's split")
