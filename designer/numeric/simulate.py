"""Simulation of any mechanism: integrate its forward dynamics under a torque law, as a job.

One module for every mechanism the numeric layer's :class:`~designer.numeric.protocol.Dynamics` describes
(:func:`designer.numeric.mechanism.load_dynamics` gives it): a serial arm, a closed chain in its actuated
coordinates (through ``following()``: each state closes from the last, the branch stays continuous) and an
elastic-joint arm (:class:`~designer.numeric.elastic.ElasticDynamics`, the link side either of those). One
result, :class:`Trajectory` (what a closed chain or an elastic arm adds among its optional fields: the tree's
positions, loop residuals, cut forces, energies; motor angles), one control law family, :class:`PDControl`,
and one integration loop (:func:`~designer.numeric.integrate.integrate_job`, with its stall detector).

:func:`simulate_job` steps scipy's integrator by hand and yields :class:`~designer.jobs.Progress` as simulated
time advances, so that the window and the command line can show progress and cancel, with the numbers of one
:func:`scipy.integrate.solve_ivp` call; :func:`simulate` runs it to its end. Torques: none (passive), a constant
vector, a callable ``(t, q, qd) -> tau``, a :class:`TorqueTable` (samples over time, read linearly) or a
:class:`PDControl`, always on the actuated coordinates (an elastic arm's: its motors).

**Serial arms.** With an arm of numbers the right-hand side calls the generated forward dynamics on plain
floats, without numpy; under a standing PD with gravity compensation, constant torques or none, once the arm is
hot, it is one call of the machine code (:mod:`designer.numeric.native`) for [qd, qdd].

**Closed chains.** The state is (q_a, qd_a); the integrator never sees the passive joints. The loop residual of
every reported row is recorded (the closure solves it to 1e-12 of the mechanism's size), with the energy of the
whole mechanism and the cut joints' forces at the row's own accelerations. A linear closure's (a parallelogram's)
right-hand side under constant torques or a standing PD is one call of its flat machine code
(:mod:`designer.numeric.closed_flat`), and its rows' extras are computed from that code when first read, as a
serial run's. A nonlinear closure's (a four-bar's) is one call too: Newton's iterations in C from the last closed
pose, then the projected forward dynamics (:mod:`designer.numeric.closed_newton`); its rows' extras, computed when
first read, close the rows again one after the other from the start's branch. With ``drives`` the project's drive
data of every tree joint acts, as ``eval --drives`` adds it: a rotor's reflected inertia R_i = N_i^2 Jm_i is
inertia on its joint's coordinate (the tree's M + R, projected: M_a = W^T (M + R) W, and R W' qd_a among the
velocity terms), a joint's friction b qd_i + fc sign(qd_i) is a torque on that joint, W^T of it on the actuated
ones; the energy then counts the rotors' kinetic energy 1/2 R_i qd_i^2, and falls by the friction's work.

**The integrator** is chosen by the problem unless ``method`` names one (:func:`~designer.numeric.integrate.
choose_method`, the same rule for every mechanism): the eigenvalues of the right-hand side's Jacobian at the start
give a stiffness ratio, the fastest mode's rate over the fastest among those that last through the run; above 100
Radau (implicit, L-stable, order 5) steps over the modes that die out, below it DOP853 (explicit, order 8) follows
them; every 100 steps the run looks again and may switch (to Radau where DOP853's steps sit at its stability
bound). ``Trajectory.method`` and ``method_reason`` say which and why ("DOP853: not stiff (stiffness ratio 3.1;
...)").

**Elastic joints.** Gearbox springs bring fast modes: a PUMA 560 with k = 1e4 N m/rad at the wrist has its hand's
link-side mode at sqrt(k / Izz6) = 1.6e4 rad/s, so an explicit method (DOP853: stable to |h lambda| of about 4)
needs steps below 0.25 ms. Whether that is stiff depends on the damping. Under a PD on the motors (and with damped
springs) those modes die out within milliseconds, the ratio is in the thousands, and Radau with the analytic
Jacobian of the stiff part (:meth:`~designer.numeric.elastic.ElasticArm.spring_jacobian`: springs, damping, PD gains
over M(q); dM/dq, dh/dq and dG/dq left out, they are slow terms; it also gives the choice its eigenvalues) takes
steps that follow the motion, not the springs: on the PUMA 560 benchmark's 10 s run (benchmarks/bench_elastic.py)
at rtol 1e-6, atol 1e-8, against a Radau run at 1e-8/1e-10, Radau took 0.43 s, 218 steps, largest link angle error
4e-8 rad; BDF 0.45 s, 521 steps, 2.7e-7 rad; LSODA 0.20 s, 698 steps, 4.9e-7 rad. Undamped springs in free
vibration keep ringing to the end: every method must follow them, the ratio is about 1, and DOP853 does it in a
fraction of Radau's time (issue 31's four-joint arm, 1 s at rtol 1e-10: benchmarks/bench_simulate.py).

**The control law**, :class:`PDControl`: a PD with gravity compensation toward a reference q_d that moves from
``start`` to ``target`` along the rest-to-rest quintic in ``duration`` seconds (or stands at ``target``):

    tau = Kp (q_d - q) + Kd (q_d' - qd) + G(q)

on the actuated coordinates (Takegaki & Arimoto 1981: positive gains bring the arm to rest at a standing target
from anywhere); without inertial feed-forward the arm lags a moving reference by about M q_d'' / Kp. On an
elastic arm it acts on the motor side with gravity compensated at the reference (De Luca, Siciliano & Zollo
2005): in joint-side units u = N tau_m = Kp (theta_d - theta/N) + Kd (q_d' - theta'/N) + G(q_d) with
theta_d = q_d + K^-1 G(q_d), the motor angle that holds q_d against gravity; at a rigid joint theta/N is q.
Gains are joint-side (N m/rad, N m s/rad), like the stiffness.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, run
from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from .end_stops import EndStops
from .engine import ArmDynamics, arm_dynamics, trusted
from .closed import ClosedDynamics, ClosureError
from .elastic import ElasticArm, ElasticDynamics
from .forward import System, dynamics_of
from .integrate import IMPLICIT, PROGRESS_SECONDS, Integration, IntegrationError, integrate_job, vector_text

__all__ = ["Trajectory", "SimulationError", "TorqueTable", "PDControl", "simulate_job", "simulate", "energy",
           "pose_text", "quintic", "tool_deviation", "IMPLICIT"]



class SimulationError(DesignerError, RuntimeError):
    """The integrator failed (its message says why)."""


@dataclass(frozen=True, eq=False)
class Trajectory:
    """A simulated motion of any mechanism: times (N,), the actuated coordinates' positions and velocities (N, n)
    (an elastic arm's: its links'), the applied law's torques (N, n) or None (an elastic arm's: the motor torques;
    without the end stops'); the integrator's accepted ``steps`` and its ``evaluations`` of the right-hand side.

    What some mechanisms add (None otherwise): the end stops' torques and work; a closed chain's tree positions
    ``q_tree`` (N, n_tree), its largest loop residual per row ``residual`` (N,), the cut joints' ``cut_force`` and
    ``cut_moment`` (N, loops, 3) and the energies (N,); an elastic arm's motor angles ``theta`` and speeds
    ``thetad`` (N, m, motor side)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray | None = None
    steps: int = 0
    evaluations: int = 0
    stop_tau: np.ndarray | None = None    # (N, n) the end stops' torques (a closed chain's: W^T tau_stop)
    stop_work: np.ndarray | None = None   # (N,) their work since t0 (integrated with the motion)
    theta: np.ndarray | None = None
    thetad: np.ndarray | None = None
    #: the protocol's extras and the energies of the rows (:func:`_extras`), or what computes them when first
    #: asked (a serial arm's run: its integration is not slowed by what no one reads)
    extras: dict | Callable[[], dict] | None = field(default=None, repr=False)
    #: the integration method (scipy's name) and why it was used (:func:`~designer.numeric.integrate.choose_method`:
    #: "not stiff (stiffness ratio 3.1; ...)", or "as asked (--method)")
    method: str = ""
    method_reason: str = ""

    def _extra(self, name: str) -> np.ndarray | None:
        extras = self.extras
        if callable(extras):
            extras = {k: _frozen(v) for k, v in extras().items()}
            object.__setattr__(self, "extras", extras)
        return None if extras is None else extras.get(name)

    @property
    def q_tree(self) -> np.ndarray | None:
        """(N, n_tree) every tree joint's value (the passive ones closing the loops)."""
        return self._extra("q_tree")

    @property
    def residual(self) -> np.ndarray | None:
        """(N,) the largest loop residual of each row (zeros without loops)."""
        return self._extra("residual")

    @property
    def kinetic(self) -> np.ndarray | None:
        """(N,) the kinetic energy (an elastic arm's rotors in; a closed chain's with drives: theirs)."""
        return self._extra("kinetic")

    @property
    def potential(self) -> np.ndarray | None:
        """(N,) the potential energy (an elastic arm's springs in)."""
        return self._extra("potential")

    @property
    def cut_force(self) -> np.ndarray | None:
        """(N, loops, 3) what each cut joint carries (N, frame 0; no loops: (N, 0, 3))."""
        return self._extra("cut_force")

    @property
    def cut_moment(self) -> np.ndarray | None:
        """(N, loops, 3) the cut joints' moments (N m)."""
        return self._extra("cut_moment")

    @property
    def tau_m(self) -> np.ndarray | None:
        """The motor torques of an elastic arm's run (its ``tau``)."""
        return self.tau

    @property
    def motors(self) -> bool:
        """Whether the run has motor states (an elastic arm's)."""
        return self.theta is not None

    @property
    def integrator(self) -> str:
        """"DOP853: not stiff (stiffness ratio 1; ...)": the method and why, for a summary."""
        return f"{self.method}: {self.method_reason}" if self.method else ""

    def states(self) -> np.ndarray:
        """(N, ...) the rows as (q, theta, qd, thetad) (:class:`~designer.numeric.elastic.ElasticArm`'s layout;
        (q, qd) without motors)."""
        if self.theta is None:
            return np.hstack([self.q, self.qd])
        assert self.thetad is not None
        return np.hstack([self.q, self.theta, self.qd, self.thetad])

    def __post_init__(self):
        for name in ("t", "q", "qd", "tau", "stop_tau", "stop_work", "theta", "thetad"):
            value = getattr(self, name)
            if value is not None:
                value = np.array(value, dtype=float)
                value.setflags(write=False)  # frozen all the way down
                object.__setattr__(self, name, value)


