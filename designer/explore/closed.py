"""The explore metrics of a closed-chain mechanism, over M_a, G_a and the tool Jacobian J W.

:class:`ClosedArm` stands where the metrics take a :class:`~designer.kinematics.NumericArm` (its
actuated joints, their limits, the total mass) and gives :class:`ClosedBatch` for a block of
actuated states: M_a, M_a^-1, G_a, the tool Jacobian in the actuated rates, Lee's split of M_a and
the Christoffel symbols of M_a (:mod:`designer.explore.closed_terms`), under the serial batch's
names, so that every metric over them (coupling, effective inertias, condition number, Cartesian
inertia, Yoshikawa's dynamic manipulability, coriolis, gravity, tra_share, torque_bound) and the
A/B comparison work on a closed chain as on a serial arm. The loops are closed state by state; the
rest comes from the bodies' Jacobians for all states of a block at once (M_a = D_tra + D_rot, G_a =
-sum m (Jv W)^T g), which the tests hold to the tree's CRBA and RNEA projected by W. A state where a
loop cannot close gives NaN, which the summaries leave out.

The tool sits on the deepest leaf of the tree (the arm's end, not a parallelogram's coupler), with
the model's ``tool`` pose on it.
"""

from __future__ import annotations

from dataclasses import fields, replace
from functools import cached_property

import numpy as np

from ..kinematics.closure import ClosureError
from ..model.manipulator import Manipulator, PointMass
from ..numeric.closed import ClosedDynamics
from .closed_terms import Kinematics, bodies_of, christoffel_symbols, kinematics, point_jacobians

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
        self.tool_link = tree.tool_link
        self.tool = tree.arm.tool
        self.gravity = tree.arm.gravity
        #: the part-made links as beams; their bending through the loops: :meth:`flex` (numeric/closed_flex.py)
        self.beams = tree.arm.beams
        self._flex: dict = {}

    def with_load(self, mass: float, position) -> ClosedArm:
        """This mechanism with a point mass (kg) at ``position`` (m) in the tool link's frame (a payload)."""
        x, y, z = (float(v) for v in position)
        load = PointMass(self.tool_link + 1, mass, (x, y, z))
        return ClosedArm(replace(self.model, point_masses=self.model.point_masses + (load,)), self.overrides)

    def flex(self, stiffness, segments: int):
        """The virtual-joint model of this mechanism (:class:`~designer.numeric.closed_flex.ClosedFlex`) with the
        actuated joints' gearboxes ``stiffness`` (n,; None or inf: locked) and ``segments`` slices per beam; kept
        per (stiffness, segments), as maps and sweeps ask for it block after block."""
        from ..numeric.closed_flex import closed_flex
        key = (None if stiffness is None else tuple(np.asarray(stiffness, float).tolist()), int(segments))
        model = self._flex.get(key)
        if model is None:   # worker threads share an arm: each get, clear and set is one step under the GIL
            k = np.full(self.cd.n_tree, np.inf)
            if stiffness is not None:
                k[self.cd.act] = np.asarray(stiffness, float)
            model = closed_flex(self.cd, k, segments)
            if len(self._flex) >= 4:   # a map asks for two or three (the gearboxes with the links, the links alone)
                self._flex.clear()
            self._flex[key] = model
        return model

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
        #: the closed tree pose and its W of each state (None where a loop cannot close)
        self.closed: list[tuple[np.ndarray, np.ndarray] | None] = []
        guess = None
        for qa in q:   # the loops state by state, each continuing from the last
            try:
                guess = cd.positions(qa, guess)
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
        self.G[ok] = -np.einsum("b,nbki,k->ni", self._bodies.mass, kin.Jv, np.asarray(arm.gravity, float))
        tool = kin.T[:, arm.tool_link + 1] @ arm.tool
        self.tool_position[ok] = tool[:, :3, 3]
        path = np.zeros((1, cd.n_tree), dtype=bool)
        path[0, cd.tree.path(arm.tool_link)] = True
        Jv, Jw = point_jacobians(cd.tree, kin.origins, kin.z, tool[:, None, :3, 3], path, self._W)
        self.tool_jacobian[ok] = np.concatenate([Jv[:, 0], Jw[:, 0]], axis=1)

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
    def _gammas(self) -> tuple[np.ndarray, np.ndarray]:
        """(Gamma_tra, Gamma_rot), (N, n, n, n): the Christoffel symbols of Lee's parts (NaN where a loop cannot
        close or its passive accelerations are undetermined)."""
        N, n = len(self.q), self.n
        g_tra, g_rot = np.full((N, n, n, n), np.nan), np.full((N, n, n, n), np.nan)
        if not self._ok:
            return g_tra, g_rot
        cd, bodies, kin = self.arm.cd, self._bodies, self._kin
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
