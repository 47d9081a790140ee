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
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, Progress

__all__ = ["SOLVERS", "Integration", "IntegrationError", "integrate_job", "PROGRESS_SECONDS"]

# scipy.integrate's solver classes by name; scipy is imported when a run starts (it takes a second to load, and
# the window imports this module before its first paint)
SOLVERS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
# a step of a six-joint arm takes ~0.5 ms: reporting each one would cost more than the steps (a bar redraw,
# a queued Qt signal); 20 reports a second is what a bar can show
PROGRESS_SECONDS = 0.05


class IntegrationError(DesignerError, RuntimeError):
    """The solver gave up (its message, and the time it reached)."""

    def __init__(self, message: str, t: float):
        super().__init__(message)
        self.t = t


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
                  stage: str = "integrate", jac: Callable | None = None) -> Job[Integration]:
    """Integrate ``y' = fun(t, y)`` over ``t_span`` (forward in time) as ``solve_ivp`` would, as a job.

    Yields a :class:`~designer.jobs.Progress` with the fraction ``(t - t0) / (t1 - t0)`` at the start,
    after a step whenever ``interval`` seconds passed since the last one (0: after every step), and at the
    end; ``token`` is checked after every step. ``jac(t, y)``, for the implicit methods (Radau, BDF,
    LSODA), is the right-hand side's Jacobian (by default they difference ``fun``). Raises
    :class:`IntegrationError` when the solver fails and ValueError for a bad method or ``t_eval``.
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
    yield Progress(stage, 0.0, f"t = {t0:.4g} s")
    last = time.monotonic()
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            raise IntegrationError(f"integration failed after t = {solver.t:.6g} s: {message}", solver.t)
        taken += 1
        t = solver.t
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