def _frozen(value):
    value = np.array(value, dtype=float)
    value.setflags(write=False)
    return value


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


def quintic(start, target, duration: float, t: float) -> tuple[list[float], list[float]]:
    """(q_d, q_d') of the rest-to-rest quintic from ``start`` to ``target`` at time t (held after)."""
    if duration <= 0 or t >= duration:
        return list(target), [0.0] * len(target)
    s = max(t, 0.0) / duration
    p = s ** 3 * (10 - 15 * s + 6 * s * s)
    v = 30 * s * s * (1 - s) ** 2 / duration
    return [a + (b - a) * p for a, b in zip(start, target)], [(b - a) * v for a, b in zip(start, target)]


@dataclass(frozen=True)
class PDControl:
    """The PD with gravity compensation toward a reference moving from ``start`` to ``target`` along the quintic
    in ``duration`` seconds, then held (standing at ``target`` without them): the module docstring's one law, on
    the actuated coordinates, the motor side of an elastic arm. ``gravity``: G(q) on lists of floats (default the
    simulated mechanism's)."""

    kp: Sequence[float]
    kd: Sequence[float]
    target: Sequence[float]
    start: Sequence[float] | None = None
    duration: float = 0.0
    gravity: Callable[[list[float]], Sequence[float]] | None = None  # G(q) on lists of floats

    @property
    def standing(self) -> bool:
        """Whether the reference stands at the target the whole run."""
        return self.start is None or self.duration <= 0

    def lists(self, n: int) -> tuple[list[float], list[float], list[float], list[float]]:
        """(kp, kd, target, start) as lists of n floats (start the target when None); a ValueError names a list
        of the wrong length."""
        for name in ("kp", "kd", "target"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"pd {name}: expected {n} values, got {len(getattr(self, name))}")
        if self.start is not None and len(self.start) != n:
            raise ValueError(f"pd start: expected {n} values, got {len(self.start)}")
        kp, kd = [float(v) for v in self.kp], [float(v) for v in self.kd]
        target = [float(v) for v in self.target]
        return kp, kd, target, target if self.start is None else [float(v) for v in self.start]

    def __call__(self, t: float, q, qd) -> list[float]:
        g = self.gravity(list(q)) if self.gravity is not None else (0.0,) * len(self.kp)
        if self.standing:
            return [kp * (r - x) - kd * v + gi for kp, kd, r, x, v, gi in zip(self.kp, self.kd, self.target, q, qd, g)]
        ref, rate = quintic(self.start, self.target, float(self.duration), t)
        return [p * (r - x) + d * (v_r - v) + gi
                for p, d, r, x, v_r, v, gi in zip(self.kp, self.kd, ref, q, rate, qd, g)]

    def with_gravity(self, gravity) -> PDControl:
        """The same law with ``gravity`` (None: the PD part alone)."""
        return PDControl(self.kp, self.kd, self.target, self.start, self.duration, gravity)

    def motor_law(self, model: ElasticArm) -> Callable[[float, list], list]:
        """tau_m(t, state as a list) of an elastic arm's motor-side law (module docstring)."""
        n, m, E = model.n, model.m, model.E.tolist()
        kp, kd, target, start = self.lists(n)
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
        if torque.start is not None:
            _vector(torque.start, n, "pd start")
        if torque.gravity is None:
            G = dyn.scalar_function("G") if isinstance(dyn, ArmDynamics) else (lambda q: dyn.G(np.array(q)).tolist())
            torque = torque.with_gravity(G)
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


