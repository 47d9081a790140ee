"""Forward dynamics and simulation (ROBMAT 4.4).

q'' = M(q)^-1 (tau - h(q, q') - G(q)), computed by solving with M, never by
inverting it. The dynamics come either from a numeric arm (recursive
Newton-Euler, :mod:`designer.numeric.recursive`) or from compiled symbolic
equations (:class:`designer.numeric.compiled.CompiledDynamics`).
:func:`simulate_job` integrates with :func:`scipy.integrate.solve_ivp` in
chunks of time and yields :class:`~designer.jobs.Progress` between them, so
that the GUI can show progress and cancel; :func:`simulate` runs it to its end.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Sequence

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import DesignerError
from ..jobs import Job, Progress, run
from ..kinematics import NumericArm
from ..model.manipulator import Manipulator
from ..numeric import recursive as rec
from ..numeric.compiled import CompiledDynamics

__all__ = ["SingularConfigurationError", "SimulationError", "Trajectory", "forward_dynamics", "simulate",
           "simulate_job", "energy"]

System = NumericArm | CompiledDynamics | Manipulator
Torque = None | Sequence[float] | np.ndarray | Callable[[float, np.ndarray, np.ndarray], Sequence[float]]

#: M is treated as singular above this condition number (about 1/sqrt(machine epsilon) squared)
MAX_CONDITION = 1e12


class SingularConfigurationError(DesignerError):
    """The mass matrix is singular or too ill-conditioned to solve for q''."""

    def __init__(self, q: np.ndarray, condition: float):
        self.q = np.asarray(q, dtype=float)
        self.condition = float(condition)
        qs = ", ".join(f"{v:.6g}" for v in self.q)
        super().__init__(f"mass matrix singular at q = [{qs}] (condition number {self.condition:.3g}); "
                         "forward dynamics is undefined there (a massless link or joint?)")


class SimulationError(DesignerError, RuntimeError):
    """The integrator failed (its message says why)."""


@dataclass(frozen=True)
class Trajectory:
    """A simulated motion: times (N,), positions and velocities (N, n), applied torques (N, n) or None."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray | None = None

    def __post_init__(self):
        for name in ("t", "q", "qd", "tau"):
            value = getattr(self, name)
            if value is not None:
                value = np.array(value, dtype=float)
                value.setflags(write=False)  # frozen all the way down
                object.__setattr__(self, name, value)


class _Dynamics:
    """M(q) and the rest n(q, qd) = h + G of either kind of system."""

    def __init__(self, system: System):
        if isinstance(system, Manipulator):
            system = NumericArm.from_model(system)
        self.system = system
        if isinstance(system, CompiledDynamics):
            self.n = system.n
            self.mass = system.M
            self.rest = lambda q, qd: system.h(q, qd) + system.G(q)
        elif isinstance(system, NumericArm):
            self.n = system.n
            zero = np.zeros(system.n)
            self.mass = lambda q: rec.mass_matrix(system, q)
            self.rest = lambda q, qd: rec.rnea(system, q, qd, zero)
        else:
            raise TypeError(f"expected a NumericArm, CompiledDynamics or Manipulator, not {type(system).__name__}")

    def qdd(self, q, qd, tau) -> np.ndarray:
        M = self.mass(q)
        rhs = np.asarray(tau, dtype=float) - self.rest(q, qd)
        cond = np.linalg.cond(M)
        if not np.isfinite(cond) or cond > MAX_CONDITION:
            raise SingularConfigurationError(q, cond)
        return np.linalg.solve(M, rhs)


def _vector(v, n: int, name: str) -> np.ndarray:
    a = np.asarray(v, dtype=float)
    if a.shape != (n,):
        raise ValueError(f"{name}: expected {n} values, got shape {a.shape}")
    return a


def forward_dynamics(system: System, q, qd, tau=None) -> np.ndarray:
    """Joint accelerations q'' under joint torques ``tau`` (zero when None).

    Raises
    ------
    SingularConfigurationError
        When M(q) is singular or its condition number exceeds :data:`MAX_CONDITION`.
    """
    dyn = _Dynamics(system)
    q, qd = _vector(q, dyn.n, "q"), _vector(qd, dyn.n, "qd")
    tau = np.zeros(dyn.n) if tau is None else _vector(tau, dyn.n, "tau")
    return dyn.qdd(q, qd, tau)


