"""Motions to watch, of any mechanism: let go under gravity or moved to a target under a PD (forward dynamics,
through :mod:`designer.numeric.simulate`), or driven along a given trajectory (a quintic between two poses, or
one read from CSV) with the torques that move it (inverse dynamics). Both are generator jobs with progress and
cancel; the window plays them back.

Every mechanism the numeric :class:`~designer.numeric.protocol.Dynamics` describes goes the same way: the
coordinates are its actuated joints, the result's ``q`` its tree's pose (a closed chain's passive joints where the
loops put them), and what the mechanism adds (the largest loop residual, the peak force each cut joint carried)
is in the result when it has loops, with a line for each stretch of frames near a singular pose of a loop (its cut
forces there no real load, :mod:`designer.numeric.near_singular`). The energy of a driven motion changes by the work
of the torques, ``E(t) - E(0) = integral of tau . qd dt``, and :class:`MotionResult` carries both, so that a plot of
the two is its own check (they stay on top of each other when the torques are right).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..jobs import CancelToken, Job, Progress
from .end_stops import LIMIT_MODES, limit_passes
from .mechanism import mechanism_end_stops
from .near_singular import near_singular

__all__ = ["MotionResult", "Move", "passive_job", "driven_job", "loop_fields", "work_done"]


@dataclass(frozen=True)
class MotionResult:
    """A motion sampled at times ``t``; ``tau`` and ``work`` are None for a passive fall. ``q`` holds every tree
    joint, ``qd``, ``qdd`` and ``tau`` the ``actuated`` ones (every joint of a serial arm). What a run holds beside,
    when it has it: the loop residual and cut-joint peaks (a mechanism with loops), the gains and target of a PD
    move, an elastic model's motor angles, spring deflections and the tool's deviation from the rigid model."""

    t: np.ndarray                    # (N,) s
    q: np.ndarray                    # (N, n_tree) rad or m
    energy: np.ndarray               # (N,) J, kinetic + potential
    qd: np.ndarray | None = None     # (N, n)
    qdd: np.ndarray | None = None    # (N, n)
    tau: np.ndarray | None = None    # (N, n) N m or N
    work: np.ndarray | None = None   # (N,) J, the torques' work since t[0]
    kind: str = "passive fall"
    limits: str = "warn"             # joint limits: "warn" (passes listed), "stop" (end stops), "ignore"
    passes: tuple = ()               # LimitPass per joint and side passed (none listed with "ignore")
    integrator: str = ""             # a simulated motion's integration method and why (Trajectory.integrator)
    actuated: tuple = ()             # the tree joints (0-based) qd, qdd and tau are over
    given: bool = False              # the motion was given (inverse dynamics), not simulated
    residual: float | None = None    # the largest loop residual over the frames (None: no loops)
    cut_peaks: tuple = ()            # per loop (its name, the largest force its cut joint carried, N; at t, s)
    gains: tuple = ()                # (kp, kd) of a PD move
    target: tuple = ()               # a PD move's target (actuated joints)
    theta: np.ndarray | None = None        # (N, m) an elastic model's motor angles, motor side (rad)
    deflection: np.ndarray | None = None   # (N, m) theta/N - q of the elastic joints (rad or m)
    deviation: np.ndarray | None = None    # (N,) tool distance from the rigid model's (m)
    elastic: tuple = ()                    # the elastic joints (0-based tree indices)
    steps: int = 0                         # the integrator's accepted steps
    #: one line per loop and stretch of frames near a singular pose, where the cut forces are no real load
    #: (:mod:`designer.numeric.near_singular`)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Move:
    """A PD move of the actuated joints: ``target`` (rad or m), the quintic's ``duration`` and the ``hold`` after it
    (s), the gains (None: :func:`~designer.numeric.closed_drive.closed_gains` at the start)."""

    target: tuple[float, ...]
    duration: float
    hold: float
    kp: tuple[float, ...] | None = None
    kd: tuple[float, ...] | None = None


def work_done(t: np.ndarray, tau: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """Cumulative work of ``tau`` along ``qd`` (trapezoidal rule), 0 at ``t[0]``."""
    power = np.einsum("ij,ij->i", tau, qd)
    steps = 0.5 * (power[1:] + power[:-1]) * np.diff(t)
    return np.concatenate([[0.0], np.cumsum(steps)])


def _passes(limits_of, t, q, limits: str) -> tuple:
    if limits not in LIMIT_MODES:
        raise ValueError(f"joint limits: {limits!r} is not one of {', '.join(LIMIT_MODES)}")
    return () if limits == "ignore" else tuple(limit_passes(t, q, limits_of.limits))


def _near_singular(dyn, t, q_tree, force) -> tuple[str, ...]:
    """The lines of :func:`~designer.numeric.near_singular.near_singular` over the frames (none without loops)."""
    if force is None or not np.shape(force)[1]:
        return ()
    return tuple(w.text() for w in near_singular(dyn, q_tree, lambda r: f"t = {t[r]:.3g} s", force))


def loop_fields(dyn, t, q_tree, force, residual, names: Sequence[str] = ()) -> dict:
    """The fields of a :class:`MotionResult` that a mechanism's loops add to a run of any of its engines (rigid or
    elastic; none without loops): the largest loop residual, each cut joint's peak force (``names`` the loops'),
    a line for each stretch of frames near a singular pose of a loop."""
    loops, peaks = _loops(names, t, force)
    return dict(residual=float(np.max(residual, initial=0.0)) if loops else None, cut_peaks=peaks,
                warnings=_near_singular(dyn, t, q_tree, force))


def _loops(names: Sequence[str], t, force) -> tuple[bool, tuple]:
    """(whether there are loops, the peaks: (loop name, largest |f| its cut joint carried (N), when (s)) per loop)."""
    if force is None or not len(t) or not np.shape(force)[1]:
        return bool(len(names)), ()
    size = np.linalg.norm(np.asarray(force), axis=2)   # (rows, loops)
    names = list(names) or [f"loop {k + 1}" for k in range(size.shape[1])]
    return True, tuple((name, float(size[:, k].max()), float(t[int(np.argmax(size[:, k]))]))
                       for k, name in enumerate(names))


def passive_job(system, q0, duration: float, frames: int, token: CancelToken, limits: str = "warn",
                move: Move | None = None, limits_of=None, loop_names: Sequence[str] = ()) -> Job[MotionResult]:
    """Any mechanism (a NumericArm, or any :class:`~designer.numeric.protocol.Dynamics`, then ``limits_of`` the arm
    whose joint limits count: the tree's) from rest at the tree pose ``q0`` (its actuated values count): released
    under gravity alone (``move`` None) or moved under the PD with gravity compensation, reported at ``frames``
    times (a move: over its duration and hold).

    ``limits``: "warn" lets the joints run through their limits and lists where they did; "stop" models end
    stops (:mod:`designer.numeric.end_stops`, on every tree joint): their torques are the result's ``tau`` on a
    fall, and their work joins ``work``, so that the energy check reads E - E(0) = work as for a driven motion;
    "ignore" says nothing. ``loop_names`` name the cut joints' peaks."""
    from .closed_drive import closed_gains
    from .forward import dynamics_of
    from .simulate import PDControl, simulate_job
    limits_of = system if limits_of is None else limits_of
    _passes(limits_of, [], np.zeros((0, len(np.asarray(q0)))), limits)   # a bad mode fails before the work
    dyn = dynamics_of(system)
    act = list(dyn.actuated)
    qa = np.asarray(q0, float)[act]
    stops = mechanism_end_stops(dyn, qa) if limits == "stop" else None
    control, span = None, duration
    gains: tuple = ()
    if move is not None:
        kp, kd = closed_gains(dyn, qa)  # type: ignore[arg-type]  # it reads only M: any mechanism's
        kp = kp if move.kp is None else np.asarray(move.kp, float)
        kd = kd if move.kd is None else np.asarray(move.kd, float)
        control = PDControl(kp.tolist(), kd.tolist(), list(move.target), qa.tolist(), move.duration)
        gains, span = (tuple(kp), tuple(kd)), move.duration + move.hold
    t = np.linspace(0.0, span, frames)
    # progress as simulated time advances; the token is checked after every integrator step
    traj = yield from simulate_job(dyn, qa, np.zeros(dyn.n), (0.0, span), torque=control, t_eval=t, token=token,
                                   end_stops=stops)
    token.check()
    yield Progress("energy", None, f"{len(traj.t)} states")
    assert traj.kinetic is not None and traj.potential is not None and traj.residual is not None
    q_tree = np.asarray(traj.q_tree)
    kind = "passive fall" if move is None else "PD move"
    tau, work = None, None
    if move is not None:
        assert traj.tau is not None   # a PD's torques are recorded
        tau, work = traj.tau, work_done(traj.t, traj.tau, traj.qd)
    if stops is not None:
        kind += " with end stops"
        tau = traj.stop_tau if tau is None else tau
        work = traj.stop_work if work is None else work + traj.stop_work
    return MotionResult(np.asarray(traj.t), q_tree, np.asarray(traj.kinetic + traj.potential), qd=np.asarray(traj.qd),
                        tau=tau, work=work, kind=kind, limits=limits, passes=_passes(limits_of, traj.t, q_tree, limits),
                        actuated=tuple(act), gains=gains, target=() if move is None else tuple(move.target),
                        steps=traj.steps, integrator=traj.integrator,
                        **loop_fields(dyn, traj.t, q_tree, traj.cut_force, traj.residual, loop_names))


def driven_job(system, t, q, qd, qdd, kind: str, token: CancelToken, chunk: int = 200, limits: str = "warn",
               limits_of=None, loop_names: Sequence[str] = ()) -> Job[MotionResult]:
    """The torques that drive the actuated joints of any mechanism (as :func:`passive_job` takes it) along
    (t, q, qd, qdd), in chunks of rows through the one interface (a closed chain's loops closed row after row from
    the last, the branch continuous: tau_a = W^T tau_tree). The motion is given: end stops cannot change it, so
    ``limits`` "stop" only lists the passes, as "warn" does. A row where the loops cannot close is named."""
    from ..kinematics.closure import ClosureError
    from .forward import dynamics_of
    limits_of = system if limits_of is None else limits_of
    dyn = dynamics_of(system)
    t, q, qd, qdd = (np.asarray(a, float) for a in (t, q, qd, qdd))
    if q.ndim != 2 or q.shape[1] != dyn.n:
        raise ValueError(f"the trajectory has {q.shape[-1]} joint columns, the mechanism {dyn.n} actuated joints")
    rows = len(t)
    q_tree, tau = np.empty((rows, dyn.n_tree)), np.empty((rows, dyn.n))
    energy, residual, forces = np.empty(rows), np.empty(rows), []
    follow = dyn.following()
    for start in range(0, rows, chunk):
        token.check()
        stop = min(start + chunk, rows)
        for r in range(start, stop):   # the closure row after row: a row where it fails is named
            try:
                q_tree[r] = follow.positions(q[r])
            except ClosureError as exc:
                raise ClosureError(f"trajectory row {r + 1} (t = {t[r]:.4g} s): {exc}") from None
        part = slice(start, stop)   # the chunk's rows closed again from the same pose, in one batch each
        tau[part] = dyn.following(q_tree[start]).tau(q[part], qd[part], qdd[part])
        kinetic, potential = dyn.following(q_tree[start]).energy(q[part], qd[part])
        energy[part] = kinetic + potential
        residual[part] = dyn.following(q_tree[start]).residual(q[part])
        forces.append(dyn.following(q_tree[start]).cut_forces(q[part], qd[part], qdd[part]).force)
        yield Progress("torques", stop / rows, f"{stop} of {rows} states")
    force = np.concatenate(forces) if forces else None
    return MotionResult(t, q_tree, energy, qd=qd, qdd=qdd, tau=tau, work=work_done(t, tau, qd), kind=kind,
                        limits=limits, passes=_passes(limits_of, t, q_tree, limits), actuated=tuple(dyn.actuated),
                        given=True, **loop_fields(dyn, t, q_tree, force, residual, loop_names))