def _native_law(tau_of, n: int) -> list[float] | None:
    """[Kp, Kd, target, tau0] of the machine code's right-hand side (:func:`.native.rhs_function`) when it can
    take the torque law: constant torques (none: zeros) or a standing PD (its gravity compensated apart)."""
    if isinstance(tau_of, PDControl) and tau_of.gravity is None and tau_of.standing:
        return [*tau_of.kp, *tau_of.kd, *tau_of.target, *[0.0] * n]
    if isinstance(tau_of, _Constant):
        return [0.0] * (3 * n) + list(tau_of.values)
    return None


def _right_hand_side(dyn, n: int, tau_of) -> Callable[[float, np.ndarray], np.ndarray]:
    quantity = "qdd"
    if isinstance(tau_of, PDControl) and isinstance(dyn, ArmDynamics) and tau_of.gravity is dyn.scalar_function("G"):
        # gravity compensation cancels G in tau - h - G: integrate M^-1 (PD - h), skipping G twice
        quantity, tau_of = "qdd_free", tau_of.with_gravity(None)
    law = _native_law(tau_of, n)
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
            ok = trusted(out[:n], out[n:])
        except ZeroDivisionError:
            ok = False
        if not ok:
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
        return _native_call(entry, y, par, 2 * n, fast, t)
    return compiled


