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

**The method chosen by the problem** (``method=None``, :func:`choose_method`). An explicit method's step is bounded
by stability, about 3 / |lambda| for the fastest eigenvalue lambda of the linearization df/dy, for the whole run;
an implicit, L-stable one (Radau) steps over a mode once it has decayed. That pays only for modes that do decay
within the run: an undamped spring's vibration lasts, and any method must follow it, and there the explicit
DOP853 (order 8) takes far fewer and cheaper steps than Radau (order 5, a Newton iteration on a 3 m x 3 m system
per step). So the rule, from the eigenvalues of df/dy at the start (the caller's analytic Jacobian where given,
else differences of f):

- the fastest rate: the largest |lambda|;
- the lasting rate: the largest |lambda| among the modes that do not die out within the run, those without
  -Re(lambda) T > ln(1/rtol) (T the span), and at least 1/T, the run's own scale;
- the stiffness ratio, fastest / lasting. Above :data:`STIFF_RATIO` the run is stiff: Radau; else DOP853.

An elastic arm without damping (issue 31's four-joint arm, 1 s of free vibration at rtol 1e-10) has ratio ~1:
DOP853, where Radau crawled (92.7 s against 0.49 s in the issue; 10x on tests/support/stiff_arm.py); the PUMA 560
with its motors under a PD has the gains' damped modes far above its motion: Radau. As it goes the run looks again
every :data:`RECHECK_STEPS` accepted steps, at the state reached, against the same span, and switches (LSODA-like; a
switch restarts the solver from the state reached) to Radau when the ratio has risen above the line, or when
DOP853's mean step h has been held at h |lambda|max above :data:`HELD` (its stability bound holds it, not the
motion: a fast mode too quiet to follow, such as near-rigid springs preloaded at rest, which Radau steps over); back
to DOP853 when the ratio fell ten times below the line and Radau's steps follow the fastest mode anyway (h
|lambda|max below :data:`FOLLOWING`; never after a switch for held steps). A run that never switches is one
``solve_ivp`` call with the method chosen (DOP853's first step bounded by 1 / |lambda|max: scipy's guess, from f
alone, can lie far outside the stability bound). A forced ``method`` skips all this.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import DesignerError
from ..jobs import CancelToken, Job, Progress

__all__ = ["SOLVERS", "Integration", "IntegrationError", "StallError", "integrate_job", "PROGRESS_SECONDS",
           "MIN_STEP", "STALL_STEPS", "vector_text", "MethodChoice", "choose_method", "forced", "STIFF_RATIO",
           "EXPLICIT", "STIFF", "IMPLICIT", "RECHECK_STEPS", "SWITCH_BACK", "HELD", "FOLLOWING"]

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
#: the stiffness ratio (module docstring) above which a run is integrated by :data:`STIFF`, else by :data:`EXPLICIT`:
#: an implicit step costs several times an explicit one (the Newton iteration, a Jacobian's LU) and Radau's order
#: 5 takes more steps than DOP853's 8 at the same tolerance, so the fast modes must outrun the lasting ones by
#: about two orders before stepping over them pays
STIFF_RATIO = 100.0
EXPLICIT, STIFF = "DOP853", "Radau"
#: a chosen method's run looks at the stiffness again every so many accepted steps (a Jacobian and its eigenvalues:
#: well under 1 % of the steps' work) and switches when it changed: to Radau above STIFF_RATIO, back to DOP853 below
#: STIFF_RATIO / SWITCH_BACK (apart, so that a ratio near the line does not flip the method at every look)
RECHECK_STEPS = 100
SWITCH_BACK = 10.0
#: the mean step h of the last RECHECK_STEPS times the fastest rate: DOP853 held at h |lambda| above this is held by
#: its stability bound, not by the motion (a fast mode too quiet to matter, which Radau steps over): switch to Radau
#: (measured: 4.3 and 5.5 on quiet near-rigid springs, 0.75 to 1.6 where the springs ring and must be followed);
#: Radau at h |lambda| below FOLLOWING follows the fastest mode anyway, and the cheaper explicit steps would too
#: (not after a switch for HELD steps: those came from DOP853's own bound, and going back would flip-flop)
HELD = 3.0
FOLLOWING = 0.5
#: scipy's implicit methods, which take a Jacobian
IMPLICIT = ("Radau", "BDF", "LSODA")


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
class MethodChoice:
    """The integration method, and why: ``reason`` a phrase for a summary (\"not stiff (stiffness ratio 3.1)\"),
    ``ratio`` the stiffness ratio (NaN when the method was forced)."""

    method: str
    reason: str
    ratio: float = float("nan")
    fastest: float = 0.0   # the largest |eigenvalue| of df/dy (1/s), 0 when not looked at

    def __str__(self) -> str:
        return f"{self.method}: {self.reason}"


