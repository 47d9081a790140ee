"""Simulate's motions of a closed-chain project (issue 22), through the core's closed-chain integration
(:func:`designer.numeric.simulate.simulate_job`): the actuated joints are integrated, the passive
ones follow the loops, and the result carries the whole tree's pose per frame (what the 3D view plays back)
and the largest loop residual along the way.

Three motions, as for a serial arm: the mechanism let go at rest from the pose under gravity, a move to a
target of the actuated joints, and a CSV trajectory of the actuated joints (``t, q1, q2, q4, q6`` for the
palletizer) with the torques that drive it (inverse dynamics, :func:`closed_driven_job`). The move is
simulated (forward dynamics, not a given trajectory): the core's
PD with gravity compensation (:class:`~designer.numeric.simulate.PDControl`) tracks a quintic from the
slider pose to the target in the move's time, then holds the target. End stops ("stop") act on every joint of
the tree, the passive ones included (:func:`~designer.numeric.closed_drive.closed_end_stops_for`); their work
joins the energy check (E - E(0) = the work of the PD torques and of the stops).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..jobs import CancelToken, Job, Progress
from ..model import Manipulator
from ..numeric.end_stops import limit_passes
from ..numeric.motion import MotionResult, work_done

__all__ = ["ClosedMotionResult", "ClosedMove", "closed_job", "closed_driven_job", "closed_text", "given"]


@dataclass(frozen=True)
class ClosedMove:
    """A move of the actuated joints: ``target`` (rad or m), the quintic's ``duration`` and the ``hold`` after it
    (s), the gains (None: :func:`~designer.numeric.closed_drive.closed_gains` at the start)."""

    target: tuple[float, ...]
    duration: float
    hold: float
    kp: tuple[float, ...] | None = None
    kd: tuple[float, ...] | None = None


@dataclass(frozen=True)
class ClosedMotionResult(MotionResult):
    """A :class:`MotionResult` whose ``q`` is the tree's pose (every joint, the passive ones closed); ``tau`` (the
    PD's, or the end stops' on a fall) and ``qd`` are over the actuated joints, ``actuated`` (0-based tree indices)."""

    residual: float = 0.0          # the largest loop residual over the frames (m)
    actuated: tuple = ()
    gains: tuple = ()              # (kp, kd) of a move
    target: tuple = ()             # a move's target (actuated joints)
    cut_peaks: tuple = ()          # per loop (its name, the largest force its cut joint carried, N; at t, s)


def closed_job(model: Manipulator, q0_tree, duration: float, frames: int, token: CancelToken,
               limits: str = "warn", move: ClosedMove | None = None) -> Job[ClosedMotionResult]:
    """The mechanism from rest at the actuated values of ``q0_tree``: released (``move`` None) or moved."""
    from ..numeric.closed import closed_dynamics
    from ..numeric.closed_drive import closed_end_stops_for, closed_gains
    from ..numeric.simulate import PDControl, simulate_job
    cd = closed_dynamics(model)
    q0 = np.asarray(q0_tree, float)[cd.act]
    stops = closed_end_stops_for(cd, q0) if limits == "stop" else None
    control, span = None, duration
    gains: tuple = ()
    if move is not None:
        kp, kd = closed_gains(cd, q0)
        kp = kp if move.kp is None else np.asarray(move.kp, float)
        kd = kd if move.kd is None else np.asarray(move.kd, float)
        control = PDControl(kp.tolist(), kd.tolist(), list(move.target), q0.tolist(), move.duration)
        gains, span = (tuple(kp), tuple(kd)), move.duration + move.hold
    t = np.linspace(0.0, span, frames)
    traj = yield from simulate_job(cd, q0, np.zeros(cd.n), (0.0, span), torque=control, t_eval=t, token=token,
                                   end_stops=stops)
    yield Progress("energy", None, f"{len(traj.t)} states")
    assert traj.tau is not None and traj.kinetic is not None and traj.potential is not None   # a closed chain's run
    assert traj.residual is not None
    q_tree = np.asarray(traj.q_tree)
    kind = "passive fall (closed chain)" if move is None else "PD move (closed chain)"
    tau, work = None, None
    if move is not None:
        tau, work = traj.tau, work_done(traj.t, traj.tau, traj.qd)
    if stops is not None:
        kind += " with end stops"
        tau = traj.stop_tau if tau is None else tau
        work = traj.stop_work if work is None else work + traj.stop_work
    passes = () if limits == "ignore" else tuple(limit_passes(traj.t, q_tree, cd.tree.arm.limits))
    return ClosedMotionResult(np.asarray(traj.t), q_tree, traj.kinetic + traj.potential, qd=traj.qd, tau=tau,
                              work=work, kind=kind, limits=limits, passes=passes,
                              residual=float(np.max(traj.residual, initial=0.0)),
                              actuated=tuple(int(i) for i in cd.act), gains=gains,
                              target=() if move is None else tuple(move.target),
                              cut_peaks=_cut_peaks(cd, traj.t, traj.cut_force))


def _cut_peaks(cd, t, force) -> tuple:
    """(loop name, largest |f| its cut joint carried (N), when (s)) per loop of the mechanism."""
    if force is None or not len(t):
        return ()
    size = np.linalg.norm(np.asarray(force), axis=2)   # (rows, loops)
    return tuple((name, float(size[:, k].max()), float(t[int(np.argmax(size[:, k]))]))
                 for k, name in enumerate(cd.tree.loop_names))


def closed_driven_job(model: Manipulator, t, q, qd, qdd, token: CancelToken, limits: str = "warn",
                      chunk: int = 50) -> Job[ClosedMotionResult]:
    """The torques that drive the actuated joints along (t, q, qd, qdd) (the serial arm's driven_job for a closed
    chain: the loops closed row by row, tau_a = W^T tau_tree). The motion is given: end stops cannot change it,
    so ``limits`` "stop" lists the passes as "warn" does. A row where the loops cannot close is named."""
    from ..kinematics.closure import ClosureError
    from ..numeric.closed import closed_dynamics
    cd = closed_dynamics(model)
    t, q, qd, qdd = (np.asarray(a, float) for a in (t, q, qd, qdd))
    rows = len(t)
    q_tree, tau = np.empty((rows, cd.n_tree)), np.empty((rows, cd.n))
    energy, residual = np.empty(rows), np.empty(rows)
    force = np.empty((rows, len(cd.tree.loops), 3))
    follow = cd.following()
    for r in range(rows):
        if r % chunk == 0:
            token.check()
            yield Progress("torques", r / rows, f"{r} of {rows} states")
        try:
            q_tree[r] = follow.positions(q[r])
        except ClosureError as exc:
            raise ClosureError(f"trajectory row {r + 1} (t = {t[r]:.4g} s): {exc}") from None
        tau[r] = follow.tau(q[r], qd[r], qdd[r])
        force[r] = follow.cut_forces(q[r], qd[r], qdd[r]).force
        energy[r] = sum(follow.energy(q[r], qd[r]))
        residual[r] = follow.residual(q[r])
    passes = () if limits == "ignore" else tuple(limit_passes(t, q_tree, cd.tree.arm.limits))
    return ClosedMotionResult(t, q_tree, energy, qd=qd, qdd=qdd, tau=tau, work=work_done(t, tau, qd),
                              kind="trajectory CSV (closed chain)", limits=limits, passes=passes,
                              residual=float(np.max(residual, initial=0.0)), actuated=tuple(int(i) for i in cd.act),
                              cut_peaks=_cut_peaks(cd, t, force))


def given(result: MotionResult) -> bool:
    """A closed chain's motion that was given (a CSV trajectory), not simulated."""
    return isinstance(result, ClosedMotionResult) and result.kind.startswith("trajectory")


