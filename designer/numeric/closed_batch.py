"""A block of a closed chain's actuated states at once: M_a, M_a^-1, G_a, the tool Jacobian J W, the bodies'
Jacobians, Lee's split of M_a and its Christoffel symbols (:mod:`designer.numeric.closed_terms`), under the
serial :class:`~designer.numeric.batch.Batch`'s names, so that every explore metric over them (coupling,
effective inertias, condition number, Cartesian inertia, Yoshikawa's dynamic manipulability, coriolis, gravity,
tra_share, torque_bound) works on a closed chain as on a serial arm; :class:`~designer.numeric.closed.ClosedDynamics`
answers the protocol's christoffel, com_jacobians and tool_jacobian from it. The loops are closed state by state;
the rest comes from the bodies' Jacobians for all states of a block at once (M_a = D_tra + D_rot, G_a =
-sum m (Jv W)^T g), which the tests hold to the tree's CRBA and RNEA projected by W. A state where a loop cannot
close gives NaN, which the summaries leave out.

The tool sits on the deepest leaf of the tree (the arm's end, not a parallelogram's coupler), with the model's
``tool`` pose on it.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cached_property
from typing import Any

import numpy as np

from ..kinematics.closure import ClosureError
from .closed_terms import Kinematics, bodies_of, christoffel_symbols, kinematics, point_jacobians

__all__ = ["ClosedBatch"]


class ClosedBatch:
    """The quantities of a block of actuated states (N, n), under the serial :class:`~designer.numeric.batch.Batch`'s
    names: M, M_inv, G, tool_position, tool_jacobian, D_tra, D_rot, gamma, dM, coriolis, lee_h, torque, size;
    NaN where a loop cannot close (or is at a dead centre)."""

    def __init__(self, cd, q: np.ndarray, arm: Any = None, start=None):
        """``cd``: the :class:`~designer.numeric.closed.ClosedDynamics`; ``arm``: the owner the metrics read as
        ``b.arm`` (its ActuatedArm; ``cd`` itself without one); ``start``: a closed tree pose the first
        state's closure continues from (the nominal pose's branch without one)."""
        self.cd, self.q, self.n = cd, q, cd.n
        self.arm = cd if arm is None else arm
        N, n = len(q), cd.n
        #: the closed tree pose and its W of each state (None where a loop cannot close)
        self.closed: list[tuple[np.ndarray, np.ndarray] | None] = []
        guess = start
        for qa in q:   # the loops state by state, each continuing from the last
            try:
                guess = cd.closure.solve(qa, guess)
                W = cd.closure.W(guess)   # a dead centre closes but leaves the passive rates undetermined
            except ClosureError:
                guess = None
                self.closed.append(None)
                continue
            self.closed.append((guess, W))
        #: the states that close, and their tree poses and W stacked
        self._ok = [k for k, state in enumerate(self.closed) if state is not None]
        self._q_tree = np.array([self.closed[k][0] for k in self._ok]).reshape(-1, cd.n_tree)  # type: ignore[index]
        self._W = np.array([self.closed[k][1] for k in self._ok]).reshape(-1, cd.n_tree, n)  # type: ignore[index]
        self._bodies = bodies_of(cd)
        self.M, self.G = np.full((N, n, n), np.nan), np.full((N, n), np.nan)
        self.D_tra, self.D_rot = np.full((N, n, n), np.nan), np.full((N, n, n), np.nan)
        self.tool_jacobian = np.full((N, 6, n), np.nan)
        #: (N, 3) the tool point in frame 0, as the serial batch's
        self.tool_position = np.full((N, 3), np.nan)
        if not self._ok:
            return
        # every closed state at once, from the bodies' Jacobians as the serial batch: M_a = D_tra + D_rot,
        # G_a = -sum m Jv^T g (the tests hold them to the tree's CRBA and RNEA projected by W)
        kin = self._kin = kinematics(cd, self._bodies, self._q_tree, self._W)
        ok = self._ok
        self.D_tra[ok], self.D_rot[ok] = kin.D_tra, kin.D_rot
        self.M[ok] = kin.D_tra + kin.D_rot
        self.G[ok] = -np.einsum("b,nbki,k->ni", self._bodies.mass, kin.Jv, np.asarray(cd.tree.arm.gravity, float))
        tool = kin.T[:, cd.tree.tool_link + 1] @ cd.tree.arm.tool
        self.tool_position[ok] = tool[:, :3, 3]
        path = np.zeros((1, cd.n_tree), dtype=bool)
        path[0, cd.tree.path(cd.tree.tool_link)] = True
        Jv, Jw = point_jacobians(cd.tree, kin.origins, kin.z, tool[:, None, :3, 3], path, self._W)
        self.tool_jacobian[ok] = np.concatenate([Jv[:, 0], Jw[:, 0]], axis=1)

    @cached_property
    def com_jacobians(self) -> tuple[np.ndarray, np.ndarray]:
        """(Jv, Jw), each (N, B, 3, n): every body's centre (links, then point masses) in the actuated rates."""
        N, n, B = len(self.q), self.n, len(self._bodies.mass)
        Jv, Jw = np.full((N, B, 3, n), np.nan), np.full((N, B, 3, n), np.nan)
        if self._ok:
            Jv[self._ok], Jw[self._ok] = self._kin.Jv, self._kin.Jw
        return Jv, Jw

    @property
    def size(self) -> int:
        return len(self.q)

    def torque(self, qd, qdd) -> np.ndarray:
        """tau_a (N, n) at the batch's positions and these rates (NaN where a loop cannot close)."""
        out = np.full((len(self.q), self.n), np.nan)
        for k, (state, v, a) in enumerate(zip(self.closed, np.asarray(qd, float), np.asarray(qdd, float))):
            if state is not None:
                try:
                    out[k] = self.cd._at(state[0], v, a)[0]
                except ClosureError:
                    pass
        return out

    # -- the links' bending with the loops closed over their slices (numeric/closed_flex.py; docs/elastic.md
    # "Closed chains"): the batch's ``arm`` (its ActuatedArm) keeps the virtual-joint models --------------
    def _links(self, stiffness, segments: int, value, width: tuple[int, ...] = ()) -> np.ndarray:
        """``value(model, q_tree)`` (the ClosedFlex model, the closed tree poses stacked) at every state that
        closes (NaN elsewhere, and at a dead centre); zeros without part-made links."""
        out = np.full((len(self.q),) + width, np.nan)
        if not self.cd.tree.arm.beams and stiffness is None:
            out[self._ok] = 0.0
            return out
        if self._ok:
            model = self.arm.flex(stiffness, segments)
            out[self._ok] = value(model, self._q_tree)
        return out

    def links_sag(self, payload: float, segments: int) -> np.ndarray:
        """(N, 6): the links' share of the tool's [delta; theta] under gravity and ``payload`` kg (the gearboxes
        rigid; the two shares add exactly: the gearboxes never meet the rows the loops hold against the slices)."""
        return self._links(None, segments, lambda m, q: m.sags(q, payload), (6,))

    def links_compliance(self, segments: int) -> np.ndarray:
        """(N, 6, 6): the links' share of the tool's compliance (frame-0 axes)."""
        return self._links(None, segments, lambda m, q: m.compliances(q), (6, 6))

    def frequency_links(self, joints, segments: int) -> np.ndarray:
        """(N,) Hz: the lowest natural frequency, motors locked, with the actuated joints' gearboxes (``joints``,
        an :class:`~designer.numeric.elastic.ElasticJoints`) and the links' bending."""
        return self._links(joints.stiffness, segments, lambda m, q: m.lowest_frequencies(q))

    @cached_property
    def M_inv(self) -> np.ndarray:
        out = np.full_like(self.M, np.nan)
        ok = np.isfinite(self.M).all(axis=(1, 2))
        if ok.any():
            out[ok] = np.linalg.pinv(self.M[ok])
        return out

    # -- Lee's split and the Christoffel symbols (numeric/closed_terms.py) --------------
    @cached_property
    def _gammas(self) -> tuple[np.ndarray, np.ndarray]:
        """(Gamma_tra, Gamma_rot), (N, n, n, n): the Christoffel symbols of Lee's parts (NaN where a loop cannot
        close or its passive accelerations are undetermined)."""
        N, n = len(self.q), self.n
        g_tra, g_rot = np.full((N, n, n, n), np.nan), np.full((N, n, n, n), np.nan)
        if not self._ok:
            return g_tra, g_rot
        cd, bodies, kin = self.cd, self._bodies, self._kin
        try:
            g_tra[self._ok], g_rot[self._ok] = christoffel_symbols(cd, bodies, kin, self._q_tree, self._W)
        except ClosureError:   # next to a dead centre: state by state, that one left NaN
            for r, k in enumerate(self._ok):
                one = Kinematics(*(getattr(kin, f.name)[r:r + 1] for f in fields(Kinematics)))
                try:
                    g_tra[k], g_rot[k] = (g[0] for g in christoffel_symbols(cd, bodies, one, self._q_tree[r:r + 1],
                                                                             self._W[r:r + 1]))
                except ClosureError:
                    pass
        return g_tra, g_rot

    @cached_property
    def gamma(self) -> np.ndarray:
        """(N, n, n, n) Christoffel symbols of M_a, symmetric in the last two indices: h_a,i = qd^T Gamma_i qd."""
        return self._gammas[0] + self._gammas[1]

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
        h_tra, h_rot = (np.einsum("nijk,nj,nk->ni", g, qd, qd) for g in self._gammas)
        return h_tra, h_rot