def _native_call(entry, y, par, size: int, checked, t):
    """[qd, qdd] from one call of a machine-code right-hand side ``entry``; a doubtful state (singular M, not finite:
    the call says False) or one it cannot take (not a contiguous float64 array) goes the ``checked`` way."""
    dy = np.empty(size)
    try:
        if entry(y, par, dy):
            return dy
    except (TypeError, ValueError, BufferError):
        pass
    return checked(t, y)


def simulate_job(system: System, q0, qd0, t_span: tuple[float, float], torque: Torque = None,
                 rtol: float | None = None, atol: float | None = None, t_eval=None, method: str | None = None,
                 max_step: float = np.inf, interval: float = PROGRESS_SECONDS,
                 token: CancelToken | None = None, end_stops: EndStops | None = None,
                 drives: bool = False) -> Job[Trajectory]:
    """Simulate any mechanism as a job: yields progress (the fraction of the time span done) as the integrator
    steps; returns a :class:`Trajectory`.

    The integrator is stepped by hand (:func:`~designer.numeric.integrate.integrate_job`): the result is
    the one :func:`scipy.integrate.solve_ivp` gives with the same method and tolerances, whatever the
    progress reports.

    Parameters
    ----------
    system : NumericArm, Manipulator, compiled equations or a Dynamics (any mechanism's:
        :func:`~designer.numeric.mechanism.load_dynamics`)
    q0, qd0 : array_like
        The start: (n,) each. An elastic arm's: its n + m coordinates (links, then motors) and their rates, or the
        link angles alone (qd0 None or zeros) to start at rest with the springs holding gravity.
    t_span : (t0, t1)
    torque : None (passive), a constant array, a callable ``(t, q, qd) -> tau``,
        a :class:`TorqueTable` or a :class:`PDControl`; an elastic arm takes a :class:`PDControl` or none
    rtol, atol, method, max_step : as for :func:`scipy.integrate.solve_ivp`; by default 1e-8 / 1e-10, an elastic
        arm's 1e-6 / 1e-8; ``method`` None (the default): chosen by the problem's stiffness, DOP853 or Radau
        (:func:`~designer.numeric.integrate.choose_method`; ``Trajectory.method`` and ``method_reason`` say which
        and why), a name forces it
    t_eval : array_like, optional
        Times to report (increasing); by default the integrator's own steps.
    interval : float
        Seconds between progress reports (0: after every step).
    token : CancelToken, optional
        Checked after every step.
    end_stops : EndStops, optional
        Hard stops at the joint limits (:mod:`designer.numeric.end_stops`; a closed chain's on its tree joints,
        :func:`~designer.numeric.closed_drive.closed_end_stops_for`), added to ``torque``; their work is
        integrated with the motion (``Trajectory.stop_work``) for the energy check.
    drives : bool
        A closed chain with every tree joint's drive data (rotors' reflected inertia, friction; module docstring).

    Raises
    ------
    SingularConfigurationError
        When the motion reaches a state where M is singular.
    SimulationError
        When the integrator gives up.
    """
    dyn = dynamics_of(system)
    if isinstance(dyn, ElasticDynamics):
        if end_stops is not None or drives:
            raise ValueError("an elastic-joint arm is simulated without end stops and without --drives")
        if torque is not None and not isinstance(torque, PDControl):
            raise ValueError("an elastic-joint arm takes a PD on its motors or no torque")
        return (yield from _elastic_job(dyn, q0, qd0, t_span, torque, method,
                                        1e-6 if rtol is None else rtol, 1e-8 if atol is None else atol, t_eval,
                                        max_step, interval, token))
    rtol = 1e-8 if rtol is None else rtol
    atol = 1e-10 if atol is None else atol
    if isinstance(dyn, ClosedDynamics):
        return (yield from _closed_job(dyn, q0, qd0, t_span, torque, rtol, atol, t_eval, method,
                                       interval, token, drives, end_stops))
    if drives:
        raise ValueError("drives: the drive terms of a simulation are for closed chains only; a serial arm's "
                         "drive data act through its model (eval --drives)")
    return (yield from _serial_job(dyn, q0, qd0, t_span, torque, rtol, atol, t_eval, method, max_step,
                                   interval, token, end_stops))


