"""Lee's split and the Christoffel symbols of a closed chain in its actuated coordinates, for many states.

Each link and each point mass is a body b (a point mass translates only), as in the serial batch
(:mod:`designer.numeric.batch`). With Jv_b, Jw_b its centre's Jacobians on the spanning tree and
W = d q_tree / d q_a, Lee's parts of M_a are

    D_tra = W^T (sum_b m_b Jv_b^T Jv_b) W,   D_rot = W^T (sum_b Jw_b^T I_b Jw_b) W   (I_b in frame 0).

Their velocity torques are those of each kinetic-energy part on its own: in minimal coordinates a
holonomic closed chain is a Lagrangian system, and the Euler-Lagrange terms of 1/2 v^T D v are

    H_tra(v) = W^T sum_b m_b Jv_b^T a_b,   H_rot(v) = W^T sum_b Jw_b^T (I_b al_b + w_b x I_b w_b),

with a_b, w_b, al_b the centre's acceleration and the body's angular velocity and acceleration at
the actuated rates v and zero actuated accelerations (qd_tree = W v, qdd_tree = W' v from the loops'
second-order terms). Both are exact quadratic forms in v, so their Christoffel symbols follow by
polarization at unit rates, Gamma_ijj = H_i(e_j), Gamma_ijk = (H_i(e_j + e_k) - H_i(e_j) - H_i(e_k)) / 2,
with no finite differences: n (n + 1) / 2 rate vectors per state. Their sum is the projected
h_a = W^T (M W' v + h) of :class:`~designer.numeric.closed.ClosedDynamics` (the tests check it, and
Gamma against central differences of M_a and the skew symmetry of M_a' - 2 C_a).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np

from ..kinematics.numeric import cross_last
from ..model.manipulator import Convention
from ..kinematics.closure import Closure
from ..kinematics.tree import TreeArm, point_acceleration, spatial_motion



class ClosedTree(Protocol):
    """What these terms read of a closed chain's engine (:class:`~designer.numeric.closed.ClosedDynamics`):
    its tree and its closure."""

    @property
    def tree(self) -> TreeArm: ...

    @property
    def closure(self) -> Closure: ...


__all__ = ["ClosedTree", "Bodies", "Kinematics", "bodies_of", "kinematics", "point_jacobians", "christoffel_symbols",
           "polarization_rates"]


@dataclass(frozen=True)
class Bodies:
    """Every body of the tree: its link (0-based), mass, centre (link frame) and inertia about it."""

    link: np.ndarray      # (B,)
    mass: np.ndarray      # (B,)
    com: np.ndarray       # (B, 3)
    inertia: np.ndarray   # (B, 3, 3)
    moves: np.ndarray     # (B, n) bool: joint k is on the path from body b's link to the base


def bodies_of(cd: ClosedTree) -> Bodies:
    """The links, then the point masses (no inertia about their own centre), as the serial batch has them."""
    arm = cd.tree.arm
    pm = arm.point_masses
    n = arm.n
    link = np.concatenate([np.arange(n), np.array([p[0] for p in pm], dtype=int)])
    moves = np.zeros((len(link), n), dtype=bool)
    for b, i in enumerate(link):
        moves[b, cd.tree.path(int(i))] = True
    return Bodies(link, np.concatenate([np.asarray(arm.mass, float), np.array([p[1] for p in pm], float)]),
                  np.concatenate([np.asarray(arm.com, float).reshape(n, 3),
                                  np.array([p[2] for p in pm], float).reshape(len(pm), 3)]),
                  np.concatenate([np.asarray(arm.inertia, float).reshape(n, 3, 3), np.zeros((len(pm), 3, 3))]),
                  moves)


@lru_cache(maxsize=16)
def polarization_rates(n: int) -> tuple[np.ndarray, list[tuple[int, int, int, int, int]]]:
    """(the rate vectors e_j and e_j + e_k, j < k; for each pair (j, k) the rows of e_j + e_k, e_j and e_k)."""
    eye = np.eye(n)
    rows = [eye[j] for j in range(n)]
    pairs = []
    for j in range(n):
        for k in range(j + 1, n):
            pairs.append((j, k, len(rows), j, k))
            rows.append(eye[j] + eye[k])
    return np.array(rows).reshape(-1, n), pairs


@dataclass(frozen=True)
class Kinematics:
    """Closed states' frames T (N, n_tree + 1, 4, 4), joint origins and axes (N, n_tree, 3), body centres
    p (N, B, 3), inertias in frame 0 Iw (N, B, 3, 3), the bodies' Jacobians in the actuated rates Jv, Jw
    (N, B, 3, n) and Lee's parts D_tra, D_rot (N, n, n)."""

    T: np.ndarray
    origins: np.ndarray
    z: np.ndarray
    p: np.ndarray
    Iw: np.ndarray
    Jv: np.ndarray
    Jw: np.ndarray
    D_tra: np.ndarray
    D_rot: np.ndarray


