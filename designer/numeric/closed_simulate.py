"""Simulation of a closed-chain mechanism in its actuated coordinates, as a job.

The state is (q_a, qd_a); each right-hand side closes the loops from the previous solution (the
branch stays continuous), so the integrator never sees the passive joints. The loop residual of
every reported row is recorded (the closure solves it to 1e-12 of the mechanism's size), with the
energy of the whole mechanism, which a passive mechanism conserves up to the integrator's tolerance.

With ``drives`` the project's drive data of every tree joint acts, as ``eval --drives`` adds it: a
rotor's reflected inertia R_i = N_i^2 Jm_i is inertia on its joint's coordinate (the tree's M + R,
projected: M_a = W^T (M + R) W, and R W' qd_a among the velocity terms, exact for a loop whose W
changes with the pose), a joint's friction b qd_i + fc sign(qd_i) is a torque on that joint, W^T of
it on the actuated ones; the energy then counts the rotors' kinetic energy 1/2 R_i qd_i^2, and
falls by the friction's work.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ..jobs import CancelToken, Job, NEVER, run
from .closed import ClosedDynamics, ClosureError
from .closed_drive import ClosedPD, stop_torques
from .end_stops import STOP_HZ, EndStops
from .integrate import PROGRESS_SECONDS, IntegrationError, integrate_job
from .simulate import PDControl, SimulationError, Torque, _torque_function, pose_text

__all__ = ["ClosedTrajectory", "simulate_closed_job", "simulate_closed"]


@dataclass(frozen=True, eq=False)
class ClosedTrajectory:
    """Times (N,), actuated positions/velocities/torques (N, n_a) (``tau`` the applied law's, without the
    stops'), the tree's positions (N, n), the energies (N,) and the largest loop residual of each row (N,; m)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    q_tree: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    residual: np.ndarray
    evaluations: int = 0
    stop_tau: np.ndarray | None = None    # (N, n_a) the end stops' torques on the actuated joints, W^T tau_stop
    stop_work: np.ndarray | None = None   # (N,) their work since t0 (integrated with the motion)
    cut_force: np.ndarray | None = None   # (N, loops, 3) what each cut joint carries (N, frame 0; CutForces)
    cut_moment: np.ndarray | None = None  # (N, loops, 3) its moment (N m)


class _Driven:
    """Forward dynamics and energy with every tree joint's drive data (the module docstring)."""

    def __init__(self, cd: ClosedDynamics):
        from ..model.drives import drive_arrays
        self.cd = cd
        self.refl, self.visc, self.coul = drive_arrays(cd.model_)

    def forward(self, q_a, qd_a, tau_a) -> np.ndarray:
        cd = self.cd
        q = cd.close(q_a)
        qd, qdd0, W, _ = cd.closure.rates(q, qd_a, np.zeros(cd.n))
        friction = self.visc * qd + self.coul * np.sign(qd)
        Ma = W.T @ (cd.tree_M(q) + np.diag(self.refl)) @ W
        bias = W.T @ (cd.tree_tau(q, qd, qdd0, True) + self.refl * qdd0 + friction)
        try:
            return np.linalg.solve(Ma, np.asarray(tau_a, dtype=float) - bias)
        except np.linalg.LinAlgError:
            raise ClosureError(f"the mass matrix in the actuated joints is singular at q = {q.tolist()}") from None

    def rotor_energy(self, q_a, qd_a) -> float:
        qd = self.cd.state(q_a, qd_a)[1]
        return 0.5 * float(np.sum(self.refl * qd ** 2))


def simulate_closed_job(cd: ClosedDynamics, q0, qd0, t_span: tuple[float, float], torque: Torque | ClosedPD = None,
                        rtol: float = 1e-8, atol: float = 1e-10, t_eval=None,
                        token: CancelToken = NEVER, drives: bool = False, end_stops: EndStops | None = None,
                        interval: float = PROGRESS_SECONDS) -> Job:
    """Yields progress (the fraction of the time span done, every ``interval`` seconds); returns a
    :class:`ClosedTrajectory`. ClosureError where a loop cannot close.

    ``end_stops`` (:func:`designer.numeric.closed_drive.closed_end_stops_for`): stops on the tree's joints,
    acting on the actuated ones as W^T tau_stop; their work is integrated with the motion (one more state)."""
    n = cd.n
    dyn = cd.following()   # the right-hand side's closure: each state continues from the last
    dyn.positions(np.asarray(q0, dtype=float))
    if isinstance(torque, PDControl) and torque.gravity is None:
        torque = PDControl(list(torque.kp), list(torque.kd), list(torque.target),
                           lambda q: dyn.G(np.asarray(q, float)).tolist())
    # gravity compensation at the state cancels G_a on both sides: the right-hand side integrates
    # M_a^-1 (PD - h_a) and skips a second closure, W and gravity RNEA per call (the palletizer's 2 s move:
    # 1.67 -> 0.9 s, benchmarks/bench_closed_window.py); the reported torques include G_a
    compensated = isinstance(torque, ClosedPD) and not drives
    if isinstance(torque, ClosedPD):
        tau_of = torque.law(dyn)
    else:
        tau_of, _ = _torque_function(torque, n, dyn)
    applied = torque.law(dyn, gravity=False) if compensated else tau_of  # type: ignore[union-attr]
    count = [0]
    driven = _Driven(dyn) if drives else None

    def stops_at(q_tree, qd_a) -> tuple[np.ndarray, float]:
        """(W^T tau_stop, the stops' power) at the closed pose."""
        if end_stops is None:
            return np.zeros(n), 0.0
        W = cd.closure.W(q_tree)
        qd_tree = W @ qd_a
        tau = stop_torques(end_stops, q_tree, qd_tree)
        return (np.zeros(n), 0.0) if tau is None else (W.T @ tau, float(tau @ qd_tree))

    def rhs(t, y):
        token.check()
        q, qd = y[:n], y[n:2 * n]
        q_tree = dyn.close(q)
        count[0] += 1
        tau = np.asarray(applied(t, q.tolist(), qd.tolist()), dtype=float)
        stop, power = stops_at(q_tree, qd)
        tau = tau + stop
        qdd = driven.forward(q, qd, tau) if driven else dyn.qdd_free(q, qd, tau) if compensated else \
            dyn.qdd(q, qd, tau)
        return np.concatenate([qd, qdd] + ([[power]] if end_stops is not None else []))

    y0 = np.concatenate([np.asarray(q0, dtype=float), np.asarray(qd0, dtype=float)]
                        + ([[0.0]] if end_stops is not None else []))
    try:
        # with stops: steps of at most a quarter of a stop's 30 Hz period. Unbounded, DOP853's trial stages across
        # the first contact reached crank angles radians away (8.4 rad), where a four-bar's loop cannot close (random
        # mounted four-bars of tests/support/closed_reference.py, seeds 3 and 4); a serial arm has no such states
        most = np.inf if end_stops is None else 0.25 / STOP_HZ
        sol = yield from integrate_job(rhs, t_span, y0, "DOP853", rtol, atol, most, t_eval, interval, token,
                                       stage="simulate", describe=pose_text(n, [f"q{j + 1}" for j in cd.act]))
    except IntegrationError as exc:
        raise SimulationError(str(exc)) from None
    rows = len(sol.t)
    Q, QD = sol.y[:, :n], sol.y[:, n:2 * n]
    q_tree = np.empty((rows, cd.n_tree))
    kinetic, potential, residual = np.empty(rows), np.empty(rows), np.empty(rows)
    tau = np.empty((rows, n))
    stop_tau = np.zeros((rows, n)) if end_stops is not None else None
    evaluations = count[0]   # the integration's (the rows' cut forces below call the right-hand side again)
    loops = len(cd.tree.loops)
    cut_force, cut_moment = np.empty((rows, loops, 3)), np.empty((rows, loops, 3))
    dyn.last = None   # the rows from the start's branch on
    for r in range(rows):
        g = q_tree[r] = dyn.close(Q[r])
        # the bearings' load at the row's own accelerations (the right-hand side's; the rigid bodies' forces
        # as eval gives them: a stop's or a drive's torque on a passive joint is not among them)
        qdd = rhs(sol.t[r], sol.y[r])[n:2 * n]
        forces = dyn.cut_forces(Q[r], QD[r], qdd)
        cut_force[r], cut_moment[r] = forces.force, forces.moment
        kinetic[r], potential[r] = dyn.energy(Q[r], QD[r])
        if driven:
            kinetic[r] += driven.rotor_energy(Q[r], QD[r])
        residual[r] = cd.closure.residual(g)
        tau[r] = tau_of(sol.t[r], Q[r].tolist(), QD[r].tolist())
        if stop_tau is not None:
            stop_tau[r] = stops_at(g, QD[r])[0]
    stop_work = sol.y[:, 2 * n] if end_stops is not None else None
    return ClosedTrajectory(sol.t, Q, QD, tau, q_tree, kinetic, potential, residual, evaluations, stop_tau,
                            stop_work, cut_force, cut_moment)


def simulate_closed(cd: ClosedDynamics, q0, qd0, t_span, **kwargs) -> ClosedTrajectory:
    return run(simulate_closed_job(cd, q0, qd0, t_span, interval=np.inf, **kwargs))
