"""Simulation: integrate the forward dynamics under a torque law, as a job.

:func:`simulate_job` steps scipy's integrator by hand and yields
:class:`~designer.jobs.Progress` as simulated time advances, so that the window
and the command line can show progress and cancel, with the numbers of one
:func:`scipy.integrate.solve_ivp` call; :func:`simulate` runs it to its end.
Torques: none (a passive arm), a constant vector, a callable
``(t, q, qd) -> tau``, a :class:`TorqueTable` (samples over time, read
linearly) or a :class:`PDControl` (joint-space PD with gravity compensation).
With an arm of numbers the right-hand side calls the generated forward
dynamics on plain floats, without numpy; under PD control with gravity
compensation, constant torques or none, once the arm is hot, it is one call
of the machine code (:mod:`designer.numeric.native`) for [qd, qdd].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, run
from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from .end_stops import EndStops
from .engine import PIVOT_RATIO, ArmDynamics, arm_dynamics
from .forward import System, dynamics_of
from .integrate import PROGRESS_SECONDS, IntegrationError, integrate_job, vector_text

__all__ = ["Trajectory", "SimulationError", "TorqueTable", "PDControl", "simulate_job", "simulate", "energy",
           "pose_text"]


class SimulationError(DesignerError, RuntimeError):
    """The integrator failed (its message says why)."""


@dataclass(frozen=True)
class Trajectory:
    """A simulated motion: times (N,), positions and velocities (N, n), applied torques (N, n) or None;
    the integrator's accepted ``steps`` and its ``evaluations`` of the forward dynamics."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray | None = None
    steps: int = 0
    evaluations: int = 0
    stop_tau: np.ndarray | None = None    # (N, n) the end stops' torques, with end stops
    stop_work: np.ndarray | None = None   # (N,) their work since t0 (integrated with the motion)

    def __post_init__(self):
        for name in ("t", "q", "qd", "tau", "stop_tau", "stop_work"):
            value = getattr(self, name)
            if value is not None:
                value = np.array(value, dtype=float)
                value.setflags(write=False)  # frozen all the way down
                object.__setattr__(self, name, value)


@dataclass(frozen=True)
class TorqueTable:
    """Joint torques sampled at times ``t`` (K,), ``tau`` (K, n): linear in between, held outside."""

    t: np.ndarray
    tau: np.ndarray

    def __post_init__(self):
        t, tau = np.asarray(self.t, dtype=float), np.asarray(self.tau, dtype=float)
        if t.ndim != 1 or tau.ndim != 2 or tau.shape[0] != t.shape[0] or t.size == 0:
            raise ValueError(f"torque table: {t.shape} times against torques of shape {tau.shape}")
        if np.any(np.diff(t) <= 0):
            raise ValueError("torque table: times must increase")
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "tau", tau)

    def __call__(self, t: float, q=None, qd=None) -> list[float]:
        k = int(np.searchsorted(self.t, t, side="right"))
        if k == 0:
            return self.tau[0].tolist()
        if k == len(self.t):
            return self.tau[-1].tolist()
        s = (t - self.t[k - 1]) / (self.t[k] - self.t[k - 1])
        return ((1.0 - s) * self.tau[k - 1] + s * self.tau[k]).tolist()


@dataclass(frozen=True)
class PDControl:
    """tau = Kp (target - q) - Kd qd + G(q): joint-space PD with gravity compensation, which brings
    any arm to rest at the target from anywhere (Takegaki & Arimoto 1981) for positive gains."""

    kp: Sequence[float]
    kd: Sequence[float]
    target: Sequence[float]
    gravity: Callable[[list[float]], Sequence[float]] | None = None  # G(q) on lists of floats

    def __call__(self, t: float, q, qd) -> list[float]:
        g = self.gravity(list(q)) if self.gravity is not None else (0.0,) * len(self.kp)
        return [kp * (r - x) - kd * v + gi for kp, kd, r, x, v, gi in zip(self.kp, self.kd, self.target, q, qd, g)]


Torque = (None | Sequence[float] | np.ndarray | TorqueTable | PDControl
          | Callable[[float, np.ndarray, np.ndarray], Sequence[float]])


def _vector(v, n: int, name: str) -> np.ndarray:
    a = np.asarray(v, dtype=float)
    if a.shape != (n,):
        raise ValueError(f"{name}: expected {n} values, got shape {a.shape}")
    return a


@dataclass(frozen=True)
class _Constant:
    """Torques that do not change (none: zeros), as a torque law on lists of floats."""

    values: list[float]

    def __call__(self, t: float, q, qd) -> list[float]:
        return self.values


