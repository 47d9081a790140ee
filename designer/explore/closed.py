"""The explore metrics of a closed-chain mechanism, over M_a, G_a and the tool Jacobian J W.

:class:`ClosedArm` stands where the metrics take a :class:`~designer.kinematics.NumericArm` (its
actuated joints, their limits, the total mass) and gives :class:`ClosedBatch` for a block of
actuated states: M_a, M_a^-1, G_a, the tool Jacobian in the actuated rates, Lee's split of M_a and
the Christoffel symbols of M_a (:mod:`designer.explore.closed_terms`), under the serial batch's
names, so that every metric over them (coupling, effective inertias, condition number, Cartesian
inertia, Yoshikawa's dynamic manipulability, coriolis, gravity, tra_share, torque_bound) and the
A/B comparison work on a closed chain as on a serial arm. A state where a loop cannot close gives
NaN, which the summaries leave out.

The tool sits on the deepest leaf of the tree (the arm's end, not a parallelogram's coupler), with
the model's ``tool`` pose on it.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import numpy as np

from ..kinematics.closure import ClosureError
from ..model.manipulator import Manipulator, PointMass
from ..numeric.closed import ClosedDynamics
from .closed_terms import bodies_of, lee_terms

__all__ = ["ClosedArm", "ClosedBatch"]


class ClosedArm:
    """A closed chain in the metrics' terms; ``n`` is the number of actuated joints."""

    def __init__(self, model: Manipulator, overrides=None):
        self.model, self.overrides = model, overrides
        self.cd = ClosedDynamics(model, overrides)
        tree = self.cd.tree
        self.n = self.cd.n
        self.revolute = tree.arm.revolute[self.cd.act]
        self.limits = tree.arm.limits[self.cd.act]
        #: the actuated joints' link numbers (1-based), how eval and explore name them (explore/joint_names.py)
        self.joint_numbers = tuple(int(i) + 1 for i in self.cd.act)
        depth = [len(tree.path(i)) for i in range(tree.n)]
        self.tool_link = max(range(tree.n), key=lambda i: (depth[i], i))
        self.tool = tree.arm.tool
        self.gravity = tree.arm.gravity
        #: links as parts (beam bending) are the serial arm's: a closed chain's links are rigid here
        self.beams: tuple = ()

    def with_load(self, mass: float, position) -> ClosedArm:
        """This mechanism with a point mass (kg) at ``position`` (m) in the tool link's frame (a payload)."""
        x, y, z = (float(v) for v in position)
        load = PointMass(self.tool_link + 1, mass, (x, y, z))
        return ClosedArm(replace(self.model, point_masses=self.model.point_masses + (load,)), self.overrides)

    def total_mass(self) -> float:
        return self.cd.tree.arm.total_mass()

    # -- one pose, as NumericArm has them (the ISO 9283 cube's inverse kinematics, fk) ---------
    def tool_in_base(self, q) -> np.ndarray:
        """(4, 4) the tool frame in frame 0 at actuated values q, the loops closed on the nominal pose's branch
        (no state kept: worker threads share an arm); NaN where a loop cannot close (so that an
        inverse-kinematics step there is refused as one that does not lower the error)."""
        try:
            T = self.cd.tree.frames(self.cd.positions(q))
        except ClosureError:
            return np.full((4, 4), np.nan)
        return T[self.tool_link + 1] @ self.tool

    def tool_jacobian(self, q) -> np.ndarray:
        """(6, n) [v; w] of the tool point in the actuated rates at q (NaN where a loop cannot close)."""
        return self.batch([q]).tool_jacobian[0]

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
    """The quantities of a block of actuated states (N, n), under the serial :class:`~designer.numeric.batch.Batch`'s
    names: M, M_inv, G, tool_position, tool_jacobian, D_tra, D_rot, gamma, dM, coriolis, lee_h, torque, size;
    NaN where a loop cannot close (or is at a dead centre)."""

    def __init__(self, arm: ClosedArm, q: np.ndarray):
        self.arm, self.q, self.n = arm, q, arm.n
        cd, N, n = arm.cd, len(q), arm.n
        self.M = np.full((N, n, n), np.nan)
        self.G = np.full((N, n), np.nan)
        self.tool_jacobian = np.full((N, 6, n), np.nan)
        #: (N, 3) the tool point in frame 0, as the serial batch's
        self.tool_position = np.full((N, 3), np.nan)
        #: the closed tree pose and its W of each state (None where a loop cannot close)
        self.closed: list[tuple[np.ndarray, np.ndarray] | None] = []
        guess = None
        for k, qa in enumerate(q):
            try:
                guess = cd.positions(qa, guess)
                W = cd.closure.W(guess)   # a dead centre closes but leaves the passive rates undetermined
            except ClosureError:
                guess = None
                self.closed.append(None)
                continue
            self.closed.append((guess, W))
            self.M[k] = W.T @ cd.tree_M(guess) @ W
            zero = np.zeros(cd.n_tree)
            self.G[k] = W.T @ cd.tree_tau(guess, zero, zero, True)
            T = cd.tree.frames(guess)
            point = self.tool_position[k] = (T[arm.tool_link + 1] @ arm.tool)[:3, 3]
            self.tool_jacobian[k] = cd.tree.point_jacobian(T, cd.tree.joint_axes(T), point, arm.tool_link) @ W

    @property
    def size(self) -> int:
        return len(self.q)

    def torque(self, qd, qdd) -> np.ndarray:
        """tau_a (N, n) at the batch's positions and these rates (NaN where a loop cannot close)."""
        out = np.full((len(self.q), self.n), np.nan)
        for k, (state, qa, v, a) in enumerate(zip(self.closed, self.q, np.asarray(qd, float), np.asarray(qdd, float))):
            if state is not None:
                try:
                    out[k] = self.arm.cd.tau(qa, v, a, state[0])
                except ClosureError:
                    pass
        return out

    @cached_property
    def M_inv(self) -> np.ndarray:
        out = np.full_like(self.M, np.nan)
        ok = np.isfinite(self.M).all(axis=(1, 2))
        if ok.any():
            out[ok] = np.linalg.pinv(self.M[ok])
        return out

    # -- Lee's split and the Christoffel symbols (explore/closed_terms.py) --------------
    @cached_property
    def _lee(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        N, n = len(self.q), self.n
        D_tra, D_rot = np.full((N, n, n), np.nan), np.full((N, n, n), np.nan)
        g_tra, g_rot = np.full((N, n, n, n), np.nan), np.full((N, n, n, n), np.nan)
        bodies = bodies_of(self.arm.cd)
        ok = [k for k, state in enumerate(self.closed) if state is not None]
        try:
            parts = [(ok, self._terms(bodies, ok))] if ok else []
        except ClosureError:   # a state's passive accelerations undetermined (next to a dead centre): one by one
            parts = []
            for k in ok:
                try:
                    parts.append(([k], self._terms(bodies, [k])))
                except ClosureError:
                    pass
        for rows, t in parts:
            D_tra[rows], D_rot[rows], g_tra[rows], g_rot[rows] = t.D_tra, t.D_rot, t.gamma_tra, t.gamma_rot
        return D_tra, D_rot, g_tra, g_rot

    def _terms(self, bodies, rows: list[int]):
        states = [self.closed[k] for k in rows]
        return lee_terms(self.arm.cd, bodies, np.array([s[0] for s in states if s is not None]),
                         np.array([s[1] for s in states if s is not None]))

    @property
    def D_tra(self) -> np.ndarray:
        """(N, n, n) Lee's translational part of M_a: W^T sum m Jv^T Jv W."""
        return self._lee[0]

    @property
    def D_rot(self) -> np.ndarray:
        """(N, n, n) Lee's rotational part of M_a: W^T sum Jw^T I Jw W."""
        return self._lee[1]

    @cached_property
    def gamma(self) -> np.ndarray:
        """(N, n, n, n) Christoffel symbols of M_a, symmetric in the last two indices: h_a,i = qd^T Gamma_i qd."""
        return self._lee[2] + self._lee[3]

    @cached_property
    def dM(self) -> np.ndarray:
        """(N, n, n, n) dM_a,ij / dq_a,k = Gamma_ijk + Gamma_jik."""
        return self.gamma + np.swapaxes(self.gamma, 1, 2)

    def coriolis(self, qd) -> np.ndarray:
        """h_a (N, n) = qd^T Gamma_i qd for one velocity (n,) or one per state (N, n)."""
        qd = np.broadcast_to(np.asarray(qd, float), (self.size, self.n))
        return np.einsum("nijk,nj,nk->ni", self.gamma, qd, qd)

    def lee_h(self, qd) -> tuple[np.ndarray, np.ndarray]:
        """Lee's (H_tra, H_rot), each (N, n): the velocity torques of the two kinetic-energy parts."""
        qd = np.broadcast_to(np.asarray(qd, float), (self.size, self.n))
        h_tra, h_rot = (np.einsum("nijk,nj,nk->ni", g, qd, qd) for g in self._lee[2:])
        return h_tra, h_rot
