"""Simulate's elastic-joint motions (issue 23): the core's elastic simulation
(:func:`designer.numeric.simulate.simulate_job`, Radau, docs/elastic.md) as a job for the
window's worker, with the rigid arm's run beside it, as ``simulate --elastic`` does on the command line.

Two motions: the arm let go at rest from the pose with its springs holding gravity (no motor torque),
and a quintic move to a target under the motor-side PD (:class:`~designer.numeric.simulate.PDControl`, on the motors).
The rigid reference is the same run with every stiffness made infinite (the motors' reflected inertia
then joins M). The result carries what the Simulate tab plots: the tool's deviation from the rigid arm
(mm), the springs' deflection theta/N - q per elastic joint, and the energy with rotors and springs
beside the work of the motor torques less what the gearbox damping took (so E - E(0) = work is the check,
and a passive undamped arm keeps its energy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..jobs import CancelToken, Job, Progress
from ..kinematics import NumericArm
from ..numeric.elastic import ElasticArm, ElasticDynamics, ElasticJoints
from ..numeric.engine import arm_dynamics
from ..numeric.simulate import PDControl, simulate_job, tool_deviation
from ..numeric.end_stops import limit_passes
from ..numeric.motion import MotionResult, work_done

__all__ = ["ElasticMotionResult", "elastic_job", "default_gains", "samples_for", "ELASTIC_REFUSALS"]

#: samples per simulated second: the plots show rings up to about 100 Hz (the tube arm's first mode is 50 Hz;
#: 500 samples a second give 10 per period), and the work's trapezoid sum follows them
RATE = 500
MOST_SAMPLES = 20001   # 40 s at the full rate; longer runs are sampled more sparsely
#: the progress bar's share of the elastic run; the rigid reference takes the rest. The rigid run is the slower
#: one (its rotors' reflected inertia joins M, so each step solves M over numpy instead of the generated qdd):
#: robots/tube_arm.json, default gains, a 0.6 s move by (60, -60, 90) deg and 0.6 s hold: 0.53 s elastic, 1.08 s rigid
ELASTIC_SHARE = 1 / 3

ELASTIC_REFUSALS = {
    "trajectory CSV": "Elastic joints: the window releases the arm or moves it to a target under the motor-side "
                      "PD; a CSV trajectory is for the rigid arm (untick 'elastic joints').",
    "stop": "Elastic joints: end stops are not part of the elastic model; choose another limits mode.",
}


@dataclass(frozen=True)
class ElasticMotionResult(MotionResult):
    """A :class:`MotionResult` of the elastic model: ``q`` the link side (what the 3D view plays back),
    ``tau`` the motor torques at the joint side (N tau_m), ``work`` that of the motor torques less the damping's
    dissipation, ``energy`` with rotors and springs."""

    theta: np.ndarray | None = None        # (N, m) motor angles, motor side (rad)
    deflection: np.ndarray | None = None   # (N, m) theta/N - q of the elastic joints (rad or m)
    deviation: np.ndarray | None = None    # (N,) tool distance from the rigid arm's (m)
    elastic: tuple = ()                    # the elastic joints' indices (0-based)
    steps: int = 0                         # Radau's accepted steps (the elastic run)
    gains: tuple = ()                      # (kp, kd) of a driven move, joint side


def samples_for(duration: float, frames: int) -> int:
    return int(min(MOST_SAMPLES, max(frames, math.ceil(duration * RATE) + 1)))


def default_gains(arm: NumericArm, joints: ElasticJoints, q0) -> tuple[np.ndarray, np.ndarray]:
    """Motor-side PD gains (joint side) a move can start from: Kp a tenth of the joint's stiffness (the
    position loop well below the spring; rigid joints the elastic ones' median), Kd damping the joint's own
    inertia plus its reflected rotor at 0.7 of critical, 2 * 0.7 * sqrt(Kp J)."""
    from ..numeric.engine import arm_dynamics
    k = joints.stiffness
    finite = k[np.isfinite(k)]
    kp = np.where(np.isfinite(k), 0.1 * k, 0.1 * float(np.median(finite)) if len(finite) else 1e3)
    inertia = np.diag(arm_dynamics(arm).M(np.asarray(q0, float))) + joints.gear ** 2 * joints.rotor
    kd = 2 * 0.7 * np.sqrt(kp * np.maximum(inertia, 1e-9))
    return kp, kd


def _part(job: Job, lo: float, hi: float, stage: str) -> Job:
    """``job`` run inside another, its progress mapped to lo..hi of the whole and named ``stage``."""
    while True:
        try:
            step = next(job)
        except StopIteration as stop:
            return stop.value
        yield Progress(stage, None if step.fraction is None else lo + (hi - lo) * step.fraction, step.detail)


def _work(model: ElasticArm, t, q, qd, thetad, tau_m) -> np.ndarray:
    """Cumulative work of the motor torques (at elastic joints on the rotor, at rigid ones N tau_m on the link)
    less the gearbox damping's dissipation, d (theta'/N - q')^2."""
    E, R = model.E, model.R
    power = np.zeros(len(t))
    if tau_m is not None:
        power += np.einsum("ij,ij->i", tau_m[:, E], thetad) + np.einsum("ij,ij->i", model.N[R] * tau_m[:, R], qd[:, R])
    slip = thetad / model.NE - qd[:, E]
    power -= np.sum(model.d * slip ** 2, axis=1)
    return work_done(t, power[:, None], np.ones((len(t), 1)))


def elastic_job(arm: NumericArm, joints: ElasticJoints, q0, duration: float, frames: int, token: CancelToken,
                control: PDControl | None = None, limits: str = "warn") -> Job[ElasticMotionResult]:
    """The elastic arm from rest at ``q0`` (springs holding gravity), passive or under ``control``, sampled
    at :func:`samples_for` times, and the rigid arm's same run for the tool's deviation."""
    link = arm_dynamics(arm)
    dyn = ElasticDynamics(link, joints)   # a missing rotor inertia fails here, before any work
    model = dyn.model
    t = np.linspace(0.0, duration, samples_for(duration, frames))
    traj = yield from _part(simulate_job(dyn, q0, None, (0.0, duration), control, t_eval=t, token=token),
                            0.0, ELASTIC_SHARE, "elastic joints")
    token.check()
    rigid = yield from _part(simulate_job(ElasticDynamics(link, joints.stiffened(math.inf)), q0, None, (0.0, duration),
                                          control, t_eval=traj.t, token=token), ELASTIC_SHARE, 1.0, "rigid arm")
    token.check()
    yield Progress("energy", None, f"{len(traj.t)} states")
    energy = np.atleast_1d(model.energy(traj.states()))
    work = _work(model, traj.t, traj.q, traj.qd, traj.thetad, traj.tau_m)
    deflection = traj.theta / model.NE - traj.q[:, model.E]
    tau = None if traj.tau_m is None else traj.tau_m * model.N
    passes = () if limits == "ignore" else tuple(limit_passes(traj.t, traj.q, arm.limits))
    kind = "elastic passive fall" if control is None else "elastic move (motor-side PD)"
    gains = () if control is None else (tuple(control.kp), tuple(control.kd))
    return ElasticMotionResult(traj.t, traj.q, energy, qd=traj.qd, tau=tau, work=work, kind=kind, limits=limits,
                               passes=passes, theta=traj.theta, deflection=deflection,
                               deviation=tool_deviation(arm, traj.q, rigid.q), elastic=tuple(int(i) for i in model.E),
                               steps=traj.steps, gains=gains)