def kinematics(cd: ClosedTree, bodies: Bodies, q: np.ndarray, W: np.ndarray) -> Kinematics:
    """The bodies' kinematics and Lee's parts at closed tree poses ``q`` (N, n_tree) with their W (N, n_tree, n),
    every state at once."""
    tree = cd.tree
    T = np.stack([tree.frames(row) for row in q])                       # (N, n_tree + 1, 4, 4)
    origins, z = _joint_axes(tree, T)                                   # (N, n_tree, 3) each
    Tb = T[:, bodies.link + 1]                                          # (N, B, 4, 4): each body's link frame
    R = Tb[..., :3, :3]
    p = np.einsum("nbij,bj->nbi", R, bodies.com) + Tb[..., :3, 3]
    Iw = R @ bodies.inertia[None] @ np.swapaxes(R, -1, -2)
    Jv, Jw = point_jacobians(tree, origins, z, p, bodies.moves, W)
    D_tra = np.einsum("b,nbki,nbkj->nij", bodies.mass, Jv, Jv)
    D_rot = np.einsum("nbki,nbkl,nblj->nij", Jw, Iw, Jw)
    return Kinematics(T, origins, z, p, Iw, Jv, Jw, D_tra, D_rot)


def point_jacobians(tree, origins, z, p, moves, W) -> tuple[np.ndarray, np.ndarray]:
    """(Jv, Jw), (N, P, 3, n): points p (N, P, 3) moving with the links whose paths ``moves`` (P, n_tree) holds,
    in the actuated rates (:meth:`TreeArm.point_jacobian` times W for every point and state at once)."""
    revolute = np.asarray(tree.arm.revolute, bool)
    lever = cross_last(z[:, None], p[:, :, None] - origins[:, None])          # (N, P, n_tree, 3)
    jv = np.where(revolute[None, None, :, None], lever, z[:, None]) * moves[None, :, :, None]
    jw = z[:, None] * (moves & revolute[None, :])[None, :, :, None]
    return np.swapaxes(jv, -1, -2) @ W[:, None], np.swapaxes(jw, -1, -2) @ W[:, None]


def christoffel_symbols(cd: ClosedTree, bodies: Bodies, kin: Kinematics, q: np.ndarray,
                        W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Gamma_tra, Gamma_rot), (N, n, n, n): the Christoffel symbols of D_tra and D_rot by polarization of
    their velocity torques (the module text); a ClosureError where a state's passive accelerations are
    undetermined."""
    n = W.shape[-1]
    rates, pairs = polarization_rates(n)
    qd = np.einsum("nta,ra->nrt", W, rates)
    a, w, al = _body_motion(cd, q, kin.origins, kin.z, qd, bodies, kin.p)  # (N, R, B, 3)
    H_tra = np.einsum("b,nbki,nrbk->nri", bodies.mass, kin.Jv, a)
    Iw_w = np.einsum("nbkl,nrbl->nrbk", kin.Iw, w)
    H_rot = np.einsum("nbki,nrbk->nri", kin.Jw, np.einsum("nbkl,nrbl->nrbk", kin.Iw, al) + cross_last(w, Iw_w))
    return _christoffel(H_tra, n, pairs), _christoffel(H_rot, n, pairs)


def _joint_axes(tree, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`TreeArm.joint_axes` of poses T (N, n + 1, 4, 4): origins and unit axes (N, n, 3)."""
    if tree.convention is Convention.STANDARD:
        F = T[:, np.asarray(tree.parent) + 1] @ tree.pre[None]
    else:
        F = T[:, 1:]
    return F[..., :3, 3], F[..., :3, 2]


def _christoffel(H: np.ndarray, n: int, pairs) -> np.ndarray:
    """Gamma (N, n, n, n), [., i, j, k], from the velocity torques H (N, rates, n) at the polarization rates."""
    G = np.zeros((H.shape[0], n, n, n))
    for j in range(n):
        G[:, :, j, j] = H[:, j]
    for j, k, both, rj, rk in pairs:
        G[:, :, j, k] = G[:, :, k, j] = 0.5 * (H[:, both] - H[:, rj] - H[:, rk])
    return G


def _body_motion(cd: ClosedTree, q, origins, z, qd, bodies: Bodies, p):
    """(a, w, al), each (N, R, B, 3): each body centre's acceleration and the body's angular velocity and
    acceleration at the tree rates qd (N, R, n), with the loops' passive accelerations at zero actuated ones:
    :func:`~designer.kinematics.tree.spatial_motion` and :func:`~designer.kinematics.tree.point_acceleration` run
    on numpy arrays, every state and rate at once (a joint's axis and origin (N, 1) per component against its
    rates (N, R))."""
    tree = cd.tree
    N, R, n = qd.shape
    qdd = None
    if cd.closure.linear is None:   # a loop that closes nonlinearly: W' v from its second-order terms
        qdd = np.zeros((N, R, n))
        for s in range(N):
            qdd[s] = [cd.closure.bias(q[s], v) for v in qd[s]]
    # one array per component: (N, n, 3) -> (3, N, n, 1), a joint's (N, 1) against its rates (N, R)
    o, u, at = (np.moveaxis(x, -1, 0)[..., None] for x in (origins, z, p))
    V, A = spatial_motion(tree, [o[:, :, i] for i in range(n)], [u[:, :, i] for i in range(n)],
                          [qd[:, :, i] for i in range(n)], None if qdd is None else [qdd[:, :, i] for i in range(n)])
    # the bodies' spatial motion, each component (N, R, B), then their centres' accelerations in one call
    body = [int(link) + 1 for link in bodies.link]
    Vb, Ab = ([np.stack([np.broadcast_to(X[k][c], (N, R)) for k in body], axis=-1) for c in range(6)] for X in (V, A))
    a = point_acceleration([Vb], [Ab], 0, [at[c][:, None, :, 0] for c in range(3)])
    return tuple(np.stack(vec, axis=-1) for vec in (a, Vb[:3], Ab[:3]))
