"""The batch engine: dynamics of one arm at many configurations at once, from the link Jacobians.

Exploration evaluates the same quantities at thousands of joint states, so
everything here is vectorised over a leading axis of states. The mass matrix
is assembled the way Lee, Lee & Nigam (RSD-TR-8-82, eq. 30) split it:

    D_tra = sum_b m_b Jv_b^T Jv_b          (translation of each body's COM)
    D_rot = sum_b Jw_b^T R_b I_b R_b^T Jw_b (rotation about the COM)
    M = D_tra + D_rot,  G = -sum_b m_b Jv_b^T g.

Each link is one body and each point mass another (a point mass has no
rotational part), so the translation/rotation split is Lee's. The derivatives
dM/dq come from the exact derivatives of the geometric Jacobians (a joint k
turns every vector beyond it about z_k), giving the Christoffel symbols
Gamma_ijk = (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) / 2 with h_i = qd^T Gamma_i qd,
the same convention as :func:`designer.numeric.recursive.christoffel`.
:class:`BatchDynamics` offers the same quantities through the numeric layer's
:class:`~designer.numeric.protocol.Dynamics` calls over states of shape (..., n);
the tests check both against Pinocchio.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np

from ..kinematics import NumericArm, dh_frames
from ..model.manipulator import Convention
from .protocol import NoLoops, solve_checked, states

__all__ = ["Batch", "BatchDynamics", "batch_frames", "batch_of", "map_states", "CHUNK"]

CHUNK = 2048  # states per block: bounds memory of the (N, bodies, 3, n, n) derivative arrays


def batch_frames(arm: NumericArm, q: np.ndarray) -> np.ndarray:
    """(N, n+1, 4, 4): T_0^i for every state, i = 0..n."""
    return dh_frames(arm, np.atleast_2d(np.asarray(q, dtype=float)))


def _cross(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    """Cross product along ``axis`` with broadcasting, into one preallocated array
    (np.cross and np.stack are several times slower on big batches)."""
    a, b = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    for k, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):
        np.multiply(a[i], b[j], out=out[k])
        out[k] -= a[j] * b[i]
    return np.moveaxis(out, 0, axis)


def _outer_cross(z: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(N, B, 3, n, n) with [..., :, a, c] = z_a x v_c for z, v (N, B, 3, n)."""
    out = np.empty(v.shape + (v.shape[-1],))
    za, vc = z[..., :, None], v[..., None, :]
    for k, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):
        np.multiply(za[:, :, i], vc[:, :, j], out=out[:, :, k])
        out[:, :, k] -= za[:, :, j] * vc[:, :, i]
    return out