def _serial_job(dyn, q0, qd0, t_span, torque, rtol, atol, t_eval, method, max_step, interval, token, end_stops):
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
                                       stage="simulate", describe=pose_text(n), recheck=end_stops is None)
    except IntegrationError as exc:
        raise SimulationError(str(exc)) from None
    t, q, qd = out.t, out.y[:, :n], out.y[:, n:2 * n]
    tau = (np.array([tau_of(ti, qi.tolist(), qdi.tolist()) for ti, qi, qdi in zip(t, q, qd)]).reshape(-1, n)
           if record_tau else None)
    stops = {} if end_stops is None else {"stop_tau": end_stops.torques(q, qd), "stop_work": out.y[:, 2 * n]}
    return Trajectory(t=t, q=q, qd=qd, tau=tau, steps=out.steps, evaluations=out.nfev, **stops,
                      extras=lambda: _extras(dyn, q, qd, None), **_chosen(out))


def _chosen(out: Integration) -> dict:
    """The Trajectory's fields of the integration's method and its reason."""
    return {"method": out.choice.method, "method_reason": out.choice.reason}


def _extras(dyn, x, xd, xdd) -> dict:
    """What the protocol's extras and energy say of a run's rows (N, n), asked of any engine in one batch: the
    tree's positions, the loop residuals, the cut joints' forces at the rows' accelerations ``xdd`` (None: zeros,
    for a mechanism without loops, whose cut forces are empty), the energies."""
    kinetic, potential = dyn.energy(x, xd)
    forces = dyn.cut_forces(x, xd, np.zeros_like(x) if xdd is None else xdd)
    return dict(q_tree=dyn.positions(x), residual=dyn.residual(x), kinetic=kinetic, potential=potential,
                cut_force=forces.force, cut_moment=forces.moment)


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


