"""Driving a closed chain in a simulation: default PD gains on its actuated joints and end stops on every joint of
its tree.

The PD itself is the one law of every mechanism (:class:`~designer.numeric.simulate.PDControl`, in the actuated
coordinates: tau_a = Kp (q_d - q_a) + Kd (q_d' - qd_a) + G_a(q_a)). Without inertial feed-forward the arm lags
the reference by about M_a q_d'' / Kp while it moves and settles on the target once it is held.
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

import numpy as np

from .closed import ClosedDynamics
from .end_stops import EndStops, starts_inside, stops_on

__all__ = ["closed_gains", "closed_end_stops_for", "SERVO_HZ", "SERVO_ZETA"]

SERVO_HZ = 4.0      # the default gains' bandwidth on each actuated joint (module docstring: the lag it gives)
SERVO_ZETA = 0.7


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
