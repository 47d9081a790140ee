"""Motions to watch: the arm let go under gravity (forward dynamics), or driven along a given
trajectory (a quintic between two poses, or one read from CSV) with the joint torques that move it
(inverse dynamics). Both are generator jobs with progress and cancel; the window plays them back.

The energy of a driven motion changes by the work of the joint torques,
``E(t) - E(0) = integral of tau . qd dt``, and :class:`MotionResult` carries both, so that a
plot of the two is its own check (they stay on top of each other when the torques are right).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..jobs import CancelToken, Job, Progress
from ..kinematics import NumericArm
from .end_stops import LIMIT_MODES, end_stops_for, limit_passes

__all__ = ["MotionResult", "passive_job", "driven_job", "work_done"]


@dataclass(frozen=True)
class MotionResult:
    """A motion sampled at times ``t``; ``tau`` and ``work`` are None for a passive fall."""

    t: np.ndarray                    # (N,) s
    q: np.ndarray                    # (N, n) rad or m
    energy: np.ndarray               # (N,) J, kinetic + potential
    qd: np.ndarray | None = None     # (N, n)
    qdd: np.ndarray | None = None    # (N, n)
    tau: np.ndarray | None = None    # (N, n) N m or N
    work: np.ndarray | None = None   # (N,) J, the torques' work since t[0]
    kind: str = "passive fall"
    limits: str = "warn"             # joint limits: "warn" (passes listed), "stop" (end stops), "ignore"
    passes: tuple = ()               # LimitPass per joint and side passed (none listed with "ignore")
    integrator: str = ""             # a simulated motion's integration method and why (Trajectory.integrator)


def work_done(t: np.ndarray, tau: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """Cumulative work of ``tau`` along ``qd`` (trapezoidal rule), 0 at ``t[0]``."""
    power = np.einsum("ij,ij->i", tau, qd)
    steps = 0.5 * (power[1:] + power[:-1]) * np.diff(t)
    return np.concatenate([[0.0], np.cumsum(steps)])


def _passes(arm: NumericArm, t, q, limits: str) -> tuple:
    if limits not in LIMIT_MODES:
        raise ValueError(f"joint limits: {limits!r} is not one of {', '.join(LIMIT_MODES)}")
    return () if limits == "ignore" else tuple(limit_passes(t, q, arm.limits))


def passive_job(arm: NumericArm, q0, duration: float, frames: int, token: CancelToken,
                limits: str = "warn") -> Job[MotionResult]:
    """The arm released at rest from ``q0`` under gravity alone, reported at ``frames`` times.

    ``limits``: "warn" lets the joints run through their limits and lists where they did; "stop" models end
    stops (:mod:`designer.numeric.end_stops`): their torques are the result's ``tau`` and their work its ``work``,
    so that the energy check reads E - E(0) = work as for a driven motion; "ignore" says nothing."""
    from .simulate import energy, simulate_job
    _passes(arm, [], np.zeros((0, arm.n)), limits)   # a bad mode fails before the work
    t = np.linspace(0.0, duration, frames)
    stops = end_stops_for(arm, q0) if limits == "stop" else None
    # progress as simulated time advances; the token is checked after every integrator step
    traj = yield from simulate_job(arm, q0, np.zeros(arm.n), (0.0, duration), t_eval=t, token=token,
                                   end_stops=stops)
    token.check()
    yield Progress("energy", None, f"{len(traj.t)} states")
    q, qd = np.asarray(traj.q), np.asarray(traj.qd)
    kind = "passive fall" if stops is None else "passive fall with end stops"
    return MotionResult(np.asarray(traj.t), q, np.asarray(energy(arm, q, qd)), qd=qd, tau=traj.stop_tau,
                        work=traj.stop_work, kind=kind, limits=limits, passes=_passes(arm, traj.t, q, limits),
                        integrator=traj.integrator)


def driven_job(arm: NumericArm, t, q, qd, qdd, kind: str, token: CancelToken,
               chunk: int = 200, limits: str = "warn") -> Job[MotionResult]:
    """The torques that drive the arm along (t, q, qd, qdd), by recursive Newton-Euler in chunks. The motion is
    given: end stops cannot change it, so ``limits`` "stop" only lists the passes, as "warn" does."""
    from . import arm_dynamics
    t, q, qd, qdd = (np.asarray(a, float) for a in (t, q, qd, qdd))
    if q.ndim != 2 or q.shape[1] != arm.n:
        raise ValueError(f"the trajectory has {q.shape[-1]} joint columns, the arm {arm.n} joints")
    dyn = arm_dynamics(arm)
    tau = np.empty_like(q)
    for start in range(0, len(t), chunk):
        token.check()
        stop = min(start + chunk, len(t))
        tau[start:stop] = dyn.tau(q[start:stop], qd[start:stop], qdd[start:stop])
        yield Progress("torques", stop / len(t), f"{stop} of {len(t)} states")
    kinetic, potential = dyn.energy(q, qd)
    return MotionResult(t, q, np.asarray(kinetic + potential), qd=qd, qdd=qdd, tau=tau,
                        work=work_done(t, tau, qd), kind=kind, limits=limits, passes=_passes(arm, t, q, limits))