def simulate(system: System, q0, qd0, t_span: tuple[float, float], torque: Torque = None, **options) -> Trajectory:
    """Simulate from (q0, qd0) over ``t_span`` under ``torque``; see :func:`simulate_job` (its options)."""
    options.setdefault("interval", math.inf)
    return run(simulate_job(system, q0, qd0, t_span, torque, **options))


def energy(arm: NumericArm | Manipulator, q, qd) -> np.ndarray | float:
    """Kinetic plus potential energy; q and qd of shape (n,) or (N, n) for a whole trajectory."""
    if isinstance(arm, Manipulator):
        arm = NumericArm.from_model(arm)
    kinetic, potential = arm_dynamics(arm).energy(q, qd)
    total = kinetic + potential
    return float(total) if np.ndim(total) == 0 else total


# -- closed chains ---------------------------------------------------------------------------------------------
class _Driven:
    """A closed chain's forward dynamics and rotor energy with every tree joint's drive data (module docstring)."""

    def __init__(self, cd: ClosedDynamics):
        from ..model.drives import drive_arrays
        self.cd = cd
        self.refl, self.visc, self.coul = drive_arrays(cd.model_)

    def forward(self, q_a, qd_a, tau_a) -> np.ndarray:
        cd = self.cd
        q = cd.close(q_a)
        qd, qdd0, W, _ = cd.closure.rates(q, qd_a, np.zeros(cd.n))
        friction = self.visc * qd + self.coul * np.sign(qd)
        Ma = W.T @ (cd.tree_M(q) + np.diag(self.refl)) @ W
        bias = W.T @ (cd.tree_tau(q, qd, qdd0, True) + self.refl * qdd0 + friction)
        try:
            return np.linalg.solve(Ma, np.asarray(tau_a, dtype=float) - bias)
        except np.linalg.LinAlgError:
            raise ClosureError(f"the mass matrix in the actuated joints is singular at q = {q.tolist()}") from None

    def rotor_energy(self, q_a, qd_a) -> float:
        qd = self.cd.state(q_a, qd_a)[1]
        return 0.5 * float(np.sum(self.refl * qd ** 2))


