"""Joint limits in a simulation: where a motion passes them, and hard end stops that hold the arm there.

A simulation knows nothing of the joint limits unless told: by default it lets a joint run through them and
:func:`limit_passes` says which joint passed which limit, when, and by how much. With end stops
(:class:`EndStops`) each limit is a stiff, critically damped one-sided spring-damper:

    tau_i = -(k_i * depth_i + c_i * depth_rate_i),  only while the joint is past the limit and only pushing back

A spring, not an instantaneous inelastic impact event, because it needs no event detection, state reset or
change of the equations when a joint locks (a locked joint would make the arm a different mechanism), and the
explicit integrator steps through it: the stiffness is chosen so that the joint's own inertia on the stop rings
at :data:`STOP_HZ` (30 Hz: a contact lasts about 1/(2 * 30) s, some tens of integrator steps). Critical damping
(zeta = 1) takes most of the impact's energy, as a buffered hard stop does; the stop pushes only (the damper
never pulls the joint back into the stop as it leaves), so the joint may rebound a little: a rod falling 30
degrees onto its stop comes back 0.25 degree past the limit, then rests on the stop.
How deep a joint goes: a static load ``tau`` sinks it by ``tau / k``; an impact at speed ``v`` by about
``v / omega`` (omega = 2 pi 30 = 188 rad/s: 2.7 degrees at 9 rad/s).

The energy check stays meaningful: the stops' torques do work, integrated with the motion
(``Trajectory.stop_work``), and the arm's energy changes by exactly that work (a stop's spring gives back what it
took, its damper takes energy out): ``E(t) - E(0) = W_stops(t)`` to the integrator's tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["LIMIT_MODES", "STOP_HZ", "ZETA", "EndStops", "LimitPass", "end_stops_for", "limit_passes",
           "describe_passes", "starts_inside", "stops_on", "end_stops_of"]

LIMIT_MODES = ("warn", "stop", "ignore")   # say where limits are passed / model end stops / say nothing
STOP_HZ = 30.0     # the joint's inertia on its stop rings at this frequency (see the module's text)
ZETA = 1.0         # critical damping: no bounce


@dataclass(frozen=True)
class LimitPass:
    """Joint ``joint`` (1-based) went past its ``side`` limit first at ``t_first``, deepest ``depth`` past it
    (rad or m) at ``t_deepest``."""

    joint: int
    side: str            # "lower" or "upper"
    limit: float
    t_first: float
    depth: float
    t_deepest: float


def limit_passes(t, q, limits, tolerance: float = 1e-9) -> list[LimitPass]:
    """Every joint and side whose limit the sampled motion ``q`` (N, n) passes; nan limits are no limits."""
    t, q, limits = np.asarray(t, float), np.asarray(q, float), np.asarray(limits, float)
    out = []
    for i in range(q.shape[1]):
        for side, sign, limit in (("lower", -1.0, limits[i, 0]), ("upper", 1.0, limits[i, 1])):
            if not math.isfinite(limit):
                continue
            depth = sign * (q[:, i] - limit)
            past = np.flatnonzero(depth > tolerance)
            if past.size:
                k = int(np.argmax(depth))
                out.append(LimitPass(i + 1, side, float(limit), float(t[past[0]]), float(depth[k]), float(t[k])))
    return sorted(out, key=lambda p: p.t_first)


def describe_passes(passes: list[LimitPass], revolute: list[bool]) -> str:
    """One clause per pass, degrees for revolute joints: 'q2 passed its upper limit (225°) at t = 0.43 s,
    by up to 110° (at t = 1.1 s)'."""
    parts = []
    for p in passes:
        value = _value_text(revolute[p.joint - 1] if p.joint - 1 < len(revolute) else True)
        parts.append(f"q{p.joint} passed its {p.side} limit ({value(p.limit)}) at t = {p.t_first:.3g} s, "
                     f"by up to {value(p.depth)} (at t = {p.t_deepest:.3g} s)")
    return "; ".join(parts)


def _value_text(revolute: bool):
    return (lambda x: f"{math.degrees(x):.4g}°") if revolute else (lambda x: f"{x:.4g} m")


