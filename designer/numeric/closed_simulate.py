"""Simulation of a closed-chain mechanism in its actuated coordinates, as a job.

The state is (q_a, qd_a); each right-hand side closes the loops from the previous solution (the
branch stays continuous), so the integrator never sees the passive joints. The loop residual of
every reported row is recorded (the closure solves it to 1e-12 of the mechanism's size), with the
energy of the whole mechanism, which a passive mechanism conserves up to the integrator's tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ..jobs import CancelToken, Job, NEVER, Progress, run
from .closed import ClosedDynamics, ClosureError
from .simulate import PDControl, SimulationError, Torque, _torque_function

__all__ = ["ClosedTrajectory", "simulate_closed_job", "simulate_closed"]


@dataclass(frozen=True, eq=False)
class ClosedTrajectory:
    """Times (N,), actuated positions/velocities/torques (N, n_a), the tree's positions (N, n), the
    energies (N,) and the largest loop residual of each row (N,; m)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    q_tree: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    residual: np.ndarray
    evaluations: int = 0


class _Gravity:
    def __init__(self, cd: ClosedDynamics, guess: list):
        self.cd, self.guess = cd, guess

    def __call__(self, q):
        return self.cd.G(q, self.guess[0]).tolist()


def simulate_closed_job(cd: ClosedDynamics, q0, qd0, t_span: tuple[float, float], torque: Torque = None,
                        rtol: float = 1e-8, atol: float = 1e-10, t_eval=None,
                        token: CancelToken = NEVER) -> Job:
    """Yields progress; returns a :class:`ClosedTrajectory`. ClosureError where a loop cannot close."""
    n = cd.n
    guess = [cd.positions(np.asarray(q0, dtype=float))]
    if isinstance(torque, PDControl) and torque.gravity is None:
        torque = PDControl(list(torque.kp), list(torque.kd), list(torque.target), _Gravity(cd, guess))
    tau_of, _ = _torque_function(torque, n, cd)
    count = [0]
    t0, t1 = t_span

    def rhs(t, y):
        token.check()
        q, qd = y[:n], y[n:]
        guess[0] = cd.positions(q, guess[0])
        count[0] += 1
        qdd = cd.forward(q, qd, tau_of(t, q.tolist(), qd.tolist()), guess[0])
        return np.concatenate([qd, qdd])

    y0 = np.concatenate([np.asarray(q0, dtype=float), np.asarray(qd0, dtype=float)])
    yield Progress("simulate", 0.0)
    try:
        sol = solve_ivp(rhs, (t0, t1), y0, method="DOP853", rtol=rtol, atol=atol, t_eval=t_eval)
    except ClosureError:
        raise
    if not sol.success:
        raise SimulationError(f"the integrator stopped at t = {sol.t[-1]:.6g} s: {sol.message}")
    yield Progress("simulate", 1.0)
    rows = len(sol.t)
    Q, QD = sol.y[:n].T, sol.y[n:].T
    q_tree = np.empty((rows, cd.n_tree))
    kinetic, potential, residual = np.empty(rows), np.empty(rows), np.empty(rows)
    tau = np.empty((rows, n))
    g = cd.positions(Q[0])
    for r in range(rows):
        g = cd.positions(Q[r], g)
        q_tree[r] = g
        kinetic[r], potential[r] = cd.energy(Q[r], QD[r], g)
        residual[r] = cd.residual(g)
        tau[r] = tau_of(sol.t[r], Q[r].tolist(), QD[r].tolist())
    return ClosedTrajectory(sol.t, Q, QD, tau, q_tree, kinetic, potential, residual, count[0])


def simulate_closed(cd: ClosedDynamics, q0, qd0, t_span, **kwargs) -> ClosedTrajectory:
    return run(simulate_closed_job(cd, q0, qd0, t_span, **kwargs))
