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


def work_done(t: np.ndarray, tau: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """Cumulative work of ``tau`` along ``qd`` (trapezoidal rule), 0 at ``t[0]``."""
    power = np.einsum("ij,ij->i", tau, qd)
    steps = 0.5 * (power[1:] + power[:-1]) * np.diff(t)
    return np.concatenate([[0.0], np.cumsum(steps)])


def passive_job(arm: NumericArm, q0, duration: float, frames: int, token: CancelToken) -> Job[MotionResult]:
    """The arm released at rest from ``q0`` under gravity alone, reported at ``frames`` times."""
    from .simulate import energy, simulate_job
    t = np.linspace(0.0, duration, frames)
    # progress as simulated time advances; the token is checked after every integrator step
    traj = yield from simulate_job(arm, q0, np.zeros(arm.n), (0.0, duration), t_eval=t, token=token)
    token.check()
    yield Progress("energy", None, f"{len(traj.t)} states")
    q, qd = np.asarray(traj.q), np.asarray(traj.qd)
    return MotionResult(np.asarray(traj.t), q, np.asarray(energy(arm, q, qd)), qd=qd)


def driven_job(arm: NumericArm, t, q, qd, qdd, kind: str, token: CancelToken,
               chunk: int = 200) -> Job[MotionResult]:
    """The torques that drive the arm along (t, q, qd, qdd), by recursive Newton-Euler in chunks."""
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
                        work=work_done(t, tau, qd), kind=kind)