def forced(method: str) -> MethodChoice:
    """A method the caller named."""
    return MethodChoice(method, "as asked (--method)")


def _differenced(fun: Callable, t0: float, y0: np.ndarray, f0: np.ndarray) -> np.ndarray:
    """df/dy at (t0, y0) by forward differences (one evaluation per state component)."""
    J = np.empty((len(f0), len(y0)))
    for k in range(len(y0)):
        h = 1e-7 * max(1.0, abs(y0[k]))
        y = y0.copy()
        y[k] += h
        J[:, k] = (np.asarray(fun(t0, y), dtype=float) - f0) / h
    return J


def choose_method(fun: Callable[[float, np.ndarray], np.ndarray], t_span: tuple[float, float], y0,
                  rtol: float = 1e-8, jac: Callable | None = None, at: float | None = None) -> MethodChoice:
    """:data:`STIFF` or :data:`EXPLICIT` for ``y' = fun(t, y)`` from ``y0`` over ``t_span``, by the stiffness ratio of
    df/dy at the start (``jac(t, y)`` when given, else differences of ``fun``; the module docstring's rule); ``at``:
    df/dy at the state ``y0`` reached at that time instead (a re-check along the run, judged against the same span)."""
    t0, t1 = map(float, t_span)
    y0 = np.asarray(y0, dtype=float)
    span = max(t1 - t0, np.finfo(float).tiny)
    where = t0 if at is None else float(at)
    J = np.asarray(jac(where, y0), dtype=float) if jac is not None else \
        _differenced(fun, where, y0, np.asarray(fun(where, y0), dtype=float))
    if not np.all(np.isfinite(J)):
        return MethodChoice(EXPLICIT, "not stiff (df/dy not finite at the start: the explicit default)")
    lam = np.linalg.eigvals(J)
    size = np.abs(lam)
    fastest = float(size.max()) if size.size else 0.0
    decays = -lam.real * span > np.log(1.0 / max(rtol, 1e-300))
    lasting = max(float(size[~decays].max()) if np.any(~decays) else 0.0, 1.0 / span)
    ratio = fastest / lasting
    if ratio > STIFF_RATIO:
        return MethodChoice(STIFF, f"stiff (stiffness ratio {ratio:.3g}: modes up to {fastest:.3g} 1/s die out "
                                   f"within the run, the lasting ones reach {lasting:.3g} 1/s)", ratio, fastest)
    return MethodChoice(EXPLICIT, f"not stiff (stiffness ratio {ratio:.3g}; fastest mode {fastest:.3g} 1/s)", ratio,
                        fastest)


@dataclass(frozen=True)
class Integration:
    """Times (N,), states (N, m), the accepted steps and the right-hand side's evaluations; the method and why."""

    t: np.ndarray
    y: np.ndarray
    steps: int
    nfev: int
    choice: MethodChoice = MethodChoice(EXPLICIT, "")


