"""The joint-torque regressor with numpy: tau = Y(q, qd, qdd) pi, many states at once.

pi holds the ten standard parameters of each link in link frame j (see
:mod:`designer.dynamics.inertial`). The kinematics run in base-frame coordinates as in
:mod:`designer.numeric.recursive` (one code path for both DH conventions); the wrench of link j
about its origin is linear in its parameters,

    f = m a + U MS,   n = J wd + w x (J w) + MS x a,   U = [wd x] + [w x]^2

(w, wd, a: angular velocity, acceleration and origin acceleration in link-j axes, gravity as an
upward acceleration of the base), and joint i takes the projection of the wrenches of links
j >= i onto its axis. Every operation is a product or a sum, so a complex state gives the exact
complex-step derivative (used by :mod:`designer.control.linearize`).
"""

from __future__ import annotations

import numpy as np

from ..dynamics.inertial import drive_slots
from ..kinematics import NumericArm, dh_matrices
from ..kinematics.numeric import cross_last
from ..model.manipulator import Convention

__all__ = ["regressor", "frames_many", "drive_regressor"]


def frames_many(arm: NumericArm, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotations (N, n, 3, 3) and origins (N, n, 3) of the link frames for the columns of Q (n, N)."""
    n, N = Q.shape
    dtype = np.result_type(Q, float)
    R = np.empty((N, n, 3, 3), dtype=dtype)
    o = np.empty((N, n, 3), dtype=dtype)
    Rp = np.broadcast_to(np.eye(3), (N, 3, 3)).astype(dtype)
    op = np.zeros((N, 3), dtype=dtype)
    for i in range(n):
        a, alpha, d, theta = arm.dh[i]
        theta = theta + Q[i] if arm.revolute[i] else np.full(N, theta, dtype=dtype)
        d = np.full(N, d, dtype=dtype) if arm.revolute[i] else d + Q[i]
        T = dh_matrices(a, alpha, d, theta, arm.convention)   # complex states stay complex
        A, t = np.ascontiguousarray(T[:, :3, :3]), np.ascontiguousarray(T[:, :3, 3])   # einsum sums as before
        op = op + np.einsum("nij,nj->ni", Rp, t)
        Rp = np.einsum("nij,njk->nik", Rp, A)
        R[:, i], o[:, i] = Rp, op
    return R, o


def _states(arm: NumericArm, *arrays) -> tuple[list[np.ndarray], bool]:
    out = []
    single = False
    for name, v in zip(("q", "qd", "qdd"), arrays):
        v = np.asarray(v)
        if v.dtype.kind not in "fc":
            v = v.astype(float)
        if v.ndim == 1:
            single = True
            v = v[:, None]
        if v.ndim != 2 or v.shape[0] != arm.n:
            raise ValueError(f"{name}: expected {arm.n} values or shape ({arm.n}, N), got shape {v.shape}")
        out.append(v)
    if len({v.shape for v in out}) > 1:
        raise ValueError("q, qd and qdd must have the same shape")
    return out, single


def regressor(arm: NumericArm, q, qd, qdd, gravity: bool = True) -> np.ndarray:
    """Y with tau = Y pi: shape (n, 10 n) for one state, (N, n, 10 n) for columns of (n, N) arrays."""
    (Q, QD, QDD), single = _states(arm, q, qd, qdd)
    n, N = Q.shape
    R, o = frames_many(arm, Q)
    standard = arm.convention is Convention.STANDARD
    # joint axes and points: z_{i-1} at o_{i-1} (standard) or z_i at o_i (modified)
    base_z = np.broadcast_to([0.0, 0.0, 1.0], (N, 1, 3))
    if standard:
        z = np.concatenate([base_z, R[:, :-1, :, 2]], axis=1)
        p = np.concatenate([np.zeros((N, 1, 3)), o[:, :-1]], axis=1)
    else:
        z, p = R[:, :, :, 2], o
    g = np.asarray(arm.gravity, dtype=float) if gravity else np.zeros(3)
    dtype = np.result_type(Q, QD, QDD, float)
    w = np.zeros((N, 3), dtype=dtype)
    dw = np.zeros((N, 3), dtype=dtype)
    o_prev = np.zeros((N, 3), dtype=dtype)
    a_prev = np.broadcast_to(-g, (N, 3)).astype(dtype)
    Y = np.zeros((N, n, 10 * n), dtype=dtype)
    for i in range(n):
        zi = z[:, i]
        r = o[:, i] - o_prev
        a = a_prev + cross_last(dw, r) + cross_last(w, cross_last(w, r))
        qd_i, qdd_i = QD[i][:, None], QDD[i][:, None]
        if arm.revolute[i]:
            wz = zi * qd_i
            s = o[:, i] - p[:, i]
            v_rel = cross_last(wz, s)
            a = a + cross_last(zi * qdd_i, s) + cross_last(wz, v_rel) + 2.0 * cross_last(w, v_rel)
            dw = dw + zi * qdd_i + cross_last(w, wz)
            w = w + wz
        else:
            a = a + zi * qdd_i + 2.0 * cross_last(w, zi * qd_i)
        o_prev, a_prev = o[:, i], a
        Ri = R[:, i]
        wl, dwl, al = (np.einsum("nji,nj->ni", Ri, v) for v in (w, dw, a))  # link-i axes
        F, Nm = _wrench_columns(wl, dwl, al)  # (N, 10, 3) each, link axes, about o_i
        F = np.einsum("nij,nkj->nki", Ri, F)
        Nm = np.einsum("nij,nkj->nki", Ri, Nm)
        for k in range(i + 1):
            if arm.revolute[k]:
                moment = Nm + cross_last((o[:, i] - p[:, k])[:, None, :], F)
                Y[:, k, 10 * i:10 * i + 10] = np.einsum("nj,nkj->nk", z[:, k], moment)
            else:
                Y[:, k, 10 * i:10 * i + 10] = np.einsum("nj,nkj->nk", z[:, k], F)
    return Y[0] if single else Y


def _wrench_columns(w: np.ndarray, dw: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Force and moment (about the origin) per unit of each of the ten parameters."""
    N = w.shape[0]
    F = np.zeros((N, 10, 3), dtype=w.dtype)
    Nm = np.zeros((N, 10, 3), dtype=w.dtype)
    F[:, 0] = a
    eye = np.eye(3)
    for k in range(3):  # first moments: U e_k and e_k x a
        e = np.broadcast_to(eye[k], (N, 3))
        F[:, 1 + k] = cross_last(dw, e) + cross_last(w, cross_last(w, e))
        Nm[:, 1 + k] = cross_last(e, a)
    for col, (r, c) in enumerate([(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]):
        E = np.zeros((3, 3))
        E[r, c] = E[c, r] = 1.0
        Nm[:, 4 + col] = dw @ E.T + cross_last(w, w @ E.T)
    return F, Nm


def drive_regressor(model, qd, qdd) -> np.ndarray:
    """Columns of the drive parameters: tau_j gains Ia_j qdd_j + fv_j qd_j + fc_j sign(qd_j).
    Shape (n, k) for one state, (N, n, k) for columns of (n, N) arrays."""
    qd, qdd = np.asarray(qd, dtype=float), np.asarray(qdd, dtype=float)
    single = qd.ndim == 1
    QD, QDD = (qd[:, None], qdd[:, None]) if single else (qd, qdd)
    slots = drive_slots(model)
    out = np.zeros((QD.shape[1], model.n, len(slots)))
    for c, (j, kind) in enumerate(slots):
        out[:, j, c] = {"Ia": QDD[j], "fv": QD[j], "fc": np.sign(QD[j])}[kind]
    return out[0] if single else out
