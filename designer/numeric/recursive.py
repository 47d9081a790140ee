"""Numeric recursive dynamics with numpy on a :class:`~designer.kinematics.NumericArm`.

Recursive Newton-Euler (Luh, Walker & Paul) written in base-frame coordinates,
so that both DH conventions share one code path: the frames come from
:meth:`NumericArm.frames`, the joint axes from :meth:`NumericArm.joint_axes`.
Point masses are lumped into the link that carries them (mass, COM and
inertia about the combined COM).

Everything else is built on :func:`rnea`: the mass matrix (composite bodies,
from the link Jacobians), the gravity torque, the Coriolis/centrifugal vector
and its coefficients in ROBMAT's form, obtained exactly by polarization of the
quadratic form h(qd).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kinematics import NumericArm

__all__ = ["LumpedBodies", "lumped_bodies", "rnea", "mass_matrix", "gravity_torque", "bias",
           "coriolis_coefficients", "christoffel", "coriolis_matrix", "kinetic_energy",
           "potential_energy"]


@dataclass(frozen=True)
class LumpedBodies:
    """Per link: total mass, COM (link frame) and inertia about that COM (link-frame axes)."""

    mass: np.ndarray     # (n,)
    com: np.ndarray      # (n, 3)
    inertia: np.ndarray  # (n, 3, 3)


def _skew_inertia(mass: float, r: np.ndarray) -> np.ndarray:
    """Inertia of a point mass at offset r about the origin: m (|r|^2 E - r r^T)."""
    return mass * (np.dot(r, r) * np.eye(3) - np.outer(r, r))


def lumped_bodies(arm: NumericArm) -> LumpedBodies:
    """Each link with the point masses it carries, as one rigid body."""
    mass = np.array(arm.mass, dtype=float).copy()
    com = np.array(arm.com, dtype=float).copy()
    inertia = np.array(arm.inertia, dtype=float).copy()
    by_link: dict[int, list[tuple[float, np.ndarray]]] = {}
    for link, m, pos in arm.point_masses:
        by_link.setdefault(int(link), []).append((float(m), np.asarray(pos, dtype=float)))
    for i, loads in by_link.items():
        parts = [(mass[i], com[i])] + loads
        total = sum(m for m, _ in parts)
        if total <= 0.0:
            continue
        c = sum(m * r for m, r in parts) / total
        I = inertia[i] + sum(_skew_inertia(m, r - c) for m, r in parts)
        mass[i], com[i], inertia[i] = total, c, I
    return LumpedBodies(mass, com, inertia)


@dataclass(frozen=True)
class _State:
    """Base-frame kinematic quantities at one configuration."""

    R: np.ndarray       # (n, 3, 3) link-frame rotations
    origin: np.ndarray  # (n, 3) link-frame origins
    p: np.ndarray       # (n, 3) points on the joint axes
    z: np.ndarray       # (n, 3) joint axes
    c: np.ndarray       # (n, 3) lumped COMs
    I: np.ndarray       # (n, 3, 3) lumped inertias about the COMs, base-frame axes


def _state(arm: NumericArm, q, bodies: LumpedBodies) -> _State:
    T = arm.frames(q)
    p, z = arm.joint_axes(q, T)
    R, origin = T[1:, :3, :3], T[1:, :3, 3]
    c = np.einsum("nij,nj->ni", R, bodies.com) + origin
    I = np.einsum("nij,njk,nlk->nil", R, bodies.inertia, R)
    return _State(R, origin, p, z, c, I)


def _check(arm: NumericArm, name: str, v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    if v.shape != (arm.n,):
        raise ValueError(f"{name}: expected {arm.n} values, got shape {v.shape}")
    return v


def _cross(a, b) -> np.ndarray:
    """Cross product of two 3-vectors; np.cross costs ~10 us per call on vectors this small."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def _rnea(arm: NumericArm, st: _State, bodies: LumpedBodies, qd, qdd, g: np.ndarray) -> np.ndarray:
    n = arm.n
    w = np.zeros(3)          # angular velocity of the previous body
    dw = np.zeros(3)         # its angular acceleration
    o_prev = np.zeros(3)     # a point of the previous body (the base: the origin)
    a_prev = -g              # its acceleration; gravity as an upward acceleration of the base
    F = np.empty((n, 3))
    N = np.empty((n, 3))
    for i in range(n):
        z, o = st.z[i], st.origin[i]
        r = o - o_prev
        # acceleration of o as a point of the previous body
        a = a_prev + _cross(dw, r) + _cross(w, _cross(w, r))
        if arm.revolute[i]:
            wz = z * qd[i]
            s = o - st.p[i]
            v_rel = _cross(wz, s)
            a = a + _cross(z * qdd[i], s) + _cross(wz, v_rel) + 2.0 * _cross(w, v_rel)
            dw = dw + z * qdd[i] + _cross(w, wz)
            w = w + wz
        else:
            a = a + z * qdd[i] + 2.0 * _cross(w, z * qd[i])
        s = st.c[i] - o
        ac = a + _cross(dw, s) + _cross(w, _cross(w, s))
        F[i] = bodies.mass[i] * ac
        N[i] = st.I[i] @ dw + _cross(w, st.I[i] @ w)
        o_prev, a_prev = o, a
    # backward pass: force and moment (about the base origin) carried by each joint
    f = np.cumsum(F[::-1], axis=0)[::-1]
    m0 = np.cumsum((N + np.cross(st.c, F))[::-1], axis=0)[::-1]
    moment = m0 - np.cross(st.p, f)  # about a point on each joint axis
    return np.where(arm.revolute, np.einsum("ij,ij->i", st.z, moment), np.einsum("ij,ij->i", st.z, f))