def _gram(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """sum over bodies and xyz of a[n, b, c, i] b[n, b, c, ...] -> (N, i, ...), as one batched matmul."""
    N, B, _, n = a.shape
    rest = b.shape[3:]
    out = np.swapaxes(a.reshape(N, B * 3, n), 1, 2) @ b.reshape(N, B * 3, -1)
    return out.reshape((N, n) + rest)


class Batch:
    """Jacobians, mass matrix parts, gravity and Christoffel symbols at states ``q`` (N, n).

    Quantities are computed on first use and kept; arrays have the states first.
    Keep N moderate (see :data:`CHUNK`) when asking for derivatives. ``compiled``, a
    :class:`designer.numeric.compiled.CompiledDynamics` of the same model and values, takes over
    M and G (several times faster once compiled); everything else comes from the Jacobians.
    """

    def __init__(self, arm: NumericArm, q, compiled=None):
        self.arm = arm
        self.compiled = compiled
        self.q = np.atleast_2d(np.asarray(q, dtype=float))
        if self.q.shape[1] != arm.n:
            raise ValueError(f"states have {self.q.shape[1]} joint values, the arm has {arm.n} joints")
        n = arm.n
        # bodies: the links, then the point masses (translation only)
        pm = arm.point_masses
        self.body_link = np.concatenate([np.arange(n), np.array([p[0] for p in pm], dtype=int)])
        self.body_mass = np.concatenate([np.asarray(arm.mass, float), np.array([p[1] for p in pm], float)])
        self.body_com = np.concatenate([np.asarray(arm.com, float).reshape(n, 3),
                                        np.array([p[2] for p in pm], float).reshape(len(pm), 3)])
        self.body_inertia = np.concatenate([np.asarray(arm.inertia, float).reshape(n, 3, 3), np.zeros((len(pm), 3, 3))])
        # moves[b, k]: joint k moves body b (k <= its link)
        self.moves = np.arange(n)[None, :] <= self.body_link[:, None]
        self.revolute = np.asarray(arm.revolute, bool)

    @property
    def n(self) -> int:
        return self.arm.n

    @property
    def size(self) -> int:
        return self.q.shape[0]

    # -- kinematics ------------------------------------------------------------
    @cached_property
    def frames(self) -> np.ndarray:
        return batch_frames(self.arm, self.q)

    @cached_property
    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        """(origins, unit axes), each (N, n, 3), of the joints in the base frame."""
        k = np.arange(self.n) + (0 if self.arm.convention is Convention.STANDARD else 1)
        F = self.frames[:, k]
        return F[..., :3, 3], F[..., :3, 2]

    @cached_property
    def body_positions(self) -> np.ndarray:
        """(N, B, 3) centre of mass of every body."""
        T = self.frames[:, self.body_link + 1]
        return (T[..., :3, :3] @ self.body_com[None, :, :, None])[..., 0] + T[..., :3, 3]

    @cached_property
    def tool_position(self) -> np.ndarray:
        """(N, 3) the tool point (the project's tool frame origin; the last frame's without one)."""
        return (self.frames[:, -1] @ self.arm.tool)[:, :3, 3]

    @cached_property
    def _axes_t(self) -> tuple[np.ndarray, np.ndarray]:
        o, z = self.axes
        return np.ascontiguousarray(np.swapaxes(o, 1, 2)), np.ascontiguousarray(np.swapaxes(z, 1, 2))

    def _point_jacobian(self, p: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Jv, Jw (N, ..., 3, n) of points p (N, ..., 3) moved by the joints where ``mask`` (..., n)."""
        o, z = self._axes_t                                             # (N, 3, n)
        extra = p.ndim - 2
        shape = (o.shape[0],) + (1,) * extra + o.shape[1:]
        o, z = o.reshape(shape), z.reshape(shape)
        rev = self.revolute
        jv = _cross(z, p[..., :, None] - o, axis=-2)                    # (N, ..., 3, n)
        if not rev.all():
            jv[..., ~rev] = np.broadcast_to(z, jv.shape)[..., ~rev]
        mask = mask[..., None, :]
        return jv * mask, z * (rev & mask)

    @cached_property
    def com_jacobians(self) -> tuple[np.ndarray, np.ndarray]:
        """Jv, Jw of every body, (N, B, 3, n) each."""
        return self._point_jacobian(self.body_positions, self.moves)

    @cached_property
    def tool_jacobian(self) -> np.ndarray:
        """(N, 6, n) geometric Jacobian [v; w] of the tool point (:attr:`tool_position`)."""
        jv, jw = self._point_jacobian(self.tool_position, np.ones(self.n, bool))
        return np.concatenate([jv, jw], axis=1)

    @cached_property
    def world_inertia(self) -> np.ndarray:
        """(N, B, 3, 3) R I R^T: each body's inertia about its COM in base axes."""
        R = self.frames[:, self.body_link + 1, :3, :3]
        return R @ self.body_inertia @ np.swapaxes(R, -1, -2)

    # -- Lee's parts of the mass matrix, gravity -------------------------------
    @cached_property
    def D_tra(self) -> np.ndarray:
        jv, _ = self.com_jacobians
        return _gram(jv * self.body_mass[:, None, None], jv)

    @cached_property
    def D_rot(self) -> np.ndarray:
        # in body axes: Jw^T R I R^T Jw = K^T I K with K = R^T Jw
        _, jw = self.com_jacobians
        R = self.frames[:, self.body_link + 1, :3, :3]
        K = np.swapaxes(R, -1, -2) @ jw
        return _gram(K, self.body_inertia[None] @ K)

    @cached_property
    def M(self) -> np.ndarray:
        if self.compiled is not None:
            return self.compiled.M_many(self.q)
        return self.D_tra + self.D_rot

    @cached_property
    def M_inv(self) -> np.ndarray:
        """(N, n, n) M^-1; NaN at the states where M is exactly singular (a massless arm), which
        numpy refuses for the whole batch."""
        try:
            return np.linalg.inv(self.M)
        except np.linalg.LinAlgError:
            out = np.full_like(self.M, np.nan)
            for k, m in enumerate(self.M):
                try:
                    out[k] = np.linalg.inv(m)
                except np.linalg.LinAlgError:
                    pass
            return out

    @cached_property
    def G(self) -> np.ndarray:
        """(N, n) gravity torques: tau = M qdd + h + G."""
        if self.compiled is not None:
            return self.compiled.G_many(self.q)
        jv, _ = self.com_jacobians
        g = np.asarray(self.arm.gravity, float)
        w = self.body_mass[:, None] * g[None, :]                       # (B, 3)
        return -_gram(jv, np.broadcast_to(w[None, :, :, None], (self.size,) + w.shape + (1,)))[..., 0]

    # -- derivatives and Christoffel symbols --------------------------------------
    @cached_property
    def dD(self) -> tuple[np.ndarray, np.ndarray]:
        """(dD_tra, dD_rot), each (N, n, n, n) with [.., i, j, k] = d D_ij / d q_k.

        A revolute joint a that moves body b turns every vector beyond it: d(v)/dq_a = z_a x v.
        Column c of a Jacobian changes with joint a < c by z_a x J_c (the axis and lever turn) and,
        for the linear part, with joint a = c <= k by z_c x Jv_k (the point moves). With
        P[a, c] = z_a x J_c all these come from one array per Jacobian.
        """
        jv, jw = self.com_jacobians
        zb = np.swapaxes(self.axes[1], 1, 2)[:, None] * (self.moves & self.revolute[None, :])[None, :, None, :]
        n = self.n
        below = np.arange(n)[None, :] < np.arange(n)[:, None]          # [j, k]: k < j
        W = self.world_inertia @ jw                                     # Ic Jw, (N, B, 3, n)
        Q = _gram(jv * self.body_mass[:, None, None], _outer_cross(zb, jv))   # [i, a, c]
        QT = np.swapaxes(Q, 2, 3)                                       # [i, c, a]
        X = np.where(below, QT, Q)       # k < j: turn (Q[i, k, j]); j <= k: push (Q[i, j, k])
        dtra = X + np.swapaxes(X, 1, 2)
        YR = np.swapaxes(_gram(W, _outer_cross(zb, jw)), 2, 3)          # [i, j, k] = W_i . (z_k x Jw_j)
        Y = np.where(below, YR, 0.0)                                    # Jw^T Ic dJw (k < j)
        # d(Ic)/dq_k = S(z_k) Ic - Ic S(z_k): Jw_i . (z_k x Ic Jw_j) - (Ic Jw_i) . (z_k x Jw_j)
        dI = np.swapaxes(_gram(jw, _outer_cross(zb, W)), 2, 3) - YR
        drot = Y + np.swapaxes(Y, 1, 2) + dI
        return dtra, drot

    @staticmethod
    def christoffel_of(dM: np.ndarray) -> np.ndarray:
        """Gamma[.., i, j, k] = (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) / 2."""
        return 0.5 * (dM + np.swapaxes(dM, 2, 3) - np.transpose(dM, (0, 3, 1, 2)))

    @cached_property
    def dM(self) -> np.ndarray:
        dtra, drot = self.dD
        return dtra + drot

    @cached_property
    def gamma(self) -> np.ndarray:
        """(N, n, n, n) Christoffel symbols of M, symmetric in the last two indices."""
        return self.christoffel_of(self.dM)

    def coriolis(self, qd) -> np.ndarray:
        """h (N, n) = qd^T Gamma_i qd for one velocity (n,) or one per state (N, n)."""
        qd = np.broadcast_to(np.asarray(qd, float), (self.size, self.n))
        return np.einsum("nijk,nj,nk->ni", self.gamma, qd, qd)

    def lee_h(self, qd) -> tuple[np.ndarray, np.ndarray]:
        """Lee's (H_tra, H_rot), each (N, n): the velocity torques of the two kinetic-energy parts."""
        qd = np.broadcast_to(np.asarray(qd, float), (self.size, self.n))
        dtra, drot = self.dD
        return tuple(np.einsum("nijk,nj,nk->ni", self.christoffel_of(d), qd, qd) for d in (dtra, drot))

    def torque(self, qd, qdd) -> np.ndarray:
        """Inverse dynamics tau = M qdd + h + G at every state."""
        qdd = np.broadcast_to(np.asarray(qdd, float), (self.size, self.n))
        return np.einsum("nij,nj->ni", self.M, qdd) + self.coriolis(qd) + self.G


    # -- the links' bending (part-made links as beams; zero without): what the stiffness metrics add ---------------
    def links_sag(self, payload: float, segments: int) -> np.ndarray:
        """(N, 6) the links' share of the tool's [delta; theta] under gravity and ``payload`` kg (the beams' exact
        solution: ``segments`` is the closed chain's, whose loops close over slices)."""
        from .beams import tool_sag_many
        return tool_sag_many(self.arm, self.q, payload)

    def links_compliance(self, segments: int) -> np.ndarray:
        """(N, 6, 6) the links' share of the tool's compliance (frame-0 axes)."""
        from .beams import tool_compliance_many
        return tool_compliance_many(self.arm, self.q)

    def frequency_links(self, joints, segments: int) -> np.ndarray:
        """(N,) Hz: the lowest natural frequency, motors locked, with the ``joints``' gearboxes (an
        :class:`~designer.numeric.elastic.ElasticJoints`) and the links' bending in ``segments`` slices each."""
        from .flex_modes import lowest_flex_frequency
        return lowest_flex_frequency(self.arm, joints, self.q, segments)


def own_batch(arm) -> bool:
    """Whether ``arm`` makes its own batch of states (a closed chain's arm,
    :class:`~designer.numeric.closed_batch.ClosedBatch`) rather than a serial arm's :class:`Batch`."""
    return hasattr(arm, "batch")


def batch_of(arm, q, compiled=None):
    """The quantities of a block of states q (N, n) under :class:`Batch`'s names: a closed chain's arm makes its
    own (:func:`own_batch`); ``compiled`` takes over a serial arm's M and G."""
    return arm.batch(q) if own_batch(arm) else Batch(arm, q, compiled)


def map_states(arm: NumericArm, q, get: Callable[[Batch], np.ndarray], tail: tuple[int, ...],
               compiled=None) -> np.ndarray:
    """``get(batch)`` over states q (..., n) in blocks of :data:`CHUNK`, shaped (...) + ``tail``."""
    q = np.asarray(q, dtype=float)
    if q.ndim == 0 or q.shape[-1] != arm.n:
        raise ValueError(f"q: expected {arm.n} values per state, got shape {q.shape}")
    flat = q.reshape(-1, arm.n)
    out = np.empty((flat.shape[0],) + tail)
    for s in range(0, flat.shape[0], CHUNK):
        out[s:s + CHUNK] = get(Batch(arm, flat[s:s + CHUNK], compiled))
    return out.reshape(q.shape[:-1] + tail)


class BatchDynamics(NoLoops):
    """The batch engine behind the :class:`~designer.numeric.protocol.Dynamics` calls, plus the
    Christoffel symbols and Jacobians; ``compiled`` as for :class:`Batch`."""

    def __init__(self, arm: NumericArm, compiled=None):
        self.arm = arm
        self.n = arm.n
        self.compiled = compiled

    def _map(self, q, get, tail, *others) -> np.ndarray:
        arrays = states(self.n, ("q", q), *others)
        if len(arrays) == 1:
            return map_states(self.arm, arrays[0], get, tail, self.compiled)
        # the other arrays travel with q, as columns after it
        n, k = self.n, len(arrays)
        packed = np.concatenate(arrays, axis=-1).reshape(-1, k * n)
        out = np.empty((packed.shape[0],) + tail)
        for s in range(0, packed.shape[0], CHUNK):
            block = packed[s:s + CHUNK]
            out[s:s + CHUNK] = get(Batch(self.arm, block[:, :n], self.compiled),
                                   *(block[:, j * n:(j + 1) * n] for j in range(1, k)))
        return out.reshape(arrays[0].shape[:-1] + tail)

    def M(self, q) -> np.ndarray:
        return self._map(q, lambda b: b.M, (self.n, self.n))

    def G(self, q) -> np.ndarray:
        return self._map(q, lambda b: b.G, (self.n,))

    def h(self, q, qd) -> np.ndarray:
        return self._map(q, lambda b, v: b.coriolis(v), (self.n,), ("qd", qd))

    def tau(self, q, qd, qdd) -> np.ndarray:
        return self._map(q, lambda b, v, a: b.torque(v, a), (self.n,), ("qd", qd), ("qdd", qdd))

    def qdd(self, q, qd, tau) -> np.ndarray:
        q, qd, tau = states(self.n, ("q", q), ("qd", qd), ("tau", tau))
        return solve_checked(self.M(q), tau - self.h(q, qd) - self.G(q), q)

    def christoffel(self, q) -> np.ndarray:
        """(..., n, n, n) Christoffel symbols of the first kind, h_i = qd^T Gamma_i qd."""
        return self._map(q, lambda b: b.gamma, (self.n, self.n, self.n))

    def com_jacobians(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(Jv, Jw), each (..., B, 3, n): every body's COM (links, then point masses)."""
        B = self.n + len(self.arm.point_masses)
        return (self._map(q, lambda b: b.com_jacobians[0], (B, 3, self.n)),
                self._map(q, lambda b: b.com_jacobians[1], (B, 3, self.n)))

    def tool_jacobian(self, q) -> np.ndarray:
        """(..., 6, n) geometric Jacobian [v; w] of the tool point."""
        return self._map(q, lambda b: b.tool_jacobian, (6, self.n))

    def energy(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        """(kinetic 1/2 qd^T M qd, potential -sum m_b g . p_b), each (...)."""
        g = np.asarray(self.arm.gravity, float)

        def both(b, v):
            kinetic = 0.5 * np.einsum("ni,nij,nj->n", v, b.M, v)
            potential = -np.einsum("b,nbk,k->n", b.body_mass, b.body_positions, g)
            return np.stack([kinetic, potential], axis=-1)
        out = self._map(q, both, (2,), ("qd", qd))
        return out[..., 0], out[..., 1]
