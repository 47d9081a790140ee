"""Simulation of the elastic-joint model (:mod:`designer.numeric.elastic`) under a motor-side PD, as a job.

The integrator. Gearbox springs make the equations stiff: a PUMA 560 with k = 1e4 N m/rad at the
wrist has its hand's link-side mode at sqrt(k / Izz6) = sqrt(1e4 / 4e-5) = 1.6e4 rad/s, so an
explicit method (DOP853: stable to |h lambda| of about 4) needs steps below 0.25 ms: 40 000 steps,
half a million right-hand sides (~20 s in Python) for 10 s of motion. The default is scipy's Radau
(implicit, L-stable, order 5) with the analytic Jacobian of the stiff part
(:meth:`~designer.numeric.elastic.ElasticArm.spring_jacobian`: springs, damping, PD gains over M(q);
dM/dq, dh/dq and dG/dq left out, they are slow terms): its steps follow the motion, not the
springs, and a Jacobian costs one M(q) and a 6 x 6 inverse. Radau rather than BDF or LSODA, for
its accuracy per second: on the PUMA 560 benchmark's 10 s run (benchmarks/bench_elastic.py) at
rtol 1e-6, atol 1e-8, against a Radau run at 1e-8/1e-10, Radau took 0.43 s, 218 steps, largest link
angle error 4e-8 rad; BDF 0.45 s, 521 steps, 2.7e-7 rad; LSODA 0.20 s, 698 steps, 4.9e-7 rad (BDF's
orders above 2 are not A-stable, and the damped stiff modes make it cut its order). Any of scipy's
methods can be chosen (``method``); LSODA when speed matters more than the last digits.

The controller, :class:`MotorPD`: the motor-side PD with gravity compensation at the reference
(De Luca, Siciliano & Zollo 2005, "PD control with on-line gravity compensation for robots with
elastic joints"): in joint-side units u = N tau_m = Kp (theta_d - theta/N) + Kd (theta_d' - theta'/N)
+ G(q_d) with theta_d = q_d + K^-1 G(q_d), the motor angle that holds q_d against gravity; at a rigid
joint theta/N is q. The reference q_d moves from ``start`` to ``target`` along a quintic in
``duration`` seconds (or stands at ``target``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..jobs import CancelToken, Job, run
from ..kinematics import NumericArm
from .elastic import ElasticArm, ElasticJoints
from .engine import ArmDynamics
from .protocol import Dynamics
from .integrate import PROGRESS_SECONDS, IntegrationError, integrate_job
from .simulate import SimulationError, pose_text

__all__ = ["MotorPD", "ElasticTrajectory", "simulate_elastic_job", "simulate_elastic", "tool_deviation",
           "quintic", "pd_lists"]

IMPLICIT = ("Radau", "BDF", "LSODA")


def quintic(start, target, duration: float, t: float) -> tuple[list[float], list[float]]:
    """(q_d, q_d') of the rest-to-rest quintic from ``start`` to ``target`` at time t (held after)."""
    if duration <= 0 or t >= duration:
        return list(target), [0.0] * len(target)
    s = max(t, 0.0) / duration
    p = s ** 3 * (10 - 15 * s + 6 * s * s)
    v = 30 * s * s * (1 - s) ** 2 / duration
    return [a + (b - a) * p for a, b in zip(start, target)], [(b - a) * v for a, b in zip(start, target)]


def pd_lists(control, n: int) -> tuple[list[float], list[float], list[float], list[float]]:
    """(kp, kd, target, start) of a PD with a moving reference (:class:`MotorPD`, the closed chain's
    :class:`~designer.numeric.closed_drive.ClosedPD`) as lists of n floats; start the target when None. A
    ValueError names a list of the wrong length."""
    for name in ("kp", "kd", "target"):
        if len(getattr(control, name)) != n:
            raise ValueError(f"pd {name}: expected {n} values, got {len(getattr(control, name))}")
    kp, kd = [float(v) for v in control.kp], [float(v) for v in control.kd]
    target = [float(v) for v in control.target]
    return kp, kd, target, target if control.start is None else [float(v) for v in control.start]


@dataclass(frozen=True)
class MotorPD:
    """Motor-side PD with gravity compensation at the reference (module docstring); gains at the joint
    side (N m/rad, N m s/rad), like the stiffness."""

    kp: Sequence[float]
    kd: Sequence[float]
    target: Sequence[float]
    start: Sequence[float] | None = None
    duration: float = 0.0

    def law(self, model: ElasticArm) -> Callable[[float, list], list]:
        """tau_m(t, state as a list) for ``model``."""
        n, m, E = model.n, model.m, model.E.tolist()
        kp, kd, target, start = pd_lists(self, n)
        N = model.N.tolist()
        dyn = model.dyn
        if isinstance(dyn, ArmDynamics):
            G = dyn.scalar_function("G")
        else:   # its own closure history: the reference moves apart from the simulated state
            reference = dyn.following()
            G = lambda q: reference.G(np.asarray(q, dtype=float)).tolist()  # noqa: E731
        inv_k = [0.0] * n
        for j, i in enumerate(E):
            inv_k[i] = 1.0 / float(model.k[j])
        # each joint's position and speed as the controller sees them: the motor's (theta/N) or the link's
        where = list(range(n))
        for j, i in enumerate(E):
            where[i] = n + j
        duration = float(self.duration)

        def tau_m(t, s):
            qd_ref, vd_ref = quintic(start, target, duration, t)
            g = G(qd_ref)
            out = []
            for i in range(n):
                w = where[i]
                scale = N[i] if w >= n else 1.0
                pos, vel = s[w] / scale, s[w + n + m] / scale
                u = kp[i] * (qd_ref[i] + g[i] * inv_k[i] - pos) + kd[i] * (vd_ref[i] - vel) + g[i]
                out.append(u / N[i])
            return out
        return tau_m


@dataclass(frozen=True)
class ElasticTrajectory:
    """Times (T,), link angles q and speeds (T, n), motor angles theta and speeds (T, m, motor side),
    motor torques (T, n), the integrator's accepted steps and right-hand-side evaluations."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    theta: np.ndarray
    thetad: np.ndarray
    tau_m: np.ndarray | None
    steps: int
    evaluations: int

    def states(self) -> np.ndarray:
        """(T, 2n + 2m) the states in :class:`ElasticArm`'s layout."""
        return np.hstack([self.q, self.theta, self.qd, self.thetad])


def simulate_elastic_job(arm: NumericArm | None, joints: ElasticJoints, t_span: tuple[float, float],
                         control: MotorPD | None = None, y0=None, q0=None, method: str = "Radau",
                         rtol: float = 1e-6, atol: float = 1e-8, t_eval=None, max_step: float = math.inf,
                         interval: float = PROGRESS_SECONDS, token: CancelToken | None = None,
                         dynamics: Dynamics | None = None) -> Job[ElasticTrajectory]:
    """Simulate the elastic-joint arm as a job (progress as simulated time advances).

    ``dynamics``: the link side when not the serial ``arm``'s (a closed chain's
    :class:`~designer.numeric.closed.ClosedDynamics`, following the trajectory's branch).

    Start from ``y0`` (the full state), else at rest at ``q0`` with the springs holding gravity
    (:meth:`ElasticArm.equilibrium`), else at rest at the control's start or target. ``control``
    None: no motor torque (a passive arm). Raises :class:`SimulationError` when the integrator fails.
    """
    model = ElasticArm(arm, joints, dynamics)
    n = model.n
    if y0 is None:
        if q0 is None:
            if control is None:
                raise ValueError("give y0, q0 or a control to start from")
            q0 = control.start if control.start is not None else control.target
        y0 = model.equilibrium(np.asarray(q0, dtype=float))
    y0 = np.asarray(y0, dtype=float)
    if y0.shape != (model.size,) or not np.all(np.isfinite(y0)):
        raise ValueError(f"y0: expected {model.size} finite values (q, theta, qd, thetad), got shape {y0.shape}")
    zero = [0.0] * n
    tau_of = control.law(model) if control is not None else (lambda t, s: zero)
    rhs = model.scalar_rhs(tau_of)
    jac: Callable | None = None
    if method in IMPLICIT:
        kp = None if control is None else np.asarray(control.kp, dtype=float)
        kd = None if control is None else np.asarray(control.kd, dtype=float)
        def jac(t, y):
            return model.spring_jacobian(y[:n], kp, kd)
    try:
        out = yield from integrate_job(rhs, t_span, y0, method, rtol, atol, max_step, t_eval, interval, token,
                                       stage="simulate", jac=jac, describe=pose_text(n))
    except IntegrationError as exc:
        raise SimulationError(str(exc)) from None
    q, th, qd, thd = model.split(out.y)
    tau = (np.array([tau_of(ti, yi.tolist()) for ti, yi in zip(out.t, out.y)]).reshape(-1, n)
           if control is not None else None)
    return ElasticTrajectory(out.t, q, qd, th, thd, tau, out.steps, out.nfev)


def simulate_elastic(arm: NumericArm | None, joints: ElasticJoints, t_span: tuple[float, float],
                     control: MotorPD | None = None, **options) -> ElasticTrajectory:
    """:func:`simulate_elastic_job` run to its end."""
    options.setdefault("interval", math.inf)
    return run(simulate_elastic_job(arm, joints, t_span, control, **options))


def tool_deviation(arm: NumericArm, q, q_reference) -> np.ndarray:
    """(T,) distance in metres between the tool points at link angles q and q_reference (T, n)."""
    from ..kinematics.numeric import dh_frames
    a = dh_frames(arm, np.atleast_2d(q))[:, -1] @ arm.tool
    b = dh_frames(arm, np.atleast_2d(q_reference))[:, -1] @ arm.tool
    return np.linalg.norm(a[:, :3, 3] - b[:, :3, 3], axis=1)
