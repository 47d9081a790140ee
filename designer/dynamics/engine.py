"""The public derivation job: pick the method, derive, simplify, assemble :class:`Equations`."""

from __future__ import annotations

import math
import time
from dataclasses import replace
from collections.abc import Callable, Collection
from typing import Any

import sympy as sp

from ..errors import DesignerError
from ..jobs import NEVER, Cancelled, CancelToken, Job, Progress, run
from ..model.manipulator import Manipulator
from ..model.angles import exact_angles
from .assemble import to_matrix_job
from .methods import METHODS
from .results import Equations, Form, Method, SimplifyMode
from .size import ClosedFormTooSlow, Deadline, ExpansionTooLarge, expanded_terms
from .tree import compact_job
from .trigpoly import TrigRing

__all__ = ["derive", "derive_job", "code_equations_job", "compact_equations_job",
           "check_size", "AUTO_LIMIT", "AUTO_SECONDS", "coriolis_matrix", "link_torques", "link_torques_job"]


#: the largest estimated term count of an expanded tau_i that is expanded at all (designer.dynamics.size):
#: a 5-joint arm with every parameter a symbol bounds at 5e8 and takes 12 s, a 6-joint one 5e10 and
#: takes minutes; between the two the time budget decides (benchmarks/bench_closed_form.py)
AUTO_LIMIT = 1_000_000_000
#: seconds a closed form may take before Form.AUTO gives the recursive form instead (the Panda's
#: Lagrange closed form: about 15 s; a generic 7-joint arm with numeric parameters: about 110 s)
AUTO_SECONDS = 30.0


def compact_equations_job(model: Manipulator, method: Method = Method.LAGRANGE,
                          token: CancelToken = NEVER, need: Collection[str] = ("tau", "M", "G", "h")
                          ) -> Job[Equations]:
    """Generator returning :class:`Equations` in the compact form without the recursive-form report:
    what code generation and the compiled numeric functions need (the same for every method);
    ``need``: as in :func:`~designer.dynamics.tree.compact_job` (the others None)."""
    tau, M, G, h = yield from compact_job(model, token, need)
    return Equations(method=Method(method), model=model, simplify=SimplifyMode.OFF, matrices={}, tau=tau,
                     mass_matrix=M, gravity=G, coriolis=h, form=Form.COMPACT)


def check_size(tau: sp.Matrix, limit: int | None, model: Manipulator | None = None) -> tuple[list[int], int | None]:
    """The estimated terms of each expanded tau_i (of ``model``: its joint symbols tighten the
    bound); raises ExpansionTooLarge above ``limit``."""
    joints = (model.q, model.qd, model.qdd) if model is not None else ()
    sizes = expanded_terms(list(tau), *joints)
    worst = max(range(len(sizes)), key=sizes.__getitem__) if sizes else None
    if limit is not None and worst is not None and sizes[worst] > limit:
        raise ExpansionTooLarge(f"tau_{worst + 1}", sizes[worst], limit)
    return sizes, worst


def derive_job(model: Manipulator, method: Method = Method.LAGRANGE,
               simplify: SimplifyMode = SimplifyMode.FAST, token: CancelToken | None = None,
               form: Form = Form.AUTO, max_terms: int | None = AUTO_LIMIT,
               time_limit: float | None = None, loop_quantities: bool = True) -> Job[Equations]:
    """Generator yielding :class:`Progress` and returning :class:`Equations`: the front door of every
    derivation, a serial arm's or a closed chain's (in its actuated coordinates, :func:`closed_chain_job`);
    callers never choose.

    ``form``: compact returns the recursive graphs at once (any arm, about a second); closed
    expands, after checking the size estimate of tau against ``max_terms`` (None: no limit;
    above it an :class:`~designer.dynamics.size.ExpansionTooLarge` names the entry and its
    size), and gives up after ``time_limit`` seconds with a
    :class:`~designer.dynamics.size.ClosedFormTooSlow` (default None: no limit, as asked for);
    auto (default) is closed when both allow it (defaults :data:`AUTO_LIMIT` and, for
    ``time_limit`` None, :data:`AUTO_SECONDS`; ``math.inf``: no limit), else compact, with
    ``extras["too_large"]`` = (entry, estimated terms, limit) or ``extras["too_slow"]`` =
    (seconds, the step reached) saying why. ``token.check()`` is called inside every loop, so a
    cancel stops the job within one small step (a ``Cancelled`` exception). ``loop_quantities`` False: where
    a loop closes nonlinearly, no closed form in named loop quantities (a reader that cannot evaluate them:
    generated code, the window's viewer); a mechanism without such a loop is not affected.
    """
    method, simplify, form = Method(method), SimplifyMode(simplify), Form(form)
    if not model.is_serial:   # a closed chain: its forms in the actuated coordinates
        return (yield from closed_chain_job(model, method, simplify, NEVER if token is None else token, form,
                                            nonlinear=loop_quantities, time_limit=time_limit, max_terms=max_terms))
    strategy = METHODS[method]
    token = NEVER if token is None else token
    started = time.perf_counter()
    yield Progress("preparing", 0.0, model.name)
    tau, M, G, h = yield from compact_job(model, token)
    extras: dict = {"angles_read": exact_angles(model).notes()}
    mats: dict = {}
    if form is not Form.COMPACT:
        token.check()
        try:
            extras["estimated_terms"], _ = check_size(tau, max_terms, model)
        except ExpansionTooLarge as exc:
            if form is Form.CLOSED:
                raise
            form = Form.COMPACT
            # what the window asks about before showing the recursive form instead of a closed one
            extras["too_large"] = (exc.entry, exc.terms, exc.limit)
    if form is not Form.COMPACT:
        closed, too_slow = yield from _within_budget(
            lambda budget: strategy.closed_job(model, TrigRing(exact_angles(model).model), simplify, budget),
            token, form, time_limit)
        if too_slow is not None:
            form = Form.COMPACT
            extras["too_slow"] = too_slow
        else:
            form = Form.CLOSED
            mats, tau, M, G, h, more = closed
            extras.update(more)
    if form is Form.COMPACT:
        from .recursive_form import recursive_form
        extras["recursive"] = recursive_form(model, token)
    extras["seconds"] = time.perf_counter() - started
    yield Progress("done", 1.0, f"{method.value} ({form.value}) in {extras['seconds']:.2f} s")
    return Equations(method=method, model=model, simplify=simplify, matrices=mats, tau=tau,
                     mass_matrix=M, gravity=G, coriolis=h, extras=extras, form=form)


