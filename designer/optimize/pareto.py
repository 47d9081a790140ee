"""A Pareto front for two or more objectives: pymoo's NSGA-II over the problem's variables and choices, the
requirements as its constraints, each generation's population evaluated here or on worker processes
(docs/optimize.md).

The continuous variables are scaled to [0, 1]; each discrete choice is one more variable in [0, 1) whose
floor of ``u * len(options)`` picks the option (so crossover and mutation treat it like the others). A
requirement is the constraint ``-margin / |bound| <= 0`` (a NaN value: violated). The front is the
non-dominated set of EVERY feasible design evaluated during the run (an archive, so a good design found early
and lost by the population still counts); without a feasible design it is empty and
``closest`` is the design violating the requirements least.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..explore.distribute import Compute
from ..jobs import Cancelled, CancelToken, Job, Progress
from .problem import Design, OptimizeError, Problem, _violation, check_problem, safe_evaluate

__all__ = ["Objective", "ParetoFront", "pareto_job", "pareto", "non_dominated", "PICKS"]

#: how :meth:`ParetoFront.pick` chooses one design of the front (besides an objective's name: its best)
PICKS = ("ideal",)
_BAD = 1e12     # an objective the model cannot evaluate, for the search


@dataclass(frozen=True)
class Objective:
    """One objective: a quantity (as ``optimize --minimize`` takes it) and its sense."""

    quantity: str
    maximize: bool = False

    @property
    def text(self) -> str:
        return f"{'max' if self.maximize else 'min'} {self.quantity}"


@dataclass(frozen=True)
class ParetoFront:
    """The non-dominated feasible designs: ``designs[i]`` has the objectives ``objectives[i]`` (in the
    quantities' own units and senses, columns in the order of ``names``)."""

    designs: list[Design]
    objectives: np.ndarray          # (n, k)
    names: tuple[str, ...]
    maximize: tuple[bool, ...]
    evaluations: int
    generations: int
    population: int
    method: str
    closest: Design | None = None   # without a feasible design: the one violating the requirements least
    log: list[str] = field(default_factory=list)

    def pick(self, how: str = "ideal") -> int:
        """The index of one design of the front: ``ideal`` the one nearest the ideal point with each objective
        scaled to the front's range (0 its best, 1 its worst); an objective's name: the design best in it."""
        if not self.designs:
            raise OptimizeError("the front is empty: no design meets the requirements")
        sign = np.where(np.array(self.maximize), -1.0, 1.0)
        f = self.objectives * sign
        if how in self.names:
            return int(np.argmin(f[:, self.names.index(how)]))
        if how != "ideal":
            raise OptimizeError(f"--pick {how}: ideal or one of the objectives ({', '.join(self.names)})")
        lo, hi = f.min(axis=0), f.max(axis=0)
        scaled = (f - lo) / np.where(hi > lo, hi - lo, 1.0)
        return int(np.argmin(np.linalg.norm(scaled, axis=1)))


def non_dominated(f: np.ndarray) -> np.ndarray:
    """Indices of the rows of ``f`` (n, k; every column minimized) no other row dominates (no worse in
    every column and better in one); equal rows are all kept."""
    f = np.asarray(f, float)
    keep = []
    for i in range(len(f)):
        dominated = np.all(f <= f[i], axis=1) & np.any(f < f[i], axis=1)
        if not dominated.any():
            keep.append(i)
    return np.array(keep, dtype=int)


# -- evaluation (module-level: it runs on worker processes) ------------------------------------------------
def _decode(problem: Problem, u: np.ndarray) -> tuple[dict[str, float], tuple[str, ...]]:
    n = len(problem.variables)
    values = {v.name: float(v.low + (v.high - v.low) * min(max(x, 0.0), 1.0))
              for v, x in zip(problem.variables, u[:n])}
    picks = tuple(c.options[min(int(x * len(c.options)), len(c.options) - 1) if x > 0 else 0]
                  for c, x in zip(problem.choices, u[n:]))
    return values, picks


def evaluate_rows(problem: Problem, names: tuple[str, ...], rows: Sequence[Sequence[float]]) -> list[Design]:
    """The designs of ``rows`` (points of the unit box), each objective of ``names`` and requirement
    evaluated (:func:`~designer.optimize.problem.safe_evaluate`)."""
    out = []
    models: dict[tuple[str, ...], object] = {}
    from .problem import chosen_model
    for u in rows:
        values, picks = _decode(problem, np.asarray(u, float))
        if picks not in models:
            models[picks] = chosen_model(problem, picks)
        out.append(safe_evaluate(problem, values, picks, models[picks], names))   # type: ignore[arg-type]
    return out


def _fg(problem: Problem, objectives: Sequence[Objective], d: Design) -> tuple[list[float], list[float]]:
    """pymoo's F (minimized) and G (<= 0 holds) of one design."""
    f = [(-v if o.maximize else v) if math.isfinite(v) else _BAD for o, v in zip(objectives, d.objectives)]
    g = [-r.margin(v) / max(abs(r.bound), 1e-12) if math.isfinite(v) else 1e6
         for r, v in zip(problem.requirements, d.quantities)]
    return f, g


def _objectives(objectives: Sequence[str | Objective]) -> tuple[Objective, ...]:
    out = tuple(o if isinstance(o, Objective) else Objective(str(o)) for o in objectives)
    if len(out) < 2:
        raise OptimizeError("a Pareto front needs two or more objectives (one: optimize's single-objective run)")
    if len({o.quantity.strip() for o in out}) != len(out):
        raise OptimizeError("an objective is given twice")
    return out


def pareto_job(problem: Problem, objectives: Sequence[str | Objective], population: int = 40,
               generations: int = 30, seed: int = 0, workers: int | None = None, token: CancelToken | None = None,
               spawn: bool = False, compute: Compute | None = None) -> Job[ParetoFront]:
    """The Pareto front of ``objectives`` (quantities, minimized, or :class:`Objective`) over ``problem``'s
    variables and choices under its requirements (``problem.objective`` and ``maximize`` are not used), as a
    job (:mod:`designer.jobs`): a :class:`~designer.jobs.Progress` of stage ``pareto`` after each generation
    (on workers also ``population`` ones as its blocks come back), the :class:`ParetoFront` returned.

    ``workers``: None evaluates each population in this process; N >= 1 on N worker processes (``spawn``:
    started fresh, for a process running Qt). ``compute`` (instead): local processes, threads or the Dask
    cluster ``explore sweep`` uses (:class:`~designer.explore.distribute.Compute`).
    Cancelling ``token`` (or closing the job) stops at the next
    block of designs and cancels the blocks not started (:class:`~designer.jobs.Cancelled`)."""
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.evaluator import Evaluator
    from pymoo.core.problem import Problem as MooProblem
    from pymoo.problems.static import StaticProblem

    objs = _objectives(objectives)
    if population < 4 or generations < 1:
        raise OptimizeError("a population of at least 4 and at least one generation")
    names = tuple(o.quantity.strip() for o in objs)
    check_problem(replace(problem, objective=names[0]))
    for name in names[1:]:   # each objective evaluable, named before any work
        check_problem(replace(problem, objective=name))
    n_var = len(problem.variables) + len(problem.choices)
    moo = MooProblem(n_var=n_var, n_obj=len(objs), n_ieq_constr=len(problem.requirements), xl=0.0, xu=1.0)
    algorithm = NSGA2(pop_size=population, sampling=_first_population(n_var, population, seed),
                      eliminate_duplicates=True)
    algorithm.setup(moo, termination=("n_gen", generations), seed=seed, verbose=False)
    archive: list[Design] = []
    log: list[str] = []
    yield Progress("pareto", 0.0, f"NSGA-II: population {population}, {generations} generations")

    with contextlib.ExitStack() as stack:
        executor = slots = None
        if compute is None and workers is not None:
            compute = Compute("processes", int(workers))
        if compute is not None:
            from ..explore.distribute import open_executor
            executor, slots = stack.enter_context(open_executor(compute, spawn=spawn))
        gen = 0
        try:
            while algorithm.has_next():
                if token is not None:
                    token.check()
                pop = algorithm.ask()
                rows = [list(map(float, x)) for x in pop.get("X")]
                if executor is None:
                    designs = []
                    for row in rows:
                        if token is not None:
                            token.check()
                        designs.extend(evaluate_rows(problem, names, [row]))
                else:
                    designs = yield from _on_workers(problem, names, rows, executor, slots or 2, token,
                                                     gen, generations)
                archive.extend(designs)
                fg = [_fg(problem, objs, d) for d in designs]
                F = np.array([f for f, _ in fg], float)
                G = np.array([g for _, g in fg], float).reshape(len(designs), len(problem.requirements))
                Evaluator().eval(StaticProblem(moo, F=F, G=G), pop)
                algorithm.tell(infills=pop)
                gen += 1
                feasible = sum(d.feasible for d in designs)
                line = f"generation {gen}: {feasible} of {len(designs)} feasible, {len(archive)} evaluations"
                log.append(line)
                yield Progress("pareto", gen / generations, line)
        except KeyboardInterrupt:
            raise Cancelled("cancelled") from None
    return _front(problem, objs, names, archive, gen, population, log, compute)


def _first_population(n_var: int, population: int, seed: int) -> np.ndarray:
    """The first generation: the box's corners (when they are at most half the population; a front often ends
    on the box's edges, which random points only come near) and seeded random points."""
    rng = np.random.default_rng(seed)
    corners = np.array(list(itertools.product((0.0, 1.0), repeat=n_var))) if 2**n_var <= population // 2 \
        else np.empty((0, n_var))
    return np.vstack([corners, rng.random((population - len(corners), n_var))])


def _on_workers(problem: Problem, names: tuple[str, ...], rows: list[list[float]], executor: cf.Executor,
                slots: int, token: CancelToken | None, gen: int, generations: int) -> Job[list[Design]]:
    """One population on the executor, in blocks (:func:`designer.explore.distribute.ordered_blocks`)."""
    from ..explore.distribute import ordered_blocks
    out: list[Design] = []
    block = max(1, -(-len(rows) // slots))
    for step in ordered_blocks(lambda lo, hi: (evaluate_rows, (problem, names, rows[lo:hi])), len(rows), executor,
                               lambda first, results: out.extend(results), slots=slots, block=block, token=token,
                               stage="pareto", unit="designs"):
        yield Progress("population", (gen + (step.fraction or 0.0)) / generations,
                       f"generation {gen + 1}: {step.detail}")
    return out


def _front(problem: Problem, objs: tuple[Objective, ...], names: tuple[str, ...], archive: list[Design],
           generations: int, population: int, log: list[str], compute: Compute | None) -> ParetoFront:
    sign = np.array([-1.0 if o.maximize else 1.0 for o in objs])
    feasible = [d for d in archive if d.feasible]
    seen: set[tuple] = set()
    unique = []
    for d in feasible:
        key = (tuple(round(v, 12) for v in d.values.values()), d.picks)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    designs: list[Design] = []
    if unique:   # each evaluated afresh at its own values already (no cache): not evaluated again
        f = np.array([d.objectives for d in unique]) * sign
        designs = [unique[i] for i in non_dominated(f)]
    closest = None
    if not designs and archive:
        closest = min(archive, key=lambda d: _violation(problem, d))
    objectives = np.array([d.objectives for d in designs], float).reshape(len(designs), len(names))
    order = np.lexsort(objectives.T[::-1]) if len(designs) else np.array([], int)
    where = "in this process" if compute is None else f"on {compute.describe()}"
    return ParetoFront([designs[i] for i in order], objectives[order], names, tuple(o.maximize for o in objs),
                       len(archive), generations, population,
                       f"NSGA-II (pymoo), the requirements as constraints, populations evaluated {where}; "
                       "the front: the non-dominated feasible designs of every evaluation",
                       closest, log)


def pareto(problem: Problem, objectives: Sequence[str | Objective], population: int = 40, generations: int = 30,
           seed: int = 0, workers: int | None = None, progress=None, token: CancelToken | None = None,
           compute: Compute | None = None) -> ParetoFront:
    """:func:`pareto_job` run to its end here (``progress`` gets each :class:`~designer.jobs.Progress`)."""
    from ..jobs import run
    return run(pareto_job(problem, objectives, population, generations, seed, workers, token, compute=compute),
               progress, token)