def _torque_function(torque: Torque, n: int) -> tuple[Callable, bool]:
    if torque is None:
        zero = np.zeros(n)
        return (lambda t, q, qd: zero), False
    if callable(torque):
        return (lambda t, q, qd: _vector(torque(t, q, qd), n, "torque(t, q, qd)")), True
    constant = _vector(torque, n, "torque")
    return (lambda t, q, qd: constant), True


def simulate_job(system: System, q0, qd0, t_span: tuple[float, float], torque: Torque = None,
                 rtol: float = 1e-8, atol: float = 1e-10, t_eval=None, method: str = "DOP853",
                 chunks: int = 20, max_step: float = np.inf) -> Job[Trajectory]:
    """Simulate as a job: yields progress after each of ``chunks`` slices of time.

    Parameters
    ----------
    system : NumericArm, CompiledDynamics or Manipulator
    q0, qd0 : array_like, shape (n,)
    t_span : (t0, t1)
    torque : None (passive), a constant array, or a callable ``(t, q, qd) -> tau``
    rtol, atol, method, max_step : passed to :func:`scipy.integrate.solve_ivp`
    t_eval : array_like, optional
        Times to report; by default the integrator's own steps.

    Returns
    -------
    Trajectory
    """
    dyn = _Dynamics(system)
    n = dyn.n
    y0 = np.concatenate([_vector(q0, n, "q0"), _vector(qd0, n, "qd0")])
    tau_of, record_tau = _torque_function(torque, n)
    t0, t1 = map(float, t_span)
    if not t1 > t0:
        raise ValueError(f"t_span: end {t1} must be after start {t0}")
    t_eval = None if t_eval is None else np.asarray(t_eval, dtype=float)
    if t_eval is not None and (np.any(np.diff(t_eval) < 0) or t_eval[0] < t0 or t_eval[-1] > t1):
        raise ValueError("t_eval: must be sorted and inside t_span")

    def rhs(t, y):
        q, qd = y[:n], y[n:]
        return np.concatenate([qd, dyn.qdd(q, qd, tau_of(t, q, qd))])

    edges = np.linspace(t0, t1, max(1, int(chunks)) + 1)
    ts, ys = [], []
    if t_eval is None or (t_eval.size and t_eval[0] == t0):
        ts.append(np.array([t0]))
        ys.append(y0[:, None])
    y = y0
    for k, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        wanted = None if t_eval is None else t_eval[(t_eval > a) & (t_eval <= b)]
        # the chunk always ends exactly at b, where the next one starts
        evals = None if wanted is None else np.union1d(wanted, [b])
        sol = solve_ivp(rhs, (a, b), y, method=method, rtol=rtol, atol=atol, max_step=max_step, t_eval=evals)
        if sol.status < 0:
            raise SimulationError(f"integration failed after t = {sol.t[-1] if sol.t.size else a:.6g} s: {sol.message}")
        keep = slice(1, None) if wanted is None else np.isin(sol.t, wanted)
        ts.append(sol.t[keep])
        ys.append(sol.y[:, keep])
        y = sol.y[:, -1]
        yield Progress("simulate", (k + 1) / (len(edges) - 1), f"t = {b:.4g} s")
    t = np.concatenate(ts)
    Y = np.concatenate(ys, axis=1).T
    q, qd = Y[:, :n], Y[:, n:]
    tau = np.array([tau_of(ti, qi, qdi) for ti, qi, qdi in zip(t, q, qd)]).reshape(-1, n) if record_tau else None
    return Trajectory(t=t, q=q, qd=qd, tau=tau)


def simulate(system: System, q0, qd0, t_span: tuple[float, float], torque: Torque = None,
             rtol: float = 1e-8, atol: float = 1e-10, t_eval=None, method: str = "DOP853",
             max_step: float = np.inf) -> Trajectory:
    """Simulate the arm from (q0, qd0) over ``t_span`` under ``torque``; see :func:`simulate_job`."""
    return run(simulate_job(system, q0, qd0, t_span, torque=torque, rtol=rtol, atol=atol, t_eval=t_eval,
                            method=method, chunks=1, max_step=max_step))


def energy(arm: NumericArm | Manipulator, q, qd) -> np.ndarray | float:
    """Kinetic plus potential energy; q and qd of shape (n,) or (N, n) for a whole trajectory."""
    if isinstance(arm, Manipulator):
        arm = NumericArm.from_model(arm)
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    if q.ndim == 1:
        return rec.kinetic_energy(arm, q, qd) + rec.potential_energy(arm, q)
    return np.array([rec.kinetic_energy(arm, a, b) + rec.potential_energy(arm, a) for a, b in zip(q, qd)])