def closed_chain_job(model: Manipulator, method: Method, simplify: SimplifyMode, token: CancelToken,
                     form: Form, nonlinear: bool = True, time_limit: float | None = None,
                     max_terms: int | None = None) -> Job[Equations]:
    """A closed chain: compact, the tree's recursion with the projection as steps (closed_compact.py);
    closed, the closed form of a linear closure (closed_form.py; within ``time_limit`` as a nonlinear one's),
    else (``nonlinear``) the closed form in the actuated joints and named loop quantities (closed_nonlinear.py);
    auto, a closed form where there is one within ``time_limit`` (None: :data:`AUTO_SECONDS`), else the compact form
    (``extras["no_closed_form"]``, ``extras["too_slow"]`` or ``extras["too_large"]`` says why). The
    nonlinear closed form's tau_i may have at most ``max_terms`` terms (counted once derived: no bound
    is known beforehand; closed: ExpansionTooLarge above it). ``nonlinear`` False (code generation): a
    nonlinear loop's closed form is not tried."""
    from ..kinematics.closure import ClosureError
    from .closed_compact import closed_compact_equations_job
    from .closed_form import NotLinearClosure, closed_chain_equations_job
    from .closed_nonlinear import nonlinear_equations_job
    if form is Form.COMPACT:
        return (yield from closed_compact_equations_job(model, method, token))
    try:   # a linear closure's closed form under the same budget as a nonlinear one's (a large one takes minutes)
        eq, too_slow = yield from _within_budget(
            lambda budget: closed_chain_equations_job(model, method, simplify, budget), token, form, time_limit)
    except NotLinearClosure as exc:
        if form is Form.CLOSED and not nonlinear:
            raise
        why = str(exc)
    else:
        if too_slow is None:
            return eq
        eq = yield from closed_compact_equations_job(model, method, token)
        return replace(eq, extras={**eq.extras, "too_slow": too_slow})
    extras: dict = {"no_closed_form": why}
    if nonlinear:
        try:
            eq, too_slow = yield from _within_budget(
                lambda budget: nonlinear_equations_job(model, method, simplify, budget), token, form, time_limit)
        except (DesignerError, ClosureError) as exc:   # loops that do not determine the passive joints
            if form is Form.CLOSED:
                raise
            extras = {"no_closed_form": str(exc)}
        else:
            if too_slow is not None:
                extras = {"too_slow": too_slow}
            else:
                terms = [len(sp.Add.make_args(e)) for e in eq.tau]
                worst = max(range(len(terms)), key=terms.__getitem__)
                if max_terms is None or terms[worst] <= max_terms:
                    return eq
                if form is Form.CLOSED:
                    raise ExpansionTooLarge(f"tau_{worst + 1}", terms[worst], max_terms)
                extras = {"too_large": (f"tau_{worst + 1}", terms[worst], max_terms)}
    eq = yield from closed_compact_equations_job(model, method, token)
    return replace(eq, extras={**eq.extras, **extras})


def _within_budget(make_job: Callable[[CancelToken], Job[Any]], token: CancelToken, form: Form,
                   time_limit: float | None) -> Job[tuple[Any, tuple | None]]:
    """(``make_job(budget)``'s result, None), the budget :data:`AUTO_SECONDS` for auto with ``time_limit``
    None (``math.inf`` or None otherwise: no limit); when it runs out, (None, (seconds, the step reached))
    for auto, a :class:`ClosedFormTooSlow` for closed. A cancel of ``token`` stays a cancel."""
    seconds = AUTO_SECONDS if time_limit is None and form is Form.AUTO else time_limit
    budget = Deadline(token, None if seconds is None or seconds == math.inf else seconds)
    reached: list[Progress] = []
    try:
        return (yield from _watched(make_job(budget), reached, budget)), None
    except Cancelled:
        if token.cancelled or not budget.expired:
            raise
        stage = ", ".join(t for t in (reached[-1].stage, reached[-1].detail) if t) if reached else ""
        if form is Form.CLOSED:
            raise ClosedFormTooSlow(budget.seconds or 0.0, stage) from None
        return None, (budget.seconds, stage)