def rnea(arm: NumericArm, q, qd, qdd, gravity: bool = True) -> np.ndarray:
    """Inverse dynamics tau(q, qd, qdd) by the recursive Newton-Euler method.

    Parameters
    ----------
    arm : NumericArm
    q, qd, qdd : array_like, shape (n,)
        Joint positions, velocities, accelerations (rad or m).
    gravity : bool
        Include the gravity torques (``arm.gravity``).

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    q, qd, qdd = (_check(arm, k, v) for k, v in (("q", q), ("qd", qd), ("qdd", qdd)))
    bodies = lumped_bodies(arm)
    g = np.asarray(arm.gravity, dtype=float) if gravity else np.zeros(3)
    return _rnea(arm, _state(arm, q, bodies), bodies, qd, qdd, g)


def _jacobians(arm: NumericArm, st: _State) -> tuple[np.ndarray, np.ndarray]:
    """(Jv (n, 3, n), Jw (n, 3, n)) of the lumped COMs and link rotations."""
    n = arm.n
    Jv = np.zeros((n, 3, n))
    Jw = np.zeros((n, 3, n))
    for j in range(n):
        if arm.revolute[j]:
            Jv[j:, :, j] = np.cross(st.z[j], st.c[j:] - st.p[j])
            Jw[j:, :, j] = st.z[j]
        else:
            Jv[j:, :, j] = st.z[j]
    return Jv, Jw


def mass_matrix(arm: NumericArm, q) -> np.ndarray:
    """M(q) = sum over links of m Jv^T Jv + Jw^T I Jw (symmetric, n x n)."""
    q = _check(arm, "q", q)
    bodies = lumped_bodies(arm)
    st = _state(arm, q, bodies)
    Jv, Jw = _jacobians(arm, st)
    M = np.einsum("k,kai,kaj->ij", bodies.mass, Jv, Jv) + np.einsum("kai,kab,kbj->ij", Jw, st.I, Jw)
    return 0.5 * (M + M.T)


def gravity_torque(arm: NumericArm, q) -> np.ndarray:
    """G(q): the joint torques that hold the arm still against gravity."""
    z = np.zeros(arm.n)
    return rnea(arm, q, z, z, gravity=True)


def bias(arm: NumericArm, q, qd) -> np.ndarray:
    """h(q, qd) = tau(q, qd, 0) - G(q): Coriolis and centrifugal torques."""
    return rnea(arm, q, qd, np.zeros(arm.n), gravity=False)


def christoffel(arm: NumericArm, q) -> np.ndarray:
    """Gamma (n, n, n), symmetric in its last two indices, with h_i = qd^T Gamma_i qd.

    These are the Christoffel symbols of the first kind of M; they are read
    off h exactly by polarization: Gamma_i,jj = h_i(e_j) and
    Gamma_i,jk = (h_i(e_j + e_k) - h_i(e_j - e_k)) / 4.
    """
    q = _check(arm, "q", q)
    n = arm.n
    bodies = lumped_bodies(arm)
    st = _state(arm, q, bodies)
    zero, g0, E = np.zeros(n), np.zeros(3), np.eye(n)
    h = lambda v: _rnea(arm, st, bodies, v, zero, g0)  # noqa: E731
    gamma = np.empty((n, n, n))
    for j in range(n):
        gamma[:, j, j] = h(E[j])
        for k in range(j + 1, n):
            gamma[:, j, k] = gamma[:, k, j] = 0.25 * (h(E[j] + E[k]) - h(E[j] - E[k]))
    return gamma


def coriolis_coefficients(arm: NumericArm, q) -> tuple[np.ndarray, np.ndarray]:
    """(B, C) of ROBMAT's form tau = M qdd + 2 B [qd_j qd_k] + C [qd_j^2] + G.

    B is n x n(n-1)/2 against the products ordered (1,2), (1,3), ..., (n-1,n);
    C is n x n against the squares.
    """
    gamma = christoffel(arm, q)
    n = arm.n
    pairs = [(j, k) for j in range(n) for k in range(j + 1, n)]
    B = np.array([gamma[:, j, k] for j, k in pairs]).T.reshape(n, len(pairs))
    C = np.stack([gamma[:, j, j] for j in range(n)], axis=1)
    return B, C


def coriolis_matrix(arm: NumericArm, q, qd) -> np.ndarray:
    """C(q, qd) with h = C qd and dM/dt - 2C skew-symmetric (C_ij = sum_k Gamma_ijk qd_k)."""
    return np.einsum("ijk,k->ij", christoffel(arm, q), _check(arm, "qd", qd))


def kinetic_energy(arm: NumericArm, q, qd) -> float:
    """T = qd^T M(q) qd / 2."""
    qd = _check(arm, "qd", qd)
    return 0.5 * float(qd @ mass_matrix(arm, q) @ qd)


def potential_energy(arm: NumericArm, q) -> float:
    """V = -sum of m g . c over the lumped bodies (zero with the COMs at the base origin)."""
    q = _check(arm, "q", q)
    bodies = lumped_bodies(arm)
    st = _state(arm, q, bodies)
    return -float(np.einsum("k,ki,i->", bodies.mass, st.c, np.asarray(arm.gravity, dtype=float)))