def _torque_function(torque: Torque, n: int, dyn) -> tuple[Callable[[float, list, list], list], bool]:
    """(tau(t, q, qd) on lists of floats, whether the torques are worth recording)."""
    if torque is None:
        return _Constant([0.0] * n), False
    if isinstance(torque, PDControl):
        for name in ("kp", "kd", "target"):
            _vector(getattr(torque, name), n, f"pd {name}")
        if torque.gravity is None:
            G = dyn.scalar_function("G") if isinstance(dyn, ArmDynamics) else (lambda q: dyn.G(np.array(q)).tolist())
            torque = PDControl(list(torque.kp), list(torque.kd), list(torque.target), G)
        return torque, True
    if isinstance(torque, TorqueTable):
        if torque.tau.shape[1] != n:
            raise ValueError(f"torque table: {torque.tau.shape[1]} torques per row, the arm has {n} joints")
        return torque, True
    if callable(torque):
        user = torque
        return (lambda t, q, qd: _vector(user(t, np.array(q), np.array(qd)), n, "torque(t, q, qd)").tolist()), True
    return _Constant(_vector(torque, n, "torque").tolist()), True


def _finite_state(t: float, y: np.ndarray) -> None:
    """The integrator tries states beyond the float range when the motion blows up (qd0 = 1e200):
    a SimulationError saying so, not LAPACK's failure on a NaN mass matrix."""
    if not np.all(np.isfinite(y)):
        when = f" at t = {t:.6g} s" if math.isfinite(t) else ""   # the first trial step may not be a time
        raise SimulationError(f"the state is no longer finite{when} (velocities or torques too large "
                              "for the integrator)")


def pose_text(n: int, names: Sequence[str] | None = None) -> Callable[[np.ndarray], str]:
    """What an integration's message says of a state (q, qd, ...): its pose q (the first n numbers),
    named (``names``, e.g. a closed chain's ``q2, q5``) or as a vector."""
    def describe(y) -> str:
        q = np.asarray(y, dtype=float)[:n]
        if names is None:
            return f"q = {vector_text(q)}"
        return ", ".join(f"{name} = {v:.6g}" for name, v in zip(names, q))
    return describe


def _right_hand_side(dyn, n: int, tau_of) -> Callable[[float, np.ndarray], np.ndarray]:
    quantity = "qdd"
    law = None    # [Kp, Kd, target, tau0] when the machine code's right-hand side can take the torque law
    if isinstance(tau_of, PDControl) and isinstance(dyn, ArmDynamics) and tau_of.gravity is dyn.scalar_function("G"):
        # gravity compensation cancels G in tau - h - G: integrate M^-1 (PD - h), skipping G twice
        quantity, tau_of = "qdd_free", PDControl(tau_of.kp, tau_of.kd, tau_of.target, None)
        law = [*tau_of.kp, *tau_of.kd, *tau_of.target, *[0.0] * n]
    elif isinstance(tau_of, _Constant):
        law = [0.0] * (3 * n) + list(tau_of.values)
    if not isinstance(dyn, ArmDynamics):
        def rhs(t, y):
            _finite_state(t, y)
            q, qd = y[:n], y[n:]
            return np.concatenate([qd, dyn.qdd(q, qd, np.asarray(tau_of(t, q.tolist(), qd.tolist())))])
        return rhs
    raw = dyn.scalar_function(quantity)
    full = tau_of if quantity == "qdd" else (lambda t, q, qd: [a + b for a, b in zip(tau_of(t, q, qd), dyn.G(q))])

    def fast(t, y):
        state = y.tolist()
        q, qd = state[:n], state[n:]
        try:
            out = raw(q, qd, tau_of(t, q, qd))
            d = out[n:]
            dmin = min(d)
            ok = dmin > 0 and max(d) <= PIVOT_RATIO * dmin
        except ZeroDivisionError:
            ok = False
        if not ok or not all(map(math.isfinite, out[:n])):
            _finite_state(t, y)
            # the checked path raises SingularConfigurationError where M is singular
            return np.concatenate([y[n:], dyn.qdd(y[:n], y[n:], np.asarray(full(t, q, qd)))])
        return np.array(qd + list(out[:n]))
    if law is None:
        return fast
    par = np.array(law, dtype=float)
    name = "rhs_free" if quantity == "qdd_free" else "rhs_qdd"
    entry = None

    def compiled(t, y):
        """[qd, qdd] in one call of the machine code (the same operations as ``fast``), once the arm is hot;
        a doubtful state (singular M, not finite) goes the checked way of ``fast``."""
        nonlocal entry
        if entry is None:
            native = dyn.native_if_hot()
            if native is None:
                return fast(t, y)
            entry = getattr(native, name)
        dy = np.empty(2 * n)
        try:
            if entry(y, par, dy):
                return dy
        except (TypeError, ValueError, BufferError):   # not a contiguous float64 state
            pass
        return fast(t, y)
    return compiled


