"""Dynamics of a closed-chain mechanism in its actuated coordinates.

The loops are cut into a spanning tree whose dynamics are M qdd + h + G = tau + J^T lambda, with
J the loop Jacobian (:mod:`designer.kinematics.tree`) and lambda the forces and moments the cut
joints carry. With W = d q_tree / d q_a (:mod:`designer.kinematics.closure`, J W = 0) and the
passive rates from the loops:

    M_a = W^T M W,  h_a = W^T (M W' qd_a + h),  G_a = W^T G,  tau_a = W^T tau_tree,

and lambda is the least-squares (minimum-norm) solution of J^T lambda = tau_tree - S^T tau_a, whose
passive rows are J_p^T lambda = tau_tree,p (a planar loop's out-of-plane reactions are then 0, as
in any rigid-body solver). The tree's RNEA and CRBA are :mod:`designer.numeric.tree_algorithms`.

:class:`ClosedDynamics` answers the numeric :class:`~designer.numeric.protocol.Dynamics` protocol over
states (..., n_a) as every engine does, with the extras (passive positions, loop residual, cut forces)
that a serial engine answers trivially. Positions: the actuated values q_a; the passive ones come from
the closure, the states of one call each continuing from the one before, the first from the nominal
pose's branch, or, for the engine :meth:`ClosedDynamics.following` gives (a simulation), from its last
state. A nonlinear closure closes by Newton's iterations in C from that pose (from the nominal pose within one
continuation step of it) and solves its forward dynamics from flat code (:mod:`.closed_newton`); a state that
code finds doubtful takes the interpreted way below, which gives the same numbers or names the loop.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from functools import cached_property

import numpy as np

from ..kinematics.closure import Closure, ClosureError
from ..kinematics.tree import TreeArm
from ..model.manipulator import Manipulator
from .model import lumped_bodies
from .protocol import CutForces, states
from .tree_algorithms import TreeModel, tree_crba, tree_rnea

__all__ = ["ClosedDynamics", "CutForces", "ClosureError", "closed_dynamics"]


def _trig(x):
    return math.cos(x), math.sin(x)


class ClosedDynamics:
    """M_a, h_a, G_a, tau_a, forward dynamics, Jacobians, energy and cut-joint forces of one mechanism over
    actuated states (..., n): the :class:`~designer.numeric.protocol.Dynamics` protocol."""

    def __init__(self, model: Manipulator, overrides: Mapping[str, float] | None = None):
        self.model_, self.overrides = model, overrides
        self.tree = TreeArm.from_model(model, overrides)
        self.closure = Closure(self.tree)
        self.tm = TreeModel.from_tree(self.tree)
        self.n_tree = self.tree.n
        self.n = len(self.tree.actuated)
        self.act = np.array(self.tree.actuated, dtype=int)
        self.pas = np.array(self.tree.passive, dtype=int)
        self.actuated = tuple(int(i) for i in self.act)
        #: the last closed tree pose of a following engine (None: the nominal pose's branch)
        self.last: np.ndarray | None = None
        self._follow = False
        #: what is built once per mechanism and shared by its following engines (a shallow copy keeps this dict)
        self.shared: dict = {}

    def following(self, start=None) -> ClosedDynamics:
        """This mechanism with a closure of its own that continues from its last state (a trajectory's branch
        stays continuous), first from the closed tree pose ``start`` (the nominal pose's branch without one);
        shares everything else (the flat code too: traced once per mechanism)."""
        self._flat  # noqa: B018  (built here so that every following engine shares it)
        self._newton  # noqa: B018  (a nonlinear closure's flat code, likewise)
        other = copy.copy(self)
        other._follow = True
        other.last = None if start is None else np.array(start, dtype=float)
        return other

    @cached_property
    def arm(self):
        """The mechanism in the explore metrics' terms, over its actuated joints
        (:class:`~designer.numeric.actuated_arm.ActuatedArm`; a serial engine's is its NumericArm)."""
        from .actuated_arm import ActuatedArm
        return ActuatedArm(self)

    def flat_law(self):
        """A linear closure's forward dynamics in its actuated coordinates as a law (q, qd, tau, trig, armature)
        -> qdd that flat code is traced from, and the store this mechanism's engines share (``store(key, make)``);
        None for a nonlinear closure (its flat code, :mod:`.closed_newton`, takes the closed pose too)."""
        if self._affine is None:
            return None
        from .closed_flat import projected_forward
        tm, (W, c) = self.tm, self._affine

        def closed(q, qd, tau, trig, armature):
            return projected_forward(tm, W, c, q, qd, tau, trig, True, armature)

        def store(key, make):
            if key not in self.shared:
                self.shared[key] = make()
            return self.shared[key]
        return closed, store

    # -- tree quantities at a full (closed) state --------------------------
    def tree_M(self, q) -> np.ndarray:
        """The tree's mass matrix at a closed tree pose (n_tree, n_tree)."""
        return np.array(tree_crba(self.tm, list(map(float, q)), _trig))

    def tree_tau(self, q, qd, qdd, gravity: bool = True) -> np.ndarray:
        """The tree's inverse dynamics at a tree state (n_tree,)."""
        return np.array(tree_rnea(self.tm, list(map(float, q)), list(map(float, qd)), list(map(float, qdd)),
                                  gravity, _trig))

    def close(self, q_a) -> np.ndarray:
        """The tree's joint values (n_tree,) closing the loops at one actuated state, continuing from the last
        state when following; ClosureError where a loop cannot close. A following engine asked again at the
        actuated values it closed last (a simulation's right-hand side closes its state, then its forward dynamics
        does) answers its last pose: the loops are not solved twice."""
        last = self.last
        if self._follow and last is not None and np.array_equal(last[self.act], q_a):
            return last
        q = self._solve(q_a, last if self._follow else None)
        if self._follow:
            self.last = q
        return q

    def _solve(self, q_a, guess) -> np.ndarray:
        """The tree pose closing the loops at q_a from the closed pose ``guess`` (None: the nominal pose's branch):
        a nonlinear closure's Newton in C from it (from the closure's reference pose without one: the nominal pose,
        assembled where its loops do not close), else, or where that is doubtful, the interpreted closure."""
        if self._newton is not None:
            q = self._newton.close(q_a, self.closure.reference if guess is None else guess)
            if q is not None:
                return q
        return self.closure.solve(q_a, guess)

    def state(self, q_a, qd_a, qdd_a=None):
        """(q, qd, qdd or None, W) of the tree at one actuated state, consistent with the loops."""
        q = self.close(q_a)
        qd, qdd, W, _ = self.closure.rates(q, qd_a, qdd_a)
        return q, qd, qdd, W

    def _at(self, q, qd_a, qdd_a, gravity: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(tau_a, W, the tree's tau) at a closed tree pose q and actuated rates."""
        qd, qdd, W, _ = self.closure.rates(q, qd_a, qdd_a)
        tau_tree = self.tree_tau(q, qd, qdd, gravity)
        return W.T @ tau_tree, W, tau_tree

    # -- over states (..., n): the loops close state by state ---------------
    def _each(self, fn: Callable, named: tuple, width: tuple[int, ...]) -> np.ndarray:
        one = [np.asarray(v, dtype=float) for _, v in named]
        if all(a.shape == (self.n,) for a in one):   # one state (a simulation's step): no broadcasting
            return np.asarray(fn(self.close(one[0]), *one[1:]), dtype=float)
        arrays = states(self.n, *named)
        lead = arrays[0].shape[:-1]
        if not lead:
            return np.asarray(fn(self.close(arrays[0]), *arrays[1:]), dtype=float)
        guess = self.last if self._follow else None
        out = np.empty((int(np.prod(lead)),) + width)
        for k, row in enumerate(zip(*(a.reshape(-1, self.n) for a in arrays))):
            guess = self._solve(row[0], guess)
            out[k] = fn(guess, *row[1:])
        if self._follow:
            self.last = guess
        return out.reshape(lead + width)

    def positions(self, q) -> np.ndarray:
        """(..., n_tree) the tree's joint values closing the loops at actuated states q."""
        if self._affine is not None and np.ndim(q) > 1:   # a linear closure: q_tree = W q_a + c, every row at once
            W, c = self._affine
            arrays = states(self.n, ("q", q))
            self._finite(arrays[0])
            return arrays[0] @ W.T + c
        return self._each(lambda p: p, (("q", q),), (self.n_tree,))

    def residual(self, q) -> np.ndarray:
        """(...) the largest loop residual of the closure at q (m or rad)."""
        if self._flat is not None and np.ndim(q) > 1:
            zero = np.zeros_like(np.asarray(q, dtype=float))
            return self.rows_extras(q, zero, zero, ("residual",))["residual"]
        return self._each(self.closure.residual, (("q", q),), ())

    def M(self, q) -> np.ndarray:
        """M_a = W^T M W, (..., n, n)."""
        flat = self._flat

        def one(p):
            if flat is not None:
                return flat.mass(p[self.act])
            W = self.closure.W(p)
            return W.T @ self.tree_M(p) @ W
        return self._each(one, (("q", q),), (self.n, self.n))

    def G(self, q) -> np.ndarray:
        """G_a = W^T G, (..., n)."""
        zero = np.zeros(self.n_tree)
        return self._each(lambda p: self.closure.W(p).T @ self.tree_tau(p, zero, zero, True), (("q", q),), (self.n,))

    def h(self, q, qd) -> np.ndarray:
        """h_a = W^T (M W' qd_a + h): the velocity terms at zero actuated accelerations, (..., n)."""
        zero = np.zeros(self.n)
        return self._each(lambda p, v: self._at(p, v, zero, False)[0], (("q", q), ("qd", qd)), (self.n,))

    def tau(self, q, qd, qdd) -> np.ndarray:
        """tau_a = W^T tau_tree, (..., n)."""
        return self._each(lambda p, v, a: self._at(p, v, a)[0], (("q", q), ("qd", qd), ("qdd", qdd)), (self.n,))

    def _finite(self, q: np.ndarray) -> None:
        """The closure's own ClosureError at the first row of actuated values (..., n) that is not finite."""
        bad = ~np.all(np.isfinite(q), axis=-1)
        if np.any(bad):
            self.closure.solve(q[bad][0])

    @cached_property
    def _affine(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(W, c) of a linear closure, q_tree = W q_a + c (n_tree x n, n_tree); None for a nonlinear one."""
        lin = self.closure.linear
        if lin is None or not self.n:
            return None
        c = np.zeros(self.n_tree)
        c[self.pas] = lin.c
        return self.closure.W(self.closure.reference), c

    @cached_property
    def _flat(self):
        """A linear closure's forward dynamics as flat (traced, compiled) code, :mod:`.closed_flat`; else None."""
        if self._affine is None:
            return None
        from .closed_flat import flat_forward
        return flat_forward(self.tm, *self._affine)

    @cached_property
    def _newton(self):
        """A nonlinear closure's Newton step and forward dynamics as flat code, :mod:`.closed_newton`; else None."""
        if self._affine is not None:
            return None
        from .closed_newton import newton_flat
        return newton_flat(self.closure, self.tm)

    def _forward(self, p, qd_a, tau_a, gravity: bool = True) -> np.ndarray:
        flat = self._flat
        if flat is not None:
            x = flat(p[self.act], qd_a, tau_a, gravity)
            if x is not None:
                return x
        newton = self._newton
        if newton is not None:
            x = newton(p, qd_a, tau_a, gravity)
            if x is not None:
                return x
        return self._forward_checked(p, qd_a, tau_a, gravity)

    def _forward_checked(self, p, qd_a, tau_a, gravity: bool = True) -> np.ndarray:
        qd, qdd0, W, _ = self.closure.rates(p, qd_a, np.zeros(self.n))
        Ma = W.T @ self.tree_M(p) @ W
        bias = W.T @ self.tree_tau(p, qd, qdd0, gravity)
        try:
            L = np.linalg.cholesky(Ma)
        except np.linalg.LinAlgError:
            raise ClosureError(f"the mass matrix in the actuated joints is singular at q = {p.tolist()}") from None
        return np.linalg.solve(L.T, np.linalg.solve(L, np.asarray(tau_a, dtype=float) - bias))

    def qdd(self, q, qd, tau) -> np.ndarray:
        """q_a'' = M_a^-1 (tau_a - h_a - G_a), (..., n); ClosureError where M_a is singular."""
        x = self._one_flat(q, qd, tau, True)
        return x if x is not None else self._each(self._forward, (("q", q), ("qd", qd), ("tau", tau)), (self.n,))

    def qdd_free(self, q, qd, tau) -> np.ndarray:
        """M_a^-1 (tau_a - h_a): q_a'' with tau_a the torque beyond gravity compensation, (..., n)."""
        x = self._one_flat(q, qd, tau, False)
        return x if x is not None else self._each(lambda p, v, t: self._forward(p, v, t, False),
                                                  (("q", q), ("qd", qd), ("tau", tau)), (self.n,))

    def _one_flat(self, q, qd, tau, gravity: bool):
        """A linear closure's q_a'' at one state straight from its flat code (no closure to solve: the code holds
        q_tree = W q_a + c), a following nonlinear closure's from its machine code closing the loops from its last
        pose (:mod:`.closed_newton`); None (the caller's checked way) for anything else or a doubtful state."""
        if np.shape(q) != (self.n,) or np.shape(qd) != (self.n,) or np.shape(tau) != (self.n,):
            return None
        flat = self._flat
        if flat is not None:
            return flat(q, qd, tau, gravity)
        newton = self._newton
        if newton is None or not self._follow or self.last is None:
            return None
        found = newton.close_forward(q, qd, tau, self.last, gravity)
        if found is None:
            return None
        self.last = found[1]
        return found[0]

    def energy(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        """(kinetic, potential), each (...), of the whole mechanism; potential zero with every COM at frame 0's
        origin."""
        flat = self._flat
        if flat is not None and (np.ndim(q) > 1 or np.ndim(qd) > 1):   # every row at once, from the flat code
            arrays = states(self.n, ("q", q), ("qd", qd))
            self._finite(arrays[0])
            lead = arrays[0].shape[:-1]
            both = flat.rows("energy", *(a.reshape(-1, self.n) for a in arrays)).reshape(lead + (2,))
        else:
            both = self._each(self._energy, (("q", q), ("qd", qd)), (2,))
        return both[..., 0], both[..., 1]

    def _energy(self, p, qd_a) -> tuple[float, float]:
        flat = self._flat
        if flat is not None:   # qd = W qd_a: the same 1/2 qd^T M qd from the flat M_a
            qd_a = np.asarray(qd_a, dtype=float)
            kinetic = 0.5 * float(qd_a @ flat.mass(p[self.act]) @ qd_a)
        else:
            qd = self.closure.rates(p, qd_a)[0]
            kinetic = 0.5 * float(qd @ self.tree_M(p) @ qd)
        T = self.tree.frames(p)
        bodies = self._bodies
        coms = np.einsum("nij,nj->ni", T[1:, :3, :3], bodies.com) + T[1:, :3, 3]
        return kinetic, -float(np.sum(bodies.mass * (coms @ self.tree.arm.gravity)))

    def cut_forces(self, q, qd, qdd) -> CutForces:
        """The forces and moments (..., loops, 3) the cut joints carry while the actuated joints follow
        (q, qd, qdd)."""
        if self._flat is not None and max(np.ndim(q), np.ndim(qd), np.ndim(qdd)) > 1:
            both = self.rows_extras(q, qd, qdd, ("cut",))["cut"]
        else:
            both = self._each(self._cut, (("q", q), ("qd", qd), ("qdd", qdd)), (2, len(self.tree.loops), 3))
        return CutForces(both[..., 0, :, :], both[..., 1, :, :])

    def rows_extras(self, q, qd, qdd, what=("positions", "residual", "energy", "cut")) -> dict[str, np.ndarray]:
        """What a run reports of its rows (..., n), each quantity's rows closing from the start's branch on:
        ``positions`` (..., n_tree), ``residual`` (...), ``energy`` (..., 2: kinetic, potential) and ``cut``
        (..., 2, loops, 3: forces, moments) at the accelerations qdd. A linear closure's come from its flat code
        for all rows at once, with one evaluation of the loops' terms per row for the residual and the cut forces
        both; a nonlinear closure's likewise from its own flat code (:mod:`.closed_newton`) at the rows' tree poses,
        closed one after another from the nominal pose's branch (the protocol's methods row by row without it)."""
        arrays = states(self.n, ("q", q), ("qd", qd), ("qdd", qdd))
        lead = arrays[0].shape[:-1]
        Q, QD, QDD = (a.reshape(-1, self.n) for a in arrays)
        loops = len(self.tree.loops)
        out: dict[str, np.ndarray] = {}
        flat = self._flat
        newton = self._newton
        if flat is None and newton is None:
            fresh = self.following
            if "positions" in what:
                out["positions"] = fresh().positions(Q)
            if "residual" in what:
                out["residual"] = fresh().residual(Q)
            if "energy" in what:
                out["energy"] = np.stack(fresh().energy(Q, QD), axis=-1)
            if "cut" in what:
                forces = fresh().cut_forces(Q, QD, QDD)
                out["cut"] = np.stack([forces.force, forces.moment], axis=1)
        else:   # a linear closure's flat code takes the actuated values, a nonlinear one's the closed tree poses
            P = self.positions(Q) if flat is not None else self.following().positions(Q)
            rows_of, first = (flat.rows, Q) if flat is not None else (newton.rows, P)
            if "positions" in what:
                out["positions"] = P
            if "energy" in what:
                out["energy"] = rows_of("energy", first, QD)
            if "residual" in what or "cut" in what:
                tau_tree = rows_of("tree_tau", first, QD, QDD) if "cut" in what else None
                terms = self.terms_at(P)
                if "residual" in what:
                    out["residual"] = np.array([np.abs(t.residual).max(initial=0.0) for t in terms], dtype=float)
                if tau_tree is not None:
                    out["cut"] = self._cuts_from(terms, tau_tree).reshape(len(Q), 2, loops, 3)
        widths = {"positions": (self.n_tree,), "residual": (), "energy": (2,), "cut": (2, loops, 3)}
        return {k: v.reshape(lead + widths[k]) for k, v in out.items()}

    def terms_at(self, P: np.ndarray) -> list:
        """The loops' terms (:meth:`TreeArm.loop_terms`, no rates) at closed tree poses P (N, n_tree): a run's rows'
        residuals, cut forces and conditioning (:mod:`.near_singular`), asked apart, evaluate them once."""
        P = np.asarray(P, dtype=float)
        key = P.tobytes()
        memo = self.shared.get("loop_terms")
        if memo is not None and memo[0] == key:
            return memo[1]
        terms = [self.tree.loop_terms(p) for p in P]
        self.shared["loop_terms"] = (key, terms)
        return terms

    def _cut(self, p, qd_a, qdd_a) -> np.ndarray:
        return self._cuts_from([self.tree.loop_terms(p)], self._at(p, qd_a, qdd_a)[2][None])[0]

    def _cuts_from(self, terms: list, tau_tree: np.ndarray) -> np.ndarray:
        """(N, 2, loops, 3) the cut joints' forces and moments from the loops' terms at N closed poses and the tree's
        joint torques there (N, n_tree): the least-squares lambda of the module docstring, pose by pose, and the
        moments of its rows for all poses at once."""
        N, loops = len(terms), self.tree.loops
        lam = np.zeros((N, len(terms[0].rows) if N else 0))
        if len(self.pas):
            for r, t in enumerate(terms):
                lam[r] = np.linalg.lstsq(t.jacobian[:, self.pas].T, tau_tree[r, self.pas], rcond=None)[0]
        out = np.zeros((N, 2, len(loops), 3))
        for c, (k, kind, which) in enumerate(terms[0].rows if N else ()):
            if kind == "force":
                out[:, 0, k, which] += lam[:, c]
            else:
                out[:, 1, k] -= lam[:, c, None] * np.array([t.moment_axes[c] for t in terms])
        return out

    # -- from the batch of closed states (numeric/closed_batch.py) ------------
    def _batched(self, q, get: Callable, width: tuple[int, ...]) -> np.ndarray:
        from .closed_batch import ClosedBatch
        arrays = states(self.n, ("q", q))
        lead = arrays[0].shape[:-1]
        b = ClosedBatch(self, arrays[0].reshape(-1, self.n), start=self.last if self._follow else None)
        for k, state in enumerate(b.closed):
            if state is None:   # the closure's own error names the loop and the pose
                prev = b.closed[k - 1] if k else None
                self.closure.W(self.closure.solve(b.q[k], None if prev is None else prev[0]))
                raise ClosureError(f"the loops cannot close at the actuated values {b.q[k].tolist()}")
        if self._follow and b.closed:
            self.last = b.closed[-1][0]   # type: ignore[index]
        return get(b).reshape(lead + width)

    def christoffel(self, q) -> np.ndarray:
        """Christoffel symbols of M_a (..., n, n, n): h_a,i = qd^T Gamma_i qd."""
        return self._batched(q, lambda b: b.gamma, (self.n,) * 3)

    def com_jacobians(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(Jv, Jw), each (..., B, 3, n): every body's centre (links, then point masses) in the actuated rates."""
        B = self.n_tree + len(self.tree.arm.point_masses)
        both = self._batched(q, lambda b: np.stack(b.com_jacobians, axis=1), (2, B, 3, self.n))
        return both[..., 0, :, :, :], both[..., 1, :, :, :]

    def tool_jacobian(self, q) -> np.ndarray:
        """(..., 6, n) [v; w] of the tool point in the actuated rates."""
        return self._batched(q, lambda b: b.tool_jacobian, (6, self.n))

    # -- the project's drive data ------------------------------------------
    def drive_terms(self, q_a, qd_a, qdd_a) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The project's drive data on the tree's joints, in the actuated coordinates, at one state: (W^T diag(N^2
        Jm) W for M_a, W^T (N^2 Jm qdd + friction) for tau_a, the drives' part of h_a = tau_a(q, qd, 0) - G_a:
        W^T (N^2 Jm b + friction), b the tree's accelerations at qdd_a = 0, W' qd_a, a rotor on a passive joint of
        a nonlinear loop feeling it); a passive joint's drive data is its bearing's (friction, and an inertia only
        if it was given one). :meth:`drive_parts` names the parts."""
        parts = self.drive_parts(q_a, qd_a, qdd_a)
        return parts["M"], parts["tau"], parts["h"]

    def drive_parts(self, q_a, qd_a, qdd_a) -> dict[str, np.ndarray]:
        """{M, tau, h, friction} at one state: :meth:`drive_terms` and the friction W^T (b qd + fc sign(qd))
        alone, so that tau_a = (M_a + M) qdd_a + (h_a + h - friction) + G_a + friction as for a serial arm."""
        from ..model.drives import drive_arrays
        refl, visc, coul = drive_arrays(self.model_)
        q = self.close(q_a)
        qd, qdd, W, _ = self.closure.rates(q, qd_a, qdd_a)
        spin = self.closure.bias(q, qd)   # W' qd_a: zero for a linear closure
        friction = visc * qd + coul * np.sign(qd)
        return {"M": W.T @ np.diag(refl) @ W, "tau": W.T @ (refl * qdd + friction),
                "h": W.T @ (refl * spin + friction), "friction": W.T @ friction}

    @cached_property
    def _bodies(self):
        return lumped_bodies(self.tree.arm)


def closed_dynamics(model: Manipulator, overrides: Mapping[str, float] | None = None) -> ClosedDynamics:
    """The :class:`ClosedDynamics` of ``model``; raises ClosureError naming a loop that cannot be used."""
    return ClosedDynamics(model, overrides)
