"""The regressor of a closed-chain mechanism and its base parameters: tau_a = W^T Y_tree pi.

The tree's inverse dynamics are linear in each link's ten standard parameters (m, m c, the inertia
about the link frame's origin, in link frame j: :data:`~designer.dynamics.inertial.PARAMETER_KINDS`),
so a column of Y_tree is the tree RNEA of a mechanism whose only non-zero parameter is that one:
m = 1 alone; m c = e_k with m = 1 and the inertia about the COM chosen so that the inertia about the
origin stays 0 (minus the column of m); an inertia entry alone. The closed-loop regressor
W^T Y_tree groups the parameters further than the tree does (a parallelogram's coupler and crank
move with the upper arm and the forearm), found numerically: QR with column pivoting of W^T Y_tree
stacked over random closed states gives the rank (the number of base parameters), the independent
columns pi_B and the grouping pi_B + K pi_D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.linalg import qr

from ..dynamics.inertial import PARAMETER_KINDS
from ..kinematics.closure import ClosureError
from .closed import ClosedDynamics
from ..dynamics.inertial import standard_parameter_values
from .tree_algorithms import TreeModel, tree_rnea

__all__ = ["ClosedRegressor", "ClosedBaseParameters", "closed_base_parameters"]

_SYM = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]


def _trig(x):
    return math.cos(x), math.sin(x)


class ClosedRegressor:
    """Y_tree and W^T Y_tree of one mechanism (10 columns a link; ``drives``: then a column for each
    drive parameter Ia, fv, fc of the tree joints with drive data, W^T e_j times qdd_j, qd_j, sign(qd_j))."""

    def __init__(self, cd: ClosedDynamics, drives: bool = False):
        from ..dynamics.inertial import drive_parameter_values, drive_slots
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
        """Y_tree (n, 10 n) at a closed state of the tree."""
        q_, qd_, qdd_ = ([float(x) for x in v] for v in (q, qd, qdd))
        cols: list[np.ndarray] = []
        for index, (model, minus_m) in enumerate(self.models):
            col = np.array(tree_rnea(model, q_, qd_, qdd_, True, _trig))
            if minus_m:
                col = col - cols[index - (index % len(PARAMETER_KINDS))]
            cols.append(col)
        return np.array(cols).T

    def actuated(self, q_a, qd_a, qdd_a) -> np.ndarray:
        """W^T Y_tree (n_a, 10 n) at the actuated state (the loops closed by ``self.cd``: a following engine keeps
        a trajectory's branch)."""
        q, qd, qdd, W = self.cd.state(q_a, qd_a, qdd_a)
        Y = self.tree_columns(q, qd, qdd)
        if self.slots:
            D = np.zeros((len(q), len(self.slots)))
            for c, (j, kind) in enumerate(self.slots):
                D[j, c] = {"Ia": qdd[j], "fv": qd[j], "fc": np.sign(qd[j])}[kind]
            Y = np.hstack([Y, D])
        return W.T @ Y


@dataclass(frozen=True)
class ClosedBaseParameters:
    """``count`` base parameters; ``base[k]`` = (name, {standard name: coefficient}); ``dropped``: the
    standard parameters grouped into others or without effect."""

    count: int
    base: list
    dropped: list
    values: np.ndarray   # the base parameters' values at the model's defaults
    drives: bool = False   # the drive parameters among the standard ones (:class:`ClosedRegressor`'s ``drives``)


def closed_base_parameters(cd: ClosedDynamics, samples: int = 60, seed: int = 0,
                           spread: float = 0.5, drives: bool = False) -> ClosedBaseParameters:
    """The closed-loop grouping (see the module docstring) from ``samples`` random closed states;
    ``drives``: with the drive parameters (:class:`ClosedRegressor`)."""
    reg = ClosedRegressor(cd, drives)
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
    return ClosedBaseParameters(rank, base, sorted(names[i] for i in piv[rank:]), values, drives)
