"""One ODE integration stepped by hand, as a job: progress after every step, the numbers of one solve_ivp.

:func:`scipy.integrate.solve_ivp` runs to its end without a word; cutting the
time span into slices for progress restarts the solver at every cut, which
changes its steps and the result (about 1e-8 at the default tolerances).
:func:`integrate_job` instead drives scipy's solver object (``DOP853(fun, t0,
y0, t_bound, rtol=..., atol=...)``) itself, one ``step()`` at a time, and picks
the output exactly as ``solve_ivp`` does (every accepted step, or the
requested times read from the step's dense output). The result is the very
array ``solve_ivp`` returns with the same method and tolerances, and between
steps the job reports ``t / T`` and can be cancelled.

A motion heading into a singular pose (a mass matrix or a loop closure that degenerates) makes the
solver's steps collapse: it then creeps on at steps of 1e-15 s and, with every step as dear as ever,
never ends. :func:`integrate_job` ends it with a :class:`StallError` once the accepted steps have stayed
below ``MIN_STEP`` of the time scale (the span, or the time reached if larger) for ``STALL_STEPS`` steps
in a row; its message gives the time, the state (``describe``) and that floor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, Progress

__all__ = ["SOLVERS", "Integration", "IntegrationError", "StallError", "integrate_job", "PROGRESS_SECONDS",
           "MIN_STEP", "STALL_STEPS", "vector_text"]

# scipy.integrate's solver classes by name; scipy is imported when a run starts (it takes a second to load, and
# the window imports this module before its first paint)
SOLVERS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
# a step of a six-joint arm takes ~0.5 ms: reporting each one would cost more than the steps (a bar redraw,
# a queued Qt signal); 20 reports a second is what a bar can show
PROGRESS_SECONDS = 0.05
# the step-size floor, relative to the time scale: 1e-12 of a 10 s run is 10 ps, far below any motion the
# arm's dynamics and the end stops (30 Hz, end_stops.STOP_HZ) resolve, and still 1000 times the spacing of
# floats at t (scipy's own floor, which a collapsing step approaches but does not always cross)
MIN_STEP = 1e-12
# so many accepted steps in a row below the floor: a stall, not one short step at a kink
STALL_STEPS = 10


class IntegrationError(DesignerError, RuntimeError):
    """The solver gave up (its message, and the time it reached)."""

    def __init__(self, message: str, t: float):
        super().__init__(message)
        self.t = t


class StallError(IntegrationError):
    """The steps fell below the floor (:data:`MIN_STEP`) and stayed there: the motion heads into a
    singular state. ``t`` the time reached, ``y`` the state there."""

    def __init__(self, message: str, t: float, y: np.ndarray):
        super().__init__(message, t)
        self.y = y


def _state_text(y: np.ndarray) -> str:
    return "y = " + vector_text(y)


def vector_text(v) -> str:
    """``[0.1, 2.5e-07]``: a state's numbers in a message."""
    return "[" + ", ".join(f"{x:.6g}" for x in np.asarray(v, dtype=float).ravel()) + "]"


@dataclass(frozen=True)
class Integration:
    """Times (N,), states (N, m), the accepted steps and the right-hand side's evaluations."""

    t: np.ndarray
    y: np.ndarray
    steps: int
    nfev: int


def integrate_job(fun: Callable[[float, np.ndarray], np.ndarray], t_span: tuple[float, float], y0,
                  method: str = "DOP853", rtol: float = 1e-8, atol: float = 1e-10, max_step: float = np.inf,
                  t_eval=None, interval: float = PROGRESS_SECONDS, token: CancelToken | None = None,
                  stage: str = "integrate", jac: Callable | None = None,
                  describe: Callable[[np.ndarray], str] = _state_text) -> Job[Integration]:
    """Integrate ``y' = fun(t, y)`` over ``t_span`` (forward in time) as ``solve_ivp`` would, as a job.

    Yields a :class:`~designer.jobs.Progress` with the fraction ``(t - t0) / (t1 - t0)`` at the start,
    after a step whenever ``interval`` seconds passed since the last one (0: after every step), and at the
    end; ``token`` is checked after every step. ``jac(t, y)``, for the implicit methods (Radau, BDF,
    LSODA), is the right-hand side's Jacobian (by default they difference ``fun``). Raises
    :class:`IntegrationError` when the solver fails, :class:`StallError` when its steps stay below the
    floor (the module docstring), each saying the time and ``describe(y)`` (the state, e.g. ``q = [...]``);
    ValueError for a bad method or ``t_eval``.
    """
    if method not in SOLVERS:
        raise ValueError(f"method: '{method}' is not one of {', '.join(SOLVERS)}")
    import scipy.integrate
    solver_class = getattr(scipy.integrate, method)
    t0, t1 = map(float, t_span)
    if not t1 > t0:
        raise ValueError(f"t_span: end {t1} must be after start {t0}")
    if t_eval is not None:
        t_eval = np.asarray(t_eval, dtype=float)
        if t_eval.ndim != 1 or t_eval.size == 0:
            raise ValueError("t_eval: give a list of times")
        if np.any(np.diff(t_eval) <= 0) or t_eval[0] < t0 or t_eval[-1] > t1:
            raise ValueError("t_eval: times must increase and lie inside t_span")
    # the arguments solve_ivp gives the solver (it passes vectorized=False and its options through)
    options = {} if jac is None else {"jac": jac}
    solver = solver_class(fun, t0, np.asarray(y0), t1, vectorized=False, rtol=rtol, atol=atol, max_step=max_step,
                          **options)
    ts: list = [t0] if t_eval is None else []
    ys: list = [solver.y] if t_eval is None else []
    taken, done = 0, 0     # accepted steps; t_eval entries written
    span = t1 - t0
    small = 0              # accepted steps in a row below the floor
    t_prev = t0
    yield Progress(stage, 0.0, f"t = {t0:.4g} s")
    last = time.monotonic()
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            raise IntegrationError(f"integration failed after t = {solver.t:.6g} s at {describe(solver.y)}: "
                                   f"{message}", solver.t)
        taken += 1
        t = solver.t
        floor = MIN_STEP * max(span, abs(t))
        small = small + 1 if t - t_prev < floor and solver.status == "running" else 0
        t_prev = t
        if small >= STALL_STEPS:
            raise StallError(f"integration stalled at t = {t:.6g} s: the step size fell below {floor:.2g} s "
                             f"({STALL_STEPS} steps in a row) at {describe(solver.y)}; a singular pose "
                             "(the mass matrix or a loop's closure degenerate) lies ahead", t, solver.y)
        if t_eval is None:
            ts.append(t)
            ys.append(solver.y)
        else:
            upto = int(np.searchsorted(t_eval, t, side="right"))
            if upto > done:
                ts.append(t_eval[done:upto])
                ys.append(solver.dense_output()(t_eval[done:upto]))
                done = upto
        if token is not None:
            token.check()
        now = time.monotonic()
        if now - last >= interval or solver.status != "running":
            last = now
            yield Progress(stage, min(1.0, (t - t0) / span), f"t = {t:.4g} s, {taken} steps")
    if t_eval is None:
        t_out, y_out = np.array(ts), np.vstack(ys)
    else:
        t_out, y_out = np.hstack(ts), np.hstack(ys).T
    return Integration(t_out, y_out, taken, int(solver.nfev))