def simulate_job(system: System, q0, qd0, t_span: tuple[float, float], torque: Torque = None,
                 rtol: float = 1e-8, atol: float = 1e-10, t_eval=None, method: str = "DOP853",
                 max_step: float = np.inf, interval: float = PROGRESS_SECONDS,
                 token: CancelToken | None = None, end_stops: EndStops | None = None) -> Job[Trajectory]:
    """Simulate as a job: yields progress (the fraction of the time span done) as the integrator steps.

    The integrator is stepped by hand (:func:`~designer.numeric.integrate.integrate_job`): the result is
    the one :func:`scipy.integrate.solve_ivp` gives with the same method and tolerances, whatever the
    progress reports.

    Parameters
    ----------
    system : NumericArm, Manipulator, compiled equations or a Dynamics
    q0, qd0 : array_like, shape (n,)
    t_span : (t0, t1)
    torque : None (passive), a constant array, a callable ``(t, q, qd) -> tau``,
        a :class:`TorqueTable` or a :class:`PDControl`
    rtol, atol, method, max_step : as for :func:`scipy.integrate.solve_ivp`
    t_eval : array_like, optional
        Times to report (increasing); by default the integrator's own steps.
    interval : float
        Seconds between progress reports (0: after every step).
    token : CancelToken, optional
        Checked after every step.
    end_stops : EndStops, optional
        Hard stops at the joint limits (:mod:`designer.numeric.end_stops`), added to ``torque``; their work is
        integrated with the motion (``Trajectory.stop_work``) for the energy check.

    Returns
    -------
    Trajectory

    Raises
    ------
    SingularConfigurationError
        When the motion reaches a state where M is singular.
    SimulationError
        When the integrator gives up.
    """
    dyn = dynamics_of(system)
    n = dyn.n
    y0 = np.concatenate([_vector(q0, n, "q0"), _vector(qd0, n, "qd0")])
    if not np.all(np.isfinite(y0)):
        raise ValueError("q0, qd0: must be finite numbers")
    tau_of, record_tau = _torque_function(torque, n, dyn)
    if end_stops is None:
        rhs = _right_hand_side(dyn, n, tau_of)
    else:
        rhs, y0 = _with_stops(dyn, n, tau_of, end_stops), np.append(y0, 0.0)
    try:
        out = yield from integrate_job(rhs, t_span, y0, method, rtol, atol, max_step, t_eval, interval, token,
                                       stage="simulate", describe=pose_text(n))
    except IntegrationError as exc:
        raise SimulationError(str(exc)) from None
    t, q, qd = out.t, out.y[:, :n], out.y[:, n:2 * n]
    tau = (np.array([tau_of(ti, qi.tolist(), qdi.tolist()) for ti, qi, qdi in zip(t, q, qd)]).reshape(-1, n)
           if record_tau else None)
    stops = {} if end_stops is None else {"stop_tau": end_stops.torques(q, qd), "stop_work": out.y[:, 2 * n]}
    return Trajectory(t=t, q=q, qd=qd, tau=tau, steps=out.steps, evaluations=out.nfev, **stops)


def _with_stops(dyn, n: int, tau_of, stops: EndStops) -> Callable[[float, np.ndarray], np.ndarray]:
    """The right-hand side with the end stops' torques added, and one more state: their work (d/dt = tau . qd)."""
    def total(t, q, qd):
        return [a + b for a, b in zip(tau_of(t, q, qd), stops(t, q, qd))]
    rhs = _right_hand_side(dyn, n, total)

    def augmented(t, y):
        state = y[:2 * n]
        q, qd = state[:n].tolist(), state[n:].tolist()
        power = sum(a * b for a, b in zip(stops(t, q, qd), qd))
        return np.append(rhs(t, state), power)
    return augmented


def simulate(system: System, q0, qd0, t_span: tuple[float, float], torque: Torque = None,
             rtol: float = 1e-8, atol: float = 1e-10, t_eval=None, method: str = "DOP853",
             max_step: float = np.inf, end_stops: EndStops | None = None) -> Trajectory:
    """Simulate the arm from (q0, qd0) over ``t_span`` under ``torque``; see :func:`simulate_job`."""
    return run(simulate_job(system, q0, qd0, t_span, torque=torque, rtol=rtol, atol=atol, t_eval=t_eval,
                            method=method, max_step=max_step, interval=math.inf, end_stops=end_stops))


def energy(arm: NumericArm | Manipulator, q, qd) -> np.ndarray | float:
    """Kinetic plus potential energy; q and qd of shape (n,) or (N, n) for a whole trajectory."""
    if isinstance(arm, Manipulator):
        arm = NumericArm.from_model(arm)
    kinetic, potential = arm_dynamics(arm).energy(q, qd)
    total = kinetic + potential
    return float(total) if np.ndim(total) == 0 else total
