"""Dynamics of a closed-chain mechanism in its actuated coordinates.

The loops are cut into a spanning tree whose dynamics are M qdd + h + G = tau + J^T lambda, with
J the loop Jacobian (:mod:`designer.kinematics.tree`) and lambda the forces and moments the cut
joints carry. With W = d q_tree / d q_a (:mod:`designer.kinematics.closure`, J W = 0) and the
passive rates from the loops:

    M_a = W^T M W,  h_a = W^T (M W' qd_a + h),  G_a = W^T G,  tau_a = W^T tau_tree,

and lambda is the least-squares (minimum-norm) solution of J^T lambda = tau_tree - S^T tau_a, whose
passive rows are J_p^T lambda = tau_tree,p (a planar loop's out-of-plane reactions are then 0, as
in any rigid-body solver). The tree's RNEA and CRBA are :mod:`designer.numeric.tree_algorithms`.

Positions: the actuated values q_a; the passive ones come from the closure, each state
continuing from the nominal pose's branch (or from ``guess``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..kinematics.closure import Closure, ClosureError
from ..kinematics.tree import TreeArm
from ..model.manipulator import Manipulator
from .model import lumped_bodies
from .tree_algorithms import TreeModel, tree_crba, tree_rnea

__all__ = ["ClosedDynamics", "CutForces", "ClosureError", "closed_dynamics"]


def _trig(x):
    return math.cos(x), math.sin(x)


@dataclass(frozen=True)
class CutForces:
    """What each cut joint carries, frame-0 axes: ``force[k]`` (3,) on loop k's link i from its link j
    (N) at the cut point, ``moment[k]`` (3,) on link i (N m; zero for a ball joint)."""

    force: np.ndarray
    moment: np.ndarray

    def as_lists(self) -> list[dict]:
        return [{"force": f.tolist(), "moment": m.tolist()} for f, m in zip(self.force, self.moment)]


class ClosedDynamics:
    """M_a, h_a, G_a, tau_a, forward dynamics, cut-joint forces and energy of one mechanism."""

    def __init__(self, model: Manipulator, overrides: Mapping[str, float] | None = None):
        self.model_ = model
        self.tree = TreeArm.from_model(model, overrides)
        self.closure = Closure(self.tree)
        self.tm = TreeModel.from_tree(self.tree)
        self.n_tree = self.tree.n
        self.n = len(self.tree.actuated)
        self.act = np.array(self.tree.actuated, dtype=int)
        self.pas = np.array(self.tree.passive, dtype=int)

    # -- tree quantities at a full (closed) state --------------------------
    def tree_M(self, q) -> np.ndarray:
        return np.array(tree_crba(self.tm, list(map(float, q)), _trig))

    def tree_tau(self, q, qd, qdd, gravity: bool = True) -> np.ndarray:
        return np.array(tree_rnea(self.tm, list(map(float, q)), list(map(float, qd)), list(map(float, qdd)),
                                  gravity, _trig))

    def positions(self, q_a, guess=None) -> np.ndarray:
        """The tree's joint values closing the loops at ``q_a``."""
        return self.closure.solve(q_a, guess)

    def state(self, q_a, qd_a, qdd_a=None, guess=None):
        """(q, qd, qdd or None, W) of the tree, consistent with the loops."""
        q = self.positions(q_a, guess)
        qd, qdd, W, _ = self.closure.rates(q, qd_a, qdd_a)
        return q, qd, qdd, W

    # -- actuated quantities, one state ------------------------------------
    def M(self, q_a, guess=None) -> np.ndarray:
        q = self.positions(q_a, guess)
        W = self.closure.W(q)
        return W.T @ self.tree_M(q) @ W

    def G(self, q_a, guess=None) -> np.ndarray:
        q = self.positions(q_a, guess)
        W = self.closure.W(q)
        zero = np.zeros(self.n_tree)
        return W.T @ self.tree_tau(q, zero, zero, True)

    def h(self, q_a, qd_a, guess=None) -> np.ndarray:
        """W^T (M W' qd_a + h): the velocity terms at zero actuated accelerations."""
        q = self.positions(q_a, guess)
        qd, qdd, W, _ = self.closure.rates(q, qd_a, np.zeros(self.n))
        return W.T @ self.tree_tau(q, qd, qdd, False)

    def tau(self, q_a, qd_a, qdd_a, guess=None) -> np.ndarray:
        q = self.positions(q_a, guess)
        qd, qdd, W, _ = self.closure.rates(q, qd_a, qdd_a)
        return W.T @ self.tree_tau(q, qd, qdd, True)

    def forward(self, q_a, qd_a, tau_a, guess=None, gravity: bool = True) -> np.ndarray:
        """qdd_a = M_a^-1 (tau_a - h_a - G_a); ClosureError where M_a is singular."""
        q = self.positions(q_a, guess)
        qd, qdd0, W, _ = self.closure.rates(q, qd_a, np.zeros(self.n))
        Ma = W.T @ self.tree_M(q) @ W
        bias = W.T @ self.tree_tau(q, qd, qdd0, gravity)
        try:
            L = np.linalg.cholesky(Ma)
        except np.linalg.LinAlgError:
            raise ClosureError(f"the mass matrix in the actuated joints is singular at q = {q.tolist()}") from None
        rhs = np.asarray(tau_a, dtype=float) - bias
        return np.linalg.solve(L.T, np.linalg.solve(L, rhs))

    def cut_forces(self, q_a, qd_a, qdd_a, guess=None) -> CutForces:
        """The forces and moments the cut joints carry while the actuated joints follow (q_a, qd_a, qdd_a)."""
        q = self.positions(q_a, guess)
        qd, qdd, W, _ = self.closure.rates(q, qd_a, qdd_a)
        tau_tree = self.tree_tau(q, qd, qdd, True)
        terms = self.tree.loop_terms(q)
        lam = np.zeros(len(terms.rows))
        if len(self.pas):
            lam = np.linalg.lstsq(terms.jacobian[:, self.pas].T, tau_tree[self.pas], rcond=None)[0]
        k_loops = len(self.tree.loops)
        force, moment = np.zeros((k_loops, 3)), np.zeros((k_loops, 3))
        for value, (k, kind, which) in zip(lam, terms.rows):
            if kind == "force":
                force[k, which] += value
            else:
                i, j = self.tree.loops[k][0], self.tree.loops[k][1]
                Ti = terms.T[i + 1] @ self.tree.loops[k][2]
                Tj = terms.T[j + 1] @ self.tree.loops[k][3]
                a, b = which
                moment[k] -= value * np.cross(Tj[:3, a], Ti[:3, b])
        return CutForces(force, moment)

    def energy(self, q_a, qd_a, guess=None) -> tuple[float, float]:
        """(kinetic, potential) of the whole mechanism; potential zero with every COM at frame 0's origin."""
        q = self.positions(q_a, guess)
        qd, _, W, _ = self.closure.rates(q, qd_a)
        kinetic = 0.5 * float(qd @ self.tree_M(q) @ qd)
        T = self.tree.frames(q)
        bodies = self._bodies
        coms = np.einsum("nij,nj->ni", T[1:, :3, :3], bodies.com) + T[1:, :3, 3]
        potential = -float(np.sum(bodies.mass * (coms @ self.tree.arm.gravity)))
        return kinetic, potential

    def drive_terms(self, q_a, qd_a, qdd_a, guess=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The project's drive data on the tree's joints, in the actuated coordinates: (W^T diag(N^2 Jm) W
        for M_a, W^T (N^2 Jm qdd + friction) for tau_a, the drives' part of h_a = tau_a(q, qd, 0) - G_a:
        W^T (N^2 Jm b + friction), b the tree's accelerations at qdd_a = 0, W' qd_a, a rotor on a passive
        joint of a nonlinear loop feeling it); a passive joint's drive data is its bearing's (friction, and
        an inertia only if it was given one). :meth:`drive_parts` names the parts."""
        parts = self.drive_parts(q_a, qd_a, qdd_a, guess)
        return parts["M"], parts["tau"], parts["h"]

    def drive_parts(self, q_a, qd_a, qdd_a, guess=None) -> dict[str, np.ndarray]:
        """{M, tau, h, friction}: :meth:`drive_terms` and the friction W^T (b qd + fc sign(qd)) alone, so
        that tau_a = (M_a + M) qdd_a + (h_a + h - friction) + G_a + friction as for a serial arm."""
        from ..model.drives import drive_arrays
        refl, visc, coul = drive_arrays(self.model_)
        q = self.positions(q_a, guess)
        qd, qdd, W, _ = self.closure.rates(q, qd_a, qdd_a)
        spin = self.closure.bias(q, qd)   # W' qd_a: zero for a linear closure
        friction = visc * qd + coul * np.sign(qd)
        return {"M": W.T @ np.diag(refl) @ W, "tau": W.T @ (refl * qdd + friction),
                "h": W.T @ (refl * spin + friction), "friction": W.T @ friction}

    @cached_property
    def _bodies(self):
        return lumped_bodies(self.tree.arm)

    def residual(self, q) -> float:
        return self.closure.residual(q)


def closed_dynamics(model: Manipulator, overrides: Mapping[str, float] | None = None) -> ClosedDynamics:
    """The :class:`ClosedDynamics` of ``model``; raises ClosureError naming a loop that cannot be used."""
    return ClosedDynamics(model, overrides)