def _closed_job(cd: ClosedDynamics, q0, qd0, t_span, torque, rtol, atol, t_eval, method, interval, token,
                drives: bool, end_stops: EndStops | None):
    """A closed chain's run (module docstring); ClosureError where a loop cannot close."""
    from .closed_drive import stop_torques
    from .end_stops import STOP_HZ
    from ..jobs import NEVER
    token = NEVER if token is None else token
    n = cd.n
    q0, qd0 = _vector(q0, n, "q0"), _vector(qd0, n, "qd0")
    if not (np.all(np.isfinite(q0)) and np.all(np.isfinite(qd0))):
        raise ValueError("q0, qd0: must be finite numbers")
    dyn = cd.following()   # the right-hand side's closure: each state continues from the last
    dyn.positions(q0)
    tau_of, _ = _torque_function(torque, n, dyn)
    # gravity compensation at the state cancels G_a on both sides: the right-hand side integrates
    # M_a^-1 (PD - h_a) and skips a second closure, W and gravity RNEA per call (the palletizer's 2 s move:
    # 1.67 -> 0.9 s, benchmarks/bench_closed_window.py); the reported torques include G_a
    compensated = isinstance(torque, PDControl) and torque.gravity is None and not drives
    applied = tau_of.with_gravity(None) if compensated else tau_of  # type: ignore[attr-defined]
    count = [0]
    driven = _Driven(dyn) if drives else None

    def stops_at(q_tree, qd_a) -> tuple[np.ndarray, float]:
        """(W^T tau_stop, the stops' power) at the closed pose."""
        if end_stops is None:
            return np.zeros(n), 0.0
        W = cd.closure.W(q_tree)
        qd_tree = W @ qd_a
        tau = stop_torques(end_stops, q_tree, qd_tree)
        return (np.zeros(n), 0.0) if tau is None else (W.T @ tau, float(tau @ qd_tree))

    def derivative(t, y):
        _finite_state(t, y)
        q, qd = y[:n], y[n:2 * n]
        q_tree = dyn.close(q)
        tau = np.asarray(applied(t, q.tolist(), qd.tolist()), dtype=float)
        stop, power = stops_at(q_tree, qd)
        tau = tau + stop
        qdd = driven.forward(q, qd, tau) if driven else dyn.qdd_free(q, qd, tau) if compensated else \
            dyn.qdd(q, qd, tau)
        return np.concatenate([qd, qdd] + ([[power]] if end_stops is not None else []))

    # a linear closure's whole right-hand side in one call of its machine code (closed_flat), as a serial arm's
    law = _native_law(applied, n) if end_stops is None and driven is None else None
    flat = cd._flat if law is not None else None
    native = flat.native if flat is not None else None
    if native is not None:
        entry = native.rhs_free if compensated else native.rhs_qdd
        par = np.array(law, dtype=float)

        def derivative_checked(t, y):   # a doubtful state (singular M_a, not finite): the checked way
            return _native_call(entry, y, par, 2 * n, derivative_plain, t)
        derivative_plain, derivative = derivative, derivative_checked
    newton = cd._newton if law is not None else None
    closing = newton.native if newton is not None else None
    if closing is not None:   # a nonlinear closure's: Newton from the last closed pose, then q_a'', in one call
        entry_nl = closing.rhs_free if compensated else closing.rhs_qdd
        par_nl = np.array(law, dtype=float)
        width = 2 * n + cd.n_tree

        def derivative_closing(t, y):   # a doubtful state (Newton stuck, singular, not finite): the checked way
            dy = np.empty(width)
            last = dyn.last
            try:
                if last is not None and entry_nl(y, par_nl, last, dy):
                    dyn.last = dy[2 * n:]
                    return dy[:2 * n]
            except (TypeError, ValueError, BufferError):
                pass
            return derivative_plain(t, y)
        derivative_plain, derivative = derivative, derivative_closing

    def rhs(t, y):
        token.check()
        count[0] += 1
        return derivative(t, y)

    y0 = np.concatenate([q0, qd0] + ([[0.0]] if end_stops is not None else []))
    try:
        # with stops: steps of at most a quarter of a stop's 30 Hz period. Unbounded, DOP853's trial stages across
        # the first contact reached crank angles radians away (8.4 rad), where a four-bar's loop cannot close (random
        # mounted four-bars of tests/support/closed_reference.py, seeds 3 and 4); a serial arm has no such states
        most = np.inf if end_stops is None else 0.25 / STOP_HZ
        sol = yield from integrate_job(rhs, t_span, y0, method, rtol, atol, most, t_eval, interval, token,
                                       stage="simulate", describe=pose_text(n, [f"q{j + 1}" for j in cd.act]),
                                       recheck=end_stops is None)
    except IntegrationError as exc:
        raise SimulationError(str(exc)) from None
    rows = len(sol.t)
    Q, QD = sol.y[:, :n], sol.y[:, n:2 * n]
    evaluations = count[0]   # the integration's
    tau = np.empty((rows, n))
    stop_tau = np.zeros((rows, n)) if end_stops is not None else None
    dyn.last = None   # the rows from the start's branch on
    for r in range(rows):
        tau[r] = tau_of(sol.t[r], Q[r].tolist(), QD[r].tolist())
        if stop_tau is not None:
            stop_tau[r] = stops_at(dyn.close(Q[r]), QD[r])[0]
    stop_work = sol.y[:, 2 * n] if end_stops is not None else None

    def extras() -> dict:
        """The rows' tree positions, residuals, energies and the bearings' load at the rows' own accelerations (the
        right-hand side's; the rigid bodies' forces as eval gives them: a stop's or a drive's torque on a passive
        joint is not among them), from the start's branch on."""
        dyn.last = None
        QDD = np.array([derivative(t, y)[n:2 * n] for t, y in zip(sol.t, sol.y)]).reshape(rows, n)
        rows_ = cd.rows_extras(Q, QD, QDD)
        kinetic = rows_["energy"][:, 0]
        if driven:
            dyn.last = None
            kinetic = kinetic + np.array([driven.rotor_energy(q, qd) for q, qd in zip(Q, QD)])
        return dict(q_tree=rows_["positions"], residual=rows_["residual"], kinetic=kinetic,
                    potential=rows_["energy"][:, 1], cut_force=rows_["cut"][:, 0], cut_moment=rows_["cut"][:, 1])
    # the rows' extras are computed when first read, as a serial arm's: a nonlinear closure's rows close again
    # from the start's branch on, row by row (extras() starts its engines afresh)
    return Trajectory(sol.t, Q, QD, tau, sol.steps, evaluations, stop_tau, stop_work, extras=extras, **_chosen(sol))


