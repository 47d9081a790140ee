"""Driving a closed chain in a simulation: a PD on its actuated joints and end stops on every joint of its tree.

:class:`ClosedPD` is the core's joint-space PD with gravity compensation
(:class:`~designer.numeric.simulate.PDControl`, Takegaki & Arimoto 1981: positive gains bring the arm to rest
at the target from anywhere) in the actuated coordinates, with a moving reference:

    tau_a = Kp (q_d - q_a) + Kd (q_d' - qd_a) + G_a(q_a),

q_d moving from ``start`` to ``target`` along the rest-to-rest quintic in ``duration`` seconds, then held (the
elastic window's move, :func:`designer.numeric.elastic_simulate.quintic`). Without inertial feed-forward the
arm lags the reference by about M_a q_d'' / Kp while it moves and settles on the target once it is held.
:func:`closed_gains`: Kp = M_a,ii (2 pi f)^2 and Kd = 2 zeta sqrt(Kp M_a,ii) with f = 4 Hz and zeta = 0.7 on
the diagonal of M_a at the start: the quintic's peak acceleration 5.77 d / T^2 then lags by about
5.77 / (T^2 (2 pi 4)^2) of the travel d: 0.9 % for a 1 s move, 0.1 % for 3 s.

End stops (:func:`closed_end_stops_for`): a closed chain's limits are its tree joints', passive ones included
(the palletizer's forearm angle q3 = q4 - q2). Each is :mod:`designer.numeric.end_stops`' one-sided
spring-damper on that joint's coordinate; its torque acts on the actuated ones as W^T tau_stop (virtual work),
its power is tau_stop . qd_tree. The spring is tuned on the inertia the mechanism shows at that joint with the
actuated joints free, 1 / (w_i M_a^-1 w_i^T) with w_i the joint's row of W (an actuated joint's row is e_i:
1 / (M_a^-1)_ii), so that each stop rings at the serial stops' 30 Hz.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from .closed import ClosedDynamics
from .elastic_simulate import pd_lists, quintic
from .end_stops import EndStops, starts_inside, stops_on

__all__ = ["ClosedPD", "closed_gains", "closed_end_stops_for", "SERVO_HZ", "SERVO_ZETA"]

SERVO_HZ = 4.0      # the default gains' bandwidth on each actuated joint (module docstring: the lag it gives)
SERVO_ZETA = 0.7


@dataclass(frozen=True)
class ClosedPD:
    """The PD with gravity compensation toward a moving reference (module docstring), actuated coordinates."""

    kp: Sequence[float]
    kd: Sequence[float]
    target: Sequence[float]
    start: Sequence[float] | None = None
    duration: float = 0.0

    def law(self, cd: ClosedDynamics, gravity: bool = True):
        """tau_a(t, q_a, qd_a) on lists of floats; ``cd``: the simulation's following engine (its closure kept at
        the state by the right-hand side). ``gravity`` False: the PD part alone, for a right-hand side that
        leaves G_a out of both sides (it cancels: M_a qdd = PD - h_a)."""
        kp, kd, target, start = pd_lists(self, cd.n)
        duration = float(self.duration)

        def tau(t, q, qd):
            ref, rate = quintic(start, target, duration, t)
            g = cd.G(q) if gravity else [0.0] * len(kp)
            return [p * (r - x) + d * (v_r - v) + gi for p, d, r, x, v_r, v, gi in zip(kp, kd, ref, q, rate, qd, g)]
        return tau


def closed_gains(cd: ClosedDynamics, q0, hz: float = SERVO_HZ, zeta: float = SERVO_ZETA
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(Kp, Kd) per actuated joint from the diagonal of M_a at ``q0`` (module docstring)."""
    inertia = np.maximum(np.diag(cd.M(np.asarray(q0, float))), 1e-9)
    kp = inertia * (2 * np.pi * hz) ** 2
    return kp, 2 * zeta * np.sqrt(kp * inertia)


def closed_end_stops_for(cd: ClosedDynamics, q0) -> EndStops:
    """End stops at the tree joints' limits (module docstring); a ValueError names a joint (by its link number)
    that starts past its limit at the actuated values ``q0``."""
    q = cd.positions(np.asarray(q0, float))
    arm = cd.tree.arm
    starts_inside(q, arm.limits, arm.revolute)
    W = cd.closure.W(q)
    mobility = np.linalg.inv(cd.M(np.asarray(q0, float)))
    inertia = 1.0 / np.maximum(np.einsum("ij,jk,ik->i", W, mobility, W), 1e-300)
    return stops_on(arm.limits, inertia)


def stop_torques(stops: EndStops, q_tree, qd_tree) -> np.ndarray | None:
    """The stops' torques on the tree joints, None while no joint is past a limit (the common case: no W then)."""
    lo, hi = np.asarray(stops.limits).T
    if not (np.any(q_tree > hi) or np.any(q_tree < lo)):
        return None
    return np.asarray(stops(0.0, q_tree.tolist(), qd_tree.tolist()))