def closed_text(result: ClosedMotionResult, revolute: list[bool]) -> str:
    """The status line's words about a closed-chain result (the energy check, the torques, the residual)."""
    e = result.energy
    residual = f"largest loop residual {result.residual * 1000:.2g} mm"
    for name, peak, when in result.cut_peaks:   # what the bearings must take (issue 22)
        residual += f"; {name}: peak cut-joint force {peak:.3g} N (t = {when:.3g} s)"
    if result.work is None:   # a fall without stops: nothing does work
        drift = float(np.ptp(e) / max(np.abs(e).max(), 1e-12)) if len(e) else 0.0
        return (f"{result.kind}: {result.t[-1]:.3g} s, {len(result.t)} frames; energy drift {drift:.2e} of its size "
                f"(no friction, no torques: it should stay constant); {residual}")
    gap = float(np.abs(e - e[0] - result.work).max())
    what = "the PD torques'" if result.target else "the torques'" if given(result) else "the stops'"
    if result.target and result.kind.endswith("end stops"):
        what = "the PD torques' and the stops'"
    text = f"{result.kind}: {result.t[-1]:.3g} s, {len(result.t)} frames; "
    if result.target:
        units = [revolute[j] if j < len(revolute) else True for j in result.actuated]
        off = np.abs(result.q[-1, list(result.actuated)] - np.asarray(result.target))
        worst = int(np.argmax(off))
        miss = f"{np.degrees(off[worst]):.2g}°" if units[worst] else f"{off[worst] * 1e3:.2g} mm"
        text += f"at the end {miss} from the target (q{result.actuated[worst] + 1}); "
    assert result.tau is not None
    peaks = ", ".join(f"q{j + 1} {v:.3g}" for j, v in zip(result.actuated, np.abs(result.tau).max(axis=0)))
    text += (f"peak |τ| {peaks} (N·m or N). Energy change and {what} work differ by at most {gap:.2g} J; "
             f"{residual}.")
    return text