# -- elastic joints ----------------------------------------------------------------------------------------------
def _elastic_job(dyn: ElasticDynamics, q0, qd0, t_span, control: PDControl | None, method, rtol, atol, t_eval,
                 max_step, interval, token):
    """An elastic arm's run (module docstring)."""
    follow = dyn.following()   # a closed link side keeps its branch
    model = follow.model
    n = model.n
    q0 = np.asarray(q0, dtype=float)
    if q0.shape == (n,):
        if qd0 is not None and np.any(np.asarray(qd0, dtype=float) != 0):
            raise ValueError(f"q0 of the {n} link angles starts at rest (qd0 zero); give q0 and qd0 of all "
                             f"{dyn.n} coordinates (links, then motors) to start moving")
        y0 = model.equilibrium(q0)
    elif q0.shape == (dyn.n,):
        y0 = np.concatenate([q0, np.zeros(dyn.n) if qd0 is None else _vector(qd0, dyn.n, "qd0")])
    else:
        raise ValueError(f"q0: expected {n} link angles or {dyn.n} coordinates (links, then motors), "
                         f"got shape {q0.shape}")
    if not np.all(np.isfinite(y0)):
        raise ValueError("q0, qd0: must be finite numbers")
    zero = [0.0] * n
    tau_of = control.motor_law(model) if control is not None else (lambda t, s: zero)
    rhs = model.scalar_rhs(tau_of)
    jac: Callable | None = None
    if method is None or method in IMPLICIT:   # the choice's eigenvalues, an implicit method's Newton iteration
        stiff = model.jacobian_function(None if control is None else control.kp,
                                        None if control is None else control.kd)

        def jac(t, y):
            return stiff(y[:n])
    try:
        out = yield from integrate_job(rhs, t_span, y0, method, rtol, atol, max_step, t_eval, interval, token,
                                       stage="simulate", jac=jac, describe=pose_text(n))
    except IntegrationError as exc:
        raise SimulationError(str(exc)) from None
    q, th, qd, thd = model.split(out.y)
    tau = (np.array([tau_of(ti, yi.tolist()) for ti, yi in zip(out.t, out.y)]).reshape(-1, n)
           if control is not None else None)
    x, xd = out.y[:, :dyn.n], out.y[:, dyn.n:]
    link = dyn.following()   # a closed link side's rows from the start's branch on
    xdd = None
    if link.link.n_tree != n:   # loops: their cut forces at the rows' accelerations, from the start's branch on
        model.dyn.last = None  # type: ignore[attr-defined]
        xdd = np.array([rhs(ti, yi)[dyn.n:] for ti, yi in zip(out.t, out.y)])
    return Trajectory(out.t, q, qd, tau, out.steps, out.nfev, theta=th, thetad=thd, extras=_extras(link, x, xd, xdd),
                      **_chosen(out))


def tool_deviation(arm: NumericArm, q, q_reference) -> np.ndarray:
    """(T,) distance in metres between the tool points at link angles q and q_reference (T, n)."""
    from ..kinematics.numeric import dh_frames
    a = dh_frames(arm, np.atleast_2d(q))[:, -1] @ arm.tool
    b = dh_frames(arm, np.atleast_2d(q_reference))[:, -1] @ arm.tool
    return np.linalg.norm(a[:, :3, 3] - b[:, :3, 3], axis=1)
