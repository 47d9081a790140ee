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

Every mechanism's regressor in its coordinates (a closed chain's actuated joints) is :class:`Regressor`:
tau_a = W^T Y_tree pi, Y_tree the tree's rows, W = d q_tree / d q_a the loops' projection
(:class:`~designer.numeric.closed.ClosedDynamics` closes them; a serial arm is the case W = I, where it equals
:func:`regressor`). A column of Y_tree is the tree RNEA of a mechanism whose only non-zero parameter is that
one: m = 1 alone; m c = e_k with m = 1 and the inertia about the COM chosen so that the inertia about the
origin stays 0 (minus the column of m); an inertia entry alone. :func:`base_grouping` finds its base
parameters numerically: QR with column pivoting of W^T Y_tree stacked over random states gives the rank,
the independent columns pi_B and the grouping pi_B + K pi_D (a parallelogram's coupler and crank move with
the upper arm and the forearm: the loops group further than the tree).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ..dynamics.inertial import (PARAMETER_KINDS, drive_parameter_values, drive_slots,
                                 standard_parameter_values)
from ..kinematics import NumericArm, dh_matrices
from ..kinematics.closure import ClosureError
from ..kinematics.numeric import cross_last
from ..model.manipulator import Convention
from ..numeric.tree_algorithms import TreeModel, tree_rnea

if TYPE_CHECKING:
    from ..numeric.closed import ClosedDynamics

__all__ = ["regressor", "frames_many", "drive_regressor", "Regressor", "BaseGrouping", "base_grouping"]


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


_SYM = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]   # the inertia entries XX XY XZ YY YZ ZZ


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
    for col, (r, c) in enumerate(_SYM):
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
    out = _drive_columns(drive_slots(model), model.n, QD, QDD)
    return out[0] if single else out


def _drive_columns(slots, n: int, QD: np.ndarray, QDD: np.ndarray) -> np.ndarray:
    """(N, n, len(slots)): the drive parameters' columns over the columns of QD, QDD (n, N)."""
    out = np.zeros((QD.shape[1], n, len(slots)))
    for c, (j, kind) in enumerate(slots):
        out[:, j, c] = {"Ia": QDD[j], "fv": QD[j], "fc": np.sign(QD[j])}[kind]
    return out


def _trig(x):
    return math.cos(x), math.sin(x)


class Regressor:
    """Y_tree and W^T Y_tree of any mechanism, ``cd`` its dynamics over the tree (10 columns a link, ``names``,
    ``values`` at the model's defaults; ``drives``: then a column for each drive parameter Ia, fv, fc of the tree
    joints with drive data, W^T e_j times qdd_j, qd_j, sign(qd_j)). The module docstring says how."""

    def __init__(self, cd: ClosedDynamics, drives: bool = False):
        self.cd = cd
        tree, arm = cd.tree, cd.tree.arm
        n = arm.n
        self.names = [f"{k}{j + 1}" for j in range(n) for k in PARAMETER_KINDS]
        self.values = standard_parameter_values(arm)
        self.slots = drive_slots(cd.model_) if drives else []
        if drives:
            self.names += [f"{kind}{j + 1}" for j, kind in self.slots]
            self.values = np.concatenate([self.values, drive_parameter_values(cd.model_)])
        self.models: list[tuple[TreeModel, bool]] = []   # (model, subtract the column of m of that link)
        for j in range(n):
            for k in range(len(PARAMETER_KINDS)):
                mass, com, inertia = np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3, 3))
                if k == 0:
                    mass[j] = 1.0
                elif k <= 3:
                    c = np.eye(3)[k - 1]
                    mass[j], com[j], inertia[j] = 1.0, c, -(np.eye(3) - np.outer(c, c))
                else:
                    r, s = _SYM[k - 4]
                    inertia[j][r, s] = inertia[j][s, r] = 1.0
                unit = replace(tree, arm=replace(arm, mass=mass, com=com, inertia=inertia, point_masses=()))
                self.models.append((TreeModel.from_tree(unit), 1 <= k <= 3))

    def tree_columns(self, q, qd, qdd) -> np.ndarray:
        """Y_tree (n, 10 n) at a state of the tree."""
        q_, qd_, qdd_ = ([float(x) for x in v] for v in (q, qd, qdd))
        cols: list[np.ndarray] = []
        for index, (model, minus_m) in enumerate(self.models):
            col = np.array(tree_rnea(model, q_, qd_, qdd_, True, _trig))
            if minus_m:
                col = col - cols[index - (index % len(PARAMETER_KINDS))]
            cols.append(col)
        return np.array(cols).T

    def actuated(self, q_a, qd_a, qdd_a) -> np.ndarray:
        """W^T Y_tree (n_a, 10 n) at the state of the mechanism's coordinates (the loops closed by ``self.cd``: a
        following engine keeps a trajectory's branch)."""
        q, qd, qdd, W = self.cd.state(q_a, qd_a, qdd_a)
        Y = self.tree_columns(q, qd, qdd)
        if self.slots:
            Y = np.hstack([Y, _drive_columns(self.slots, len(q), np.asarray(qd, float)[:, None],
                                             np.asarray(qdd, float)[:, None])[0]])
        return W.T @ Y


@dataclass(frozen=True)
class BaseGrouping:
    """:func:`base_grouping`'s ``count`` base parameters; ``base[k]`` = (name, {standard name: coefficient});
    ``dropped``: the standard parameters grouped into others or without effect; ``names``, ``standard``, ``slots``:
    :class:`Regressor`'s columns, their values at the model's defaults and its drive slots."""

    count: int
    base: list
    dropped: list
    values: np.ndarray   # the base parameters' values at the model's defaults
    drives: bool = False   # the drive parameters among the standard ones (:class:`Regressor`'s ``drives``)
    names: tuple = ()
    standard: np.ndarray = field(default_factory=lambda: np.zeros(0))
    slots: tuple = ()

    @property
    def columns(self) -> list[int]:
        """The regressor's columns of the base parameters (their kept standard parameters)."""
        return [self.names.index(name) for name, _ in self.base]


def base_grouping(cd: ClosedDynamics, samples: int = 60, seed: int = 0,
                  spread: float = 0.5, drives: bool = False) -> BaseGrouping:
    """The numeric grouping of :class:`Regressor`'s W^T Y_tree (the module docstring) from ``samples`` random
    states where the loops close; ``drives``: with the drive parameters."""
    from scipy.linalg import qr
    reg = Regressor(cd, drives)
    rng = np.random.default_rng(seed)
    rows: list[np.ndarray] = []
    while len(rows) < samples:
        q_a = rng.uniform(-spread, spread, cd.n)
        try:
            rows.append(reg.actuated(q_a, rng.normal(size=cd.n), rng.normal(size=cd.n)))
        except ClosureError:
            continue
    Y = np.vstack(rows)
    _, R, piv = qr(Y, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > 1e-9 * d[0])) if d.size and d[0] > 0 else 0
    K = np.linalg.solve(R[:rank, :rank], R[:rank, rank:]) if rank else np.zeros((0, Y.shape[1]))
    names = reg.names
    base = []
    for r in range(rank):
        combo = {names[piv[r]]: 1.0}
        for c in range(K.shape[1]):
            if abs(K[r, c]) > 1e-9:
                combo[names[piv[rank + c]]] = float(K[r, c])
        base.append((names[piv[r]], combo))
    values = np.array([sum(coef * reg.values[names.index(k)] for k, coef in combo.items()) for _, combo in base])
    return BaseGrouping(rank, base, sorted(names[i] for i in piv[rank:]), values, drives, tuple(names), reg.values,
                        tuple(reg.slots))
