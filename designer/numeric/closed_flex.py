"""The links' bending in a closed chain: virtual joints along the part-made links, the loops closed over them.

The serial model (:mod:`designer.numeric.flex_modes`) cuts each part-made link into slices whose
compliance sits in a six-component virtual joint at the slice's midpoint. In a closed chain the
slices of a link inside a loop change where the loop closes (a bent coupler rod pulls the forearm),
so the coordinates are first all of them, linearised at the closed rigid pose q:

- the tree's joints q (passive joints free, actuated ones elastic through their gearbox, scaled by
  1/sqrt(k), or locked when they have no stiffness: the motors hold);
- the virtual joints' twists, scaled by the square root of their compliance (unit stiffness).

Every point on a link moves with the tree joints on its path to the base and with the virtual joints
that carry it: those of its own link that lie before it along the beam, and those of each ancestor's
beam that lie before the place where the branch towards it is mounted (its joint's origin at the
nominal pose). The loops' rows (cut points together, cut axes aligned) are the tree's
(:mod:`designer.kinematics.tree`) with the virtual joints as extra columns,

    J_p dq_p + J_e C^(1/2) u = 0.

The passive joints absorb what their columns reach (range of J_p); what they cannot (a coupler rod bent
out of a planar parallelogram's plane, held by the cut joint's bearing) constrains u itself: u = N y
with N an orthonormal basis of the null space of P J_e C^(1/2), P the projector off range(J_p). N is
orthonormal, so the strain energy stays 1/2 |y|^2, and with

    x = W y,   W = [C^(1/2) N on the elastic rows; -J_p^+ J_e C^(1/2) N on the passive rows; 0 locked],

the modal problem is A = W^T M W (M the bodies' sum of J^T diag(m, I) J over all coordinates),
eigenvalues mu = 1/w^2 (motors locked, gravity's stiffness left out, as ``modes`` has it); the tool's
compliance is J_t W W^T J_t^T; the static sag under gravity and a payload is J_t W (W^T Q_g) with Q_g
the weights' generalised forces. Without loops this is the serial model; without beams it is the
rigid-link gearbox model over M_a = W_a^T M W_a (tests/numeric/test_closed_flex.py holds it to
ClosedDynamics). The gearboxes never meet the loops' extra rows (the rigid mechanism's mobility is
its actuated joints), so compliance and sag split exactly into the gearboxes' share and the links'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics.closure import SINGULAR, ClosureError
from ..kinematics.numeric import cross_last
from ..kinematics.tree import _PAIRS, TreeArm
from ..model.manipulator import Convention
from .joints import ElasticJoints
from .flex_modes import SEGMENTS, FlexModel, flex_model

__all__ = ["ClosedFlex", "ClosedFlexPose", "closed_flex"]

TWO_PI = 2.0 * np.pi


def _arc(beam, x: np.ndarray) -> float:
    """Arc length along ``beam`` of the point x (its link's frame), projected on the beam's axis."""
    u = (beam.end - beam.start) / beam.length
    return float(np.dot(np.asarray(x, float) - beam.start, u))


@dataclass(frozen=True)
class ClosedFlexPose:
    """One closed pose: ``W`` (n_tree + 6 V, r) the coordinates (tree joints, then the slices' scaled twists) per
    unit y; ``A`` (r, r) the mass matrix in y (unit stiffness); ``tool`` (6, r) the tool point's [v; w] per unit y;
    ``gravity`` (r,) the bodies' weights as a generalised force in y (the payload's is ``tool[:3]^T m g``); ``u``
    (De, r) the elastic coordinates (gearboxes, then the slices) per unit y, orthonormal columns."""

    W: np.ndarray
    A: np.ndarray
    tool: np.ndarray
    gravity: np.ndarray
    u: np.ndarray


class ClosedFlex:
    """The virtual-joint model of a closed chain (module docstring), for any tree with or without loops.

    ``stiffness`` (n_tree,): an actuated joint's gearbox (N m/rad or N/m; inf: locked); the passive joints are free.
    """

    def __init__(self, tree: TreeArm, stiffness: np.ndarray, segments: int = SEGMENTS):
        if segments < 1:
            raise ValueError("segments: at least 1 per beam")
        self.tree, self.segments = tree, segments
        n = tree.n
        k = np.asarray(stiffness, float)
        self.passive = np.array(tree.passive, int)
        act = np.array(tree.actuated, int)
        self.gear = act[np.isfinite(k[act]) & (k[act] > 0)]
        self.gear_scale = 1.0 / np.sqrt(k[self.gear])
        self.fm: FlexModel = flex_model(tree.arm, ElasticJoints.of(n), segments)
        V = len(self.fm.vj_link)
        self.D = n + 6 * V
        # the elastic columns: gearboxes (scaled), then every virtual joint's six (already scaled by sqrt(C))
        self.elastic_cols = np.concatenate([self.gear, n + np.arange(6 * V)]).astype(int)
        self.groups = tuple(["joints"] * len(self.gear) + [f"link {int(i) + 1}" for i in np.repeat(self.fm.vj_link, 6)])
        self.beams = {b.index: b for b in tree.arm.beams}
        self.vj_arc = np.array([_arc(self.beams[int(i)], p) for i, p in zip(self.fm.vj_link, self.fm.vj_pos)])
        self.tool_link = tree.tool_link   # ActuatedArm's: a link pinned to an ancestor (a rocker) left out
        # where each link's joint sits on its parent (the parent's frame, nominal pose): which slices carry it
        T0 = tree.frames(np.zeros(n))
        origins, _ = tree.joint_axes(T0)
        self.mount = np.zeros((n, 3))
        for i in range(n):
            p = tree.parent[i]
            Tp = T0[p + 1]
            self.mount[i] = Tp[:3, :3].T @ (origins[i] - Tp[:3, 3])
        self.bodies = [self.carried(int(link), pos) for link, pos in zip(self.fm.body_link, self.fm.body_pos)]
        self._carry = np.array(self.bodies, float).reshape(-1, self.D)
        self.loop_sides = [(self.carried(i, F_i[:3, 3]), self.carried(j, F_j[:3, 3]))
                           for i, j, F_i, F_j, _ in tree.loops]
        self.tool_carry = self.carried(self.tool_link, tree.arm.tool[:3, 3])

    def carried(self, link: int, x) -> np.ndarray:
        """(D,) bool: the coordinates moving a point x of ``link`` (0-based; -1 the base: none)."""
        out = np.zeros(self.D, bool)
        n = self.tree.n
        while link >= 0:
            out[link] = True
            if link in self.beams:
                s = _arc(self.beams[link], x)
                mine = (self.fm.vj_link == link) & (self.vj_arc < s)
                out[n + (np.flatnonzero(mine)[:, None] * 6 + np.arange(6)).ravel()] = True
            x, link = self.mount[link], self.tree.parent[link]
        return out

    # -- poses, a block at once -----------------------------------------------
    def _twists(self, T) -> np.ndarray:
        """(N, D, 6): per unit coordinate, the motion (v at frame 0's origin, w) at the frames T (N, n + 1, 4, 4):
        a point x moves by v + w x x; the gearboxes' columns per unit scaled deflection."""
        tree, fm, n = self.tree, self.fm, self.tree.n
        if tree.convention is Convention.STANDARD:
            F = T[:, np.array(tree.parent) + 1] @ tree.pre
        else:
            F = T[:, 1:]
        origins, z = F[..., :3, 3], F[..., :3, 2]
        Z = np.zeros((len(T), self.D, 6))
        rev = tree.arm.revolute[:, None]
        Z[:, :n, :3] = np.where(rev, cross_last(origins, z), z)
        Z[:, :n, 3:] = np.where(rev, z, 0.0)
        if len(fm.vj_link):
            Tv = T[:, fm.vj_link + 1]
            R, p0 = Tv[..., :3, :3], Tv[..., :3, 3]
            p = np.einsum("nkij,kj->nki", R, fm.vj_pos) + p0
            t = np.swapaxes(R @ fm.vj_sqrt[:, :3, :], -1, -2)      # (N, V, 6, 3): column l's translation, base axes
            r = np.swapaxes(R @ fm.vj_sqrt[:, 3:, :], -1, -2)
            Z[:, n:, :3] = (t - cross_last(r, p[:, :, None, :])).reshape(len(T), -1, 3)
            Z[:, n:, 3:] = r.reshape(len(T), -1, 3)
        Z[:, self.gear] *= self.gear_scale[:, None]
        return Z

    @staticmethod
    def _point(Z, carry, x) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3, D) velocity of the frame-0 points x (N, 3) and (N, 3, D) angular velocity of what carries them."""
        v = (Z[..., :3] + cross_last(Z[..., 3:], x[:, None, :])) * carry[:, None]
        return np.swapaxes(v, 1, 2), np.swapaxes(Z[..., 3:] * carry[:, None], 1, 2)

    def loop_jacobian(self, T, Z) -> np.ndarray:
        """(N, m, D) the loops' rows over every coordinate (the tree's rows of kinematics/tree.py plus the slices')."""
        rows = []
        for (i, j, F_i, F_j, kind), (ci, cj) in zip(self.tree.loops, self.loop_sides):
            Ti, Tj = T[:, i + 1] @ F_i, T[:, j + 1] @ F_j
            vi, wi = self._point(Z, ci, Ti[:, :3, 3])
            vj, wj = self._point(Z, cj, Tj[:, :3, 3])
            rows.append(vi - vj)
            for a, b in _PAIRS[kind]:
                rows.append(np.einsum("nk,nkd->nd", cross_last(Tj[:, :3, a], Ti[:, :3, b]), wj - wi)[:, None])
        return np.concatenate(rows, axis=1) if rows else np.zeros((len(T), 0, self.D))

    def poses(self, Q) -> tuple[ClosedFlexPose, np.ndarray]:
        """The model at closed tree poses Q (N, n_tree), stacked, and which poses hold (N,) bool: a dead centre (the
        passive joints' rows lose rank) is False, its arrays NaN."""
        Q = np.atleast_2d(np.asarray(Q, float))
        T = np.stack([self.tree.frames(q) for q in Q])
        Z = self._twists(T)
        Jl = self.loop_jacobian(T, Z)
        Je, Jp = Jl[..., self.elastic_cols], Jl[..., self.passive]
        N_, De = len(Q), len(self.elastic_cols)
        ok = np.ones(N_, bool)
        B, pinv = Je, None
        if len(self.passive):
            U, s, Vh = np.linalg.svd(Jp, full_matrices=False)
            ok = s[:, -1] > SINGULAR * np.maximum(s[:, 0], 1e-300)
            s = np.where(ok[:, None], s, 1.0)
            B = Je - U @ (np.swapaxes(U, 1, 2) @ Je)
            pinv = np.swapaxes(Vh, 1, 2) @ (np.swapaxes(U, 1, 2) / s[:, :, None])
        # the rows a passive joint cannot absorb constrain the elastic coordinates: u in the null space of B (rounding
        # of a rigid planar loop's zero rows sits near 1e-16 of Je); the rank is the same at all but special poses
        rank = np.zeros(N_, int)
        Vt = np.broadcast_to(np.eye(De), (N_, De, De))
        if B.shape[1] and De:
            _, sb, Vt = np.linalg.svd(B)
            tol = 1e-9 * np.maximum(np.abs(Je).max(axis=(1, 2)), 1e-300)
            rank = np.sum(sb > tol[:, None], axis=1)
        r = De - int(rank.min(initial=0))
        basis = np.zeros((N_, De, r))
        for k in np.unique(rank):
            # a pose with more constraints than the block's least (a special pose) pads with zero columns: a zero
            # mode (infinite frequency), no compliance; rank 0 keeps the plain coordinates (no loop, rigid links)
            at = rank == k
            basis[at, :, :De - k] = np.eye(De) if k == 0 else np.swapaxes(Vt[at][:, k:], 1, 2)
        W = np.zeros((N_, self.D, r))
        W[:, self.elastic_cols] = basis
        if pinv is not None:
            W[:, self.passive] = -pinv @ (Je @ basis)
        # the bodies: the sum of J^T diag(m, I) J in y
        fm = self.fm
        Tb = T[:, fm.body_link + 1]
        R, p0 = Tb[..., :3, :3], Tb[..., :3, 3]
        c = np.einsum("nbij,bj->nbi", R, fm.body_pos) + p0
        Ic = R @ fm.body_inertia @ np.swapaxes(R, -1, -2)
        nb = len(self._carry)
        # each body's (v at frame 0's origin, w) per unit y: one product over the coordinates carrying it
        V = (self._carry @ (Z[..., None] * W[:, :, None, :]).reshape(N_, self.D, 6 * r)).reshape(N_, nb, 6, r)
        Jw = V[:, :, 3:]
        Jv = V[:, :, :3] + np.swapaxes(cross_last(np.swapaxes(Jw, -1, -2), c[:, :, None, :]), -1, -2)   # + w x c
        Xv = (Jv * np.sqrt(fm.body_mass)[:, None, None]).reshape(N_, -1, r)
        A = np.swapaxes(Xv, 1, 2) @ Xv + np.swapaxes(Jw.reshape(N_, -1, r), 1, 2) @ (Ic @ Jw).reshape(N_, -1, r)
        gravity = np.einsum("b,nbkr,k->nr", fm.body_mass, Jv, np.asarray(self.tree.arm.gravity, float))
        tool = (T[:, self.tool_link + 1] @ self.tree.arm.tool)[:, :3, 3]
        tv, tw = self._point(Z, self.tool_carry, tool)
        out = ClosedFlexPose(W, 0.5 * (A + np.swapaxes(A, 1, 2)), np.concatenate([tv @ W, tw @ W], axis=1),
                             gravity, basis)
        for field in (out.W, out.A, out.tool, out.gravity, out.u):
            field[~ok] = np.nan
        return out, ok

    def pose(self, q) -> ClosedFlexPose:
        """The model at one closed tree pose q (n_tree,); ClosureError at a dead centre."""
        P, ok = self.poses(np.asarray(q, float)[None])
        if not ok[0]:
            raise ClosureError(f"singular pose of {', '.join(self.tree.loop_names)} at q = "
                               f"{np.round(np.asarray(q, float), 6).tolist()}: the passive joints are not determined "
                               "there (a dead centre)")
        return ClosedFlexPose(*(getattr(P, f)[0] for f in ("W", "A", "tool", "gravity", "u")))

    # -- what the commands and the metrics read ------------------------------
    def modes(self, q, count: int = 6):
        """(frequency (k,) Hz ascending, shape (n_act, k) of the actuated joints (largest 1), energy (k, groups)
        the share of each mode's strain energy per group, group names) at the closed tree pose q."""
        P = self.pose(q)
        mu, Y = np.linalg.eigh(P.A)
        mu, Y = mu[::-1][:count], Y[:, ::-1][:, :count]
        with np.errstate(divide="ignore"):
            freq = 1.0 / (TWO_PI * np.sqrt(np.clip(mu, 0.0, None)))
        U = P.u @ Y                                                      # (De, k): unit strain energy each
        names = tuple(sorted(set(self.groups), key=self.groups.index))
        energy = np.stack([np.sum(U[[g == name for g in self.groups]] ** 2, axis=0) for name in names], -1)
        act = list(self.tree.actuated)
        V = np.zeros((len(act), len(mu)))   # the actuated joints' deflection (rad or m): 1/sqrt(k) u, 0 locked
        V[[act.index(int(i)) for i in self.gear]] = self.gear_scale[:, None] * (P.W[self.gear] @ Y)
        big = np.take_along_axis(V, np.abs(V).argmax(axis=0)[None, :], axis=0) if len(V) else np.zeros((0, len(mu)))
        shape = np.divide(V, big, out=np.zeros_like(V), where=big != 0)
        return freq, shape, energy, names

    def _blocks(self, Q, value, width: tuple[int, ...]) -> np.ndarray:
        """``value(pose block, ok)`` over Q (N, n_tree) in blocks whose largest array (the bodies' Jacobians, poses x
        coordinates x 6 x y) stays near 4 million numbers; NaN at a dead centre."""
        Q = np.atleast_2d(np.asarray(Q, float))
        out = np.full((len(Q),) + width, np.nan)
        size = max(1, int(4e6 // (6 * self.D * max(len(self.elastic_cols), 1))))
        for s in range(0, len(Q), size):
            P, ok = self.poses(Q[s:s + size])
            if ok.any():
                out[s:s + size][ok] = value(P, ok)
        return out

    def lowest_frequencies(self, Q) -> np.ndarray:
        """(N,) Hz at closed tree poses Q (N, n_tree): the lowest natural frequency (inf with nothing elastic)."""
        def lowest(P, ok):
            if not P.A.shape[-1]:
                return np.full(int(ok.sum()), np.inf)
            with np.errstate(divide="ignore"):
                return 1.0 / (TWO_PI * np.sqrt(np.linalg.eigvalsh(P.A[ok])[:, -1]))
        return self._blocks(Q, lowest, ())

    def compliances(self, Q) -> np.ndarray:
        """(N, 6, 6) the tool's compliance at closed tree poses Q, frame-0 axes: [delta; theta] = C [F; M]."""
        return self._blocks(Q, lambda P, ok: P.tool[ok] @ np.swapaxes(P.tool[ok], 1, 2), (6, 6))

    def sags(self, Q, payload: float = 0.0) -> np.ndarray:
        """(N, 6) the tool's [delta; theta] under gravity and ``payload`` kg at the tool point (motors holding)."""
        weight = float(payload) * np.asarray(self.tree.arm.gravity, float)

        def sag(P, ok):
            J = P.tool[ok]
            return np.einsum("nkr,nr->nk", J, P.gravity[ok] + np.einsum("nkr,k->nr", J[:, :3], weight))
        return self._blocks(Q, sag, (6,))

    def lowest_frequency(self, q) -> float:
        self.pose(q)   # a dead centre: ClosureError
        return float(self.lowest_frequencies(np.asarray(q, float)[None])[0])

    def compliance(self, q) -> np.ndarray:
        """(6, 6) the tool's compliance at one closed tree pose, frame-0 axes: [delta; theta] = C [F; M]."""
        J = self.pose(q).tool
        return J @ J.T

    def sag(self, q, payload: float = 0.0) -> np.ndarray:
        """(6,) the tool's [delta; theta] under gravity and ``payload`` kg at the tool point (motors holding)."""
        P = self.pose(q)
        weight = float(payload) * np.asarray(self.tree.arm.gravity, float)
        return P.tool @ (P.gravity + P.tool[:3].T @ weight)


def closed_flex(cd, stiffness=None, segments: int = SEGMENTS) -> ClosedFlex:
    """The :class:`ClosedFlex` of a :class:`~designer.numeric.closed.ClosedDynamics` ``cd``; ``stiffness`` (n_tree,)
    the gearboxes' (inf or absent: locked), None: every motor locked (the links' own share)."""
    k = np.full(cd.n_tree, np.inf) if stiffness is None else np.asarray(stiffness, float)
    return ClosedFlex(cd.tree, k, segments)