def integrate_job(fun: Callable[[float, np.ndarray], np.ndarray], t_span: tuple[float, float], y0,
                  method: str | None = "DOP853", rtol: float = 1e-8, atol: float = 1e-10, max_step: float = np.inf,
                  t_eval=None, interval: float = PROGRESS_SECONDS, token: CancelToken | None = None,
                  stage: str = "integrate", jac: Callable | None = None,
                  describe: Callable[[np.ndarray], str] = _state_text, recheck: bool = True) -> Job[Integration]:
    """Integrate ``y' = fun(t, y)`` over ``t_span`` (forward in time) as ``solve_ivp`` would, as a job.

    Yields a :class:`~designer.jobs.Progress` with the fraction ``(t - t0) / (t1 - t0)`` at the start,
    after a step whenever ``interval`` seconds passed since the last one (0: after every step), and at the
    end; ``token`` is checked after every step. ``jac(t, y)``, for the implicit methods (Radau, BDF,
    LSODA), is the right-hand side's Jacobian (by default they difference ``fun``). ``method`` None: the
    problem chooses (:func:`choose_method`; ``Integration.choice`` says which and why), and with ``recheck`` looks
    again as it goes (the module docstring; off for a right-hand side with kinks, such as end stops' contacts,
    where an implicit method's differenced Jacobian across the kink fails). Raises
    :class:`IntegrationError` when the solver fails, :class:`StallError` when its steps stay below the
    floor (the module docstring), each saying the time and ``describe(y)`` (the state, e.g. ``q = [...]``);
    ValueError for a bad method or ``t_eval``.
    """
    if method is not None and method not in SOLVERS:
        raise ValueError(f"method: '{method}' is not one of {', '.join(SOLVERS)}")
    t0, t1 = map(float, t_span)
    if not t1 > t0:
        raise ValueError(f"t_span: end {t1} must be after start {t0}")
    if t_eval is not None:
        t_eval = np.asarray(t_eval, dtype=float)
        if t_eval.ndim != 1 or t_eval.size == 0:
            raise ValueError("t_eval: give a list of times")
        if np.any(np.diff(t_eval) <= 0) or t_eval[0] < t0 or t_eval[-1] > t1:
            raise ValueError("t_eval: times must increase and lie inside t_span")
    import scipy.integrate

    def start(name: str, t: float, y: np.ndarray, fastest: float = 0.0):
        # the arguments solve_ivp gives the solver (it passes vectorized=False and its options through)
        options: dict = {} if jac is None or name not in IMPLICIT else {"jac": jac}
        solver = getattr(scipy.integrate, name)(fun, t, np.asarray(y), t1, vectorized=False, rtol=rtol, atol=atol,
                                                max_step=max_step, **options)
        if name not in IMPLICIT and fastest > 0 and hasattr(solver, "h_abs"):
            # an explicit method's first step inside its stability bound: scipy's guess from f alone can be far
            # beyond it, and the trial stages of such a step wander off (a loop that no longer closes)
            solver.h_abs = min(solver.h_abs, 1.0 / fastest)
        return solver
    chosen = method is None and recheck
    choice = forced(method) if method is not None else choose_method(fun, (t0, t1), y0, rtol, jac)
    solver = start(choice.method, t0, y0, choice.fastest)
    spent = 0              # evaluations of the solvers switched from
    since, looked = 0, t0  # accepted steps since the last look at the stiffness, and its time
    held = False           # switched to Radau because DOP853's stability held its steps
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
        since += 1
        if chosen and since >= RECHECK_STEPS and solver.status == "running":
            now_choice = choose_method(fun, (t0, t1), solver.y, rtol, jac, at=t)
            reach = (t - looked) / since * now_choice.fastest   # the mean step against the fastest mode
            since, looked = 0, t
            new = None
            if choice.method == EXPLICIT and now_choice.method == STIFF:
                new = now_choice
            elif choice.method == EXPLICIT and reach > HELD:
                held = True
                new = MethodChoice(STIFF, f"stiff (DOP853's steps held at {reach:.2g} / |lambda| by its stability, "
                                          f"fastest mode {now_choice.fastest:.3g} 1/s)", now_choice.ratio,
                                   now_choice.fastest)
            elif choice.method == STIFF and now_choice.ratio < STIFF_RATIO / SWITCH_BACK and reach < FOLLOWING \
                    and not held:
                new = now_choice
            if new is not None and new.method != choice.method:
                spent += solver.nfev
                choice = MethodChoice(new.method, f"{new.reason} from t = {t:.4g} s (before: {choice.method}, "
                                      f"{choice.reason})", new.ratio, new.fastest)
                solver = start(choice.method, t, solver.y, choice.fastest)
        now = time.monotonic()
        if now - last >= interval or solver.status != "running":
            last = now
            yield Progress(stage, min(1.0, (t - t0) / span), f"t = {t:.4g} s, {taken} steps")
    if t_eval is None:
        t_out, y_out = np.array(ts), np.vstack(ys)
    else:
        t_out, y_out = np.hstack(ts), np.hstack(ys).T
    return Integration(t_out, y_out, taken, spent + int(solver.nfev), choice)