@dataclass(frozen=True)
class EndStops:
    """One-sided spring-dampers at the joint limits: ``limits`` (n, 2), nan for none; ``stiffness`` and
    ``damping`` (n,) per joint. Called as a torque law ``(t, q, qd) -> tau`` on lists of floats."""

    limits: tuple[tuple[float, float], ...]
    stiffness: tuple[float, ...]
    damping: tuple[float, ...]

    def __call__(self, t: float, q, qd) -> list[float]:
        out = []
        for (lo, hi), k, c, x, v in zip(self.limits, self.stiffness, self.damping, q, qd):
            tau = 0.0
            if x > hi:            # nan compares False: no limit, no stop
                tau = min(0.0, -k * (x - hi) - c * v)
            elif x < lo:
                tau = max(0.0, k * (lo - x) - c * v)
            out.append(tau)
        return out

    def torques(self, q, qd) -> np.ndarray:
        """The stops' torques along a sampled motion (N, n)."""
        return np.array([self(0.0, qi, qdi) for qi, qdi in zip(np.asarray(q, float).tolist(),
                                                                np.asarray(qd, float).tolist())]).reshape(np.shape(q))


def end_stops_for(arm, q0, hz: float = STOP_HZ, zeta: float = ZETA) -> EndStops:
    """End stops at ``arm.limits`` tuned to the arm: stiffness M_ii(q0) (2 pi hz)^2, damping 2 zeta sqrt(k M_ii),
    with M_ii the joint's inertia at the starting pose (never below 1e-6, so a massless joint still stops).

    A ValueError names the first joint of ``q0`` outside its limits: a stop would throw it back with the full
    stiffness of the spring (about 2e5 N m for the PUMA's shoulder 120 degrees in), nothing a user means."""
    from . import arm_dynamics
    q0 = np.asarray(q0, float)
    starts_inside(q0, arm.limits, arm.revolute)
    return stops_on(arm.limits, np.diag(np.asarray(arm_dynamics(arm).M(q0), float)), hz, zeta)


def end_stops_of(dyn, q0) -> EndStops:
    """End stops at the tree joints' limits of any mechanism's :class:`~designer.numeric.protocol.Dynamics`,
    ``q0`` its coordinates: a serial arm's as :func:`end_stops_for` tunes them, a closed chain's on every tree joint
    (:func:`~designer.numeric.closed_drive.closed_end_stops_for`), what :func:`~designer.numeric.simulate.simulate_job`
    takes for either; a ValueError names a joint that starts past its limit."""
    from .closed import ClosedDynamics
    if isinstance(dyn, ClosedDynamics):
        from .closed_drive import closed_end_stops_for
        return closed_end_stops_for(dyn, q0)
    return end_stops_for(dyn.arm, q0)


def starts_inside(q0, limits, revolute) -> None:
    """A ValueError naming the first joint of ``q0`` outside its ``limits`` (n, 2) (end_stops_for's reason)."""
    q0 = np.asarray(q0, float)
    for p in limit_passes([0.0], q0.reshape(1, -1), limits):
        value = _value_text(bool(revolute[p.joint - 1]))
        raise ValueError(f"end stops: q{p.joint} starts at {value(q0[p.joint - 1])}, past its {p.side} limit "
                         f"({value(p.limit)}); start inside the limits or choose no end stops")


def stops_on(limits, inertia, hz: float = STOP_HZ, zeta: float = ZETA) -> EndStops:
    """End stops at ``limits`` (n, 2) on joints of ``inertia`` (n,): k = I (2 pi hz)^2, c = 2 zeta sqrt(k I),
    the inertia never below 1e-6."""
    inertia = np.maximum(np.asarray(inertia, float), 1e-6)
    omega = 2.0 * math.pi * hz
    k = inertia * omega ** 2
    c = 2.0 * zeta * np.sqrt(k * inertia)
    limits = tuple((float(lo), float(hi)) for lo, hi in np.asarray(limits, float))
    return EndStops(limits, tuple(map(float, k)), tuple(map(float, c)))