def _watched(job: Job[Any], reached: list[Progress], budget: CancelToken = NEVER) -> Job[Any]:
    """``job``, keeping its last progress in ``reached`` (the step a time budget stopped it at); each of its steps
    stops within :data:`~designer.jobs.interrupt.POLL` seconds of ``budget`` running out, also inside one ring
    product or list of them with no ``check()`` (a random spatial loop's W numerators ran 400 s past a 20 s
    limit in one step)."""
    from ..jobs.interrupt import interruptible
    while True:
        try:
            with interruptible(budget):
                progress = next(job)
        except StopIteration as stop:
            return stop.value
        reached[:] = [progress]
        yield progress


def derive(model: Manipulator, method: Method = Method.LAGRANGE, simplify: SimplifyMode = SimplifyMode.FAST,
           progress: Callable[[Progress], None] | None = None, token: CancelToken | None = None,
           form: Form = Form.AUTO, max_terms: int | None = AUTO_LIMIT,
           time_limit: float | None = None, loop_quantities: bool = True) -> Equations:
    """Derive the equations of motion of ``model`` (see :func:`derive_job`)."""
    return run(derive_job(model, method, simplify, token, form, max_terms, time_limit, loop_quantities),
               progress, token)


def code_equations_job(model: Manipulator, method: Method = Method.LAGRANGE,
                       simplify: SimplifyMode = SimplifyMode.FAST, form: Form | None = None,
                       need: Collection[str] = ("tau", "M", "G", "h"), token: CancelToken = NEVER,
                       max_terms: int | None = AUTO_LIMIT, time_limit: float | None = None) -> Job[Equations]:
    """The equations generated code is written from. ``form`` None, code's default: a serial arm's compact
    form (:func:`compact_equations_job`, only the graphs ``need`` names), a closed chain's closed form where
    its loops close linearly, else its compact form; a form asked for by name (compact, closed, auto) is
    :func:`derive_job`'s, without named loop quantities."""
    if model.is_serial and form in (None, Form.COMPACT):
        return (yield from compact_equations_job(model, method, token, need))
    return (yield from derive_job(model, method, simplify, token, Form.AUTO if form is None else form, max_terms,
                                  time_limit, loop_quantities=False))


def coriolis_matrix(eq: Equations) -> sp.Matrix:
    """C(q, qd) with h = C qd, in Christoffel form (so dM/dt - 2C is skew-symmetric).

    C_ij = sum_k c_ijk qd_k with the Christoffel symbols c_ijk of M.
    """
    if "coriolis_matrix" in eq.extras:   # a closed chain's, in its actuated coordinates (closed_form.py)
        return eq.extras["coriolis_matrix"]
    model = eq.model
    n = model.n
    stored: Any = eq.extras.get("christoffel")  # (the ring, c_ijk), kept by a Lagrange derivation
    if stored is None:
        from .bodies import arm_frames_job
        from .lagrange import body_jacobians_job, christoffel_job, mass_gravity_job

        def job() -> Job[tuple[TrigRing, list]]:
            tr = TrigRing(model)
            frames = yield from arm_frames_job(model, tr)
            jac = yield from body_jacobians_job(model, tr, frames)
            M_rot, M_tra, _ = yield from mass_gravity_job(model, tr, jac, frames)
            M = [[M_rot[a][b] + M_tra[a][b] for b in range(n)] for a in range(n)]
            c = yield from christoffel_job(model, tr, M)
            return tr, c
        stored = run(job())
    tr, c = stored
    qd = [tr.gens[v] for v in model.qd]
    return sp.Matrix(n, n, lambda i, j: tr.expr(sum((tr.mul(c[i][j][k], qd[k]) for k in range(n)), tr.zero)))


def link_torques_job(model: Manipulator, simplify: SimplifyMode = SimplifyMode.FAST,
                     token: CancelToken | None = None) -> Job[sp.Matrix]:
    """Generator returning Horn's T (sympy n x n): T[i, j] = torque at joint i to move link j.

    Link j's point loads are counted with link j; gravity is included, so the rows sum to tau.
    """
    from .dalembert import link_torques_job as raw_job
    token = NEVER if token is None else token
    tr = TrigRing(model)
    T = yield from raw_job(model, tr, token)
    return (yield from to_matrix_job(model, tr, T, SimplifyMode(simplify), "T", token))


def link_torques(model: Manipulator, simplify: SimplifyMode = SimplifyMode.FAST,
                 progress: Callable[[Progress], None] | None = None, token: CancelToken | None = None) -> sp.Matrix:
    """Horn's per-link torques T (n x n), see :func:`link_torques_job`."""
    return run(link_torques_job(model, simplify, token), progress, token)
