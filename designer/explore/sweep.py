"""Design sweeps: one or two model parameters over ranges, metrics summarised over the workspace.

A sweep is a job (see :mod:`designer.jobs`): a generator that yields
:class:`~designer.jobs.Progress` and returns a :class:`SweepResult`. The
designs are evaluated in blocks on any :class:`concurrent.futures.Executor`:

* default: a ``ProcessPoolExecutor`` with 2 workers (made and shut down here);
* ``ThreadPoolExecutor(...)``: no pickling, useful in the GUI and for small sweeps;
* a Dask cluster: ``Client(...).get_executor()``, whose futures are
  ``concurrent.futures`` futures, so the same call runs there unchanged.

Every design uses the same workspace samples (same seed), so differences between
designs are not sampling noise. The worker function is a plain module-level
function of picklable arguments (the model, numbers, texts).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
import sympy as sp

from ..jobs import CancelToken, Job
from ..kinematics import NumericArm
from ..model.expr import symbol
from ..model.manipulator import Manipulator, MissingParameterError
from ..model.mechanism import actuated_indices
from ..model.parts import link_beams, material_table, parts_of
from .distribute import Compute, open_executor, ordered_blocks
from .metrics import design_ratings
from .maps import Sampling, sample_configurations, summarize
from .joint_names import model_joint_numbers
from .joints import explore_arm
from .metrics import METRICS, MetricError, Ratings, Reduce, evaluate_many, parse_metric

__all__ = ["SweepAxis", "SweepSpec", "SweepResult", "sweep", "sweep_blocks", "pareto_front", "DESIGN_QUANTITIES",
           "evaluate_designs", "ArmFactory", "design_count", "design_values", "better_larger",
           "conflicting_pair", "design_model"]

# design-level quantities every sweep reports beside the metric summaries
DESIGN_QUANTITIES = ("total_mass", "reach")


@dataclass(frozen=True)
class SweepAxis:
    """One swept parameter (a symbol of the model) and its values.

    A material axis (``material[i]``, :meth:`materials`) sweeps the material of part-made link i
    through ``labels``; its values are the materials' indexes in that list.
    """

    name: str
    values: tuple[float, ...]
    labels: tuple[str, ...] = ()

    @classmethod
    def materials(cls, link: int, names: Sequence[str]) -> SweepAxis:
        """The materials ``names`` for the part of link ``link`` (1-based)."""
        return cls(f"material[{link}]", tuple(float(k) for k in range(len(names))), tuple(names))

    @property
    def material_link(self) -> int | None:
        """The link (0-based) of a material axis; None for a parameter."""
        return int(self.name[9:-1]) - 1 if self.labels else None

    @classmethod
    def linspace(cls, name: str, start: float, stop: float, count: int) -> SweepAxis:
        return cls(name, tuple(float(v) for v in np.linspace(start, stop, int(count))))


@dataclass(frozen=True)
class SweepSpec:
    """What to sweep and what to report.

    ``metrics`` are metric texts (``"coupling[1,2]"``); ``stats`` the summaries of
    each over the samples (names of :func:`designer.explore.maps.summarize`).
    """

    axes: tuple[SweepAxis, ...]
    metrics: tuple[str, ...]
    stats: tuple[str, ...] = ("max", "mean")
    samples: int = 1000
    sampling: Sampling = Sampling.SOBOL
    seed: int = 0
    ratings: Ratings | None = None

    def keys(self) -> list[str]:
        """Names of the columns: ``metric:stat`` for each metric and stat, then the design quantities."""
        return [f"{m}:{s}" for m in self.metrics for s in self.stats] + list(DESIGN_QUANTITIES)


@dataclass(frozen=True)
class SweepResult:
    """Per design (grid order, last axis fastest): its parameter values and summaries."""

    spec: SweepSpec
    designs: list[dict[str, float]]                 # swept parameter values
    values: dict[str, np.ndarray]                   # key -> (len(axis1)[, len(axis2)])
    errors: dict[int, str] = field(default_factory=dict)  # design index -> why it has no values

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(a.values) for a in self.spec.axes)

    def column(self, key: str) -> np.ndarray:
        """Values of one key, flat in design order."""
        if key not in self.values:
            raise KeyError(f"no summary '{key}' (have: {', '.join(self.values)})")
        return self.values[key].ravel()

    def rows(self) -> list[dict[str, float]]:
        keys = list(self.values)
        return [{**d, **{k: float(self.values[k].ravel()[i]) for k in keys}} for i, d in enumerate(self.designs)]

    def pareto(self, a: str, b: str, minimize: tuple[bool, bool] = (True, True)) -> np.ndarray:
        """Boolean mask (design order) of the designs no other design beats in both ``a`` and ``b``."""
        return pareto_front(self.column(a), self.column(b), minimize)


def pareto_front(a: ArrayLike, b: ArrayLike, minimize: tuple[bool, bool] = (True, True)) -> np.ndarray:
    """Non-dominated points: no other point is at least as good in both and better in one.

    NaN points are never on the front.
    """
    x = np.asarray(a, float) * (1 if minimize[0] else -1)
    y = np.asarray(b, float) * (1 if minimize[1] else -1)
    ok = np.isfinite(x) & np.isfinite(y)
    front = np.zeros(len(x), bool)
    idx = np.flatnonzero(ok)
    for i in idx:
        others = idx[idx != i]
        dominated = np.any((x[others] <= x[i]) & (y[others] <= y[i]) & ((x[others] < x[i]) | (y[others] < y[i])))
        front[i] = not dominated
    return front


class ArmFactory:
    """The arms the metrics take (:func:`~designer.explore.joints.explore_arm`) for many values of a few
    parameters, fast: the model is resolved once and only the entries of its NumericArm that depend on the
    swept parameters are recomputed (compiled with lambdify). An arm that is not its links' NumericArm (a closed
    chain's, over its actuated joints, whose loops close anew) or whose point masses move with the swept
    parameters is built whole for each design."""

    def __init__(self, model: Manipulator, names: Sequence[str], first: Sequence[float]):
        self.names = list(names)
        self.model = model
        self.base = explore_arm(model, dict(zip(names, first)))
        swept = {symbol(n) for n in names}
        self.loads_swept = any((sp.Tuple(p.mass, *p.position).free_symbols & swept) for p in model.point_masses)
        self.whole = self.loads_swept or not isinstance(self.base, NumericArm)
        self.beams_swept = False
        if self.whole:
            return
        fixed = {k: v for k, v in model.substitutions(require_all=False).items() if k not in swept}
        args = [symbol(n) for n in names]
        self.entries: list[tuple[str, tuple, Callable[..., float]]] = []

        def add(field_name, index, expr):
            if expr.free_symbols & swept:
                self.entries.append((field_name, index, sp.lambdify(args, expr.xreplace(fixed), "math")))
        for i, link in enumerate(model.links):
            for k, e in enumerate((link.a, link.alpha, link.d, link.theta)):
                add("dh", (i, k), e)
            add("mass", (i,), link.mass)
            for k, e in enumerate(link.com):
                add("com", (i, k), e)
            m = link.inertia.matrix()
            for r in range(3):
                for c in range(3):
                    add("inertia", (i, r, c), m[r, c])
            if link.limits is not None:
                for k, e in enumerate(link.limits):
                    add("limits", (i, k), e)
        for k, e in enumerate(model.gravity):
            add("gravity", (k,), e)
        # the beams of part-made links follow the swept dimensions, DH numbers (the segment; the modified
        # convention's runs to the next frame) and tool offset
        shaping: set = set()
        for link in model.links:
            shaping |= sp.Tuple(link.a, link.alpha, link.d, link.theta, *(link.part.expressions() if link.part else ())
                                ).free_symbols
        if model.tool is not None:
            shaping |= sp.Tuple(*model.tool.expressions()).free_symbols
        self.beams_swept = bool(self.base.beams) and bool(shaping & swept)

    def __call__(self, values: Sequence[float]):
        if self.whole:
            return explore_arm(self.model, dict(zip(self.names, values)))
        arrays: dict[str, Any] = {}
        for field_name, index, f in self.entries:
            if field_name not in arrays:
                arrays[field_name] = np.array(getattr(self.base, field_name), dtype=float)
            arrays[field_name][index] = float(f(*values))
        if self.beams_swept:
            arrays["beams"] = link_beams(self.model, dict(zip(self.names, values)))
        return replace(self.base, **arrays)


_FACTORIES_LOCK = threading.Lock()
_FACTORIES: dict[tuple[Manipulator, tuple[str, ...]], ArmFactory] = {}


def arm_factory(model: Manipulator, names: tuple[str, ...], first: tuple[float, ...]) -> ArmFactory:
    """The factory of this model and these names, kept per worker process: compiling the swept entries takes
    ~30 ms (PUMA 560), as long as several designs. The values it was made with do not matter: every entry
    that depends on a swept name is recomputed for each design."""
    key = (model, names)
    with _FACTORIES_LOCK:   # thread pools share the cache
        if key not in _FACTORIES:
            if len(_FACTORIES) >= 4:
                _FACTORIES.pop(next(iter(_FACTORIES)))
            _FACTORIES[key] = ArmFactory(model, names, first)
        return _FACTORIES[key]


def joint_count(model: Manipulator) -> int:
    """The joints the metrics number: every joint of a serial arm, the actuated ones of a closed chain."""
    return len(actuated_indices(model))


def _with_materials(model: Manipulator, spec: SweepSpec, row: Sequence[float]) -> Manipulator:
    """``model`` with the materials a design's material axes pick (each axis' index into its labels)."""
    table = material_table(model)
    links = list(model.links)
    for ax, value in zip(spec.axes, row):
        i = ax.material_link
        if i is not None:
            part = dict(parts_of(model))[i]   # _check_materials: link i has one
            links[i] = replace(links[i], part=replace(part, material=table[ax.labels[int(value)]]))
    return replace(model, links=tuple(links))


def design_model(model: Manipulator, spec: SweepSpec, design: dict[str, float]) -> Manipulator:
    """The model of one design of a sweep of ``model`` (a :attr:`SweepResult.designs` entry): its swept
    parameters' values and the materials its material axes pick."""
    picked = _with_materials(model, spec, [design[ax.name] for ax in spec.axes])
    return picked.with_parameters({ax.name: design[ax.name] for ax in spec.axes if not ax.labels})


def evaluate_designs(model: Manipulator, names: Sequence[str], rows: Sequence[Sequence[float]],
                     spec: SweepSpec) -> list[dict[str, float] | str]:
    """Worker: the summaries of each design (a dict), or a one-line reason it failed (a str)."""
    out: list[dict[str, float] | str] = []
    params = [k for k, ax in enumerate(spec.axes) if not ax.labels]   # the rest are material axes
    try:
        parsed = [parse_metric(m, joint_count(model), model_joint_numbers(model)) for m in spec.metrics]
        factories: dict[tuple, ArmFactory] = {}
    except (MissingParameterError, MetricError, ValueError) as exc:
        return [f"{type(exc).__name__}: {exc}"] * len(rows)
    samples: dict[bytes, np.ndarray] = {}
    for row in rows:
        try:
            picked = tuple(int(row[k]) for k, ax in enumerate(spec.axes) if ax.labels)
            if picked not in factories:   # one factory per combination of materials
                designed = _with_materials(model, spec, row) if picked else model
                factories[picked] = arm_factory(designed, tuple(names[k] for k in params),
                                             tuple(row[k] for k in params))
            arm = factories[picked](tuple(row[k] for k in params))
            key = np.asarray(arm.limits).tobytes()
            if key not in samples:   # the same limits give the same samples
                samples[key] = sample_configurations(arm, spec.samples, spec.sampling, spec.seed)
            q = samples[key]
            values: dict[str, float] = {}
            ratings = design_ratings(model, spec.ratings or Ratings(), {names[k]: row[k] for k in params})   # k2
            for text, v in zip(spec.metrics, evaluate_many(arm, q, parsed, ratings)):
                stats = summarize(v)
                values.update({f"{text}:{s}": stats[s] for s in spec.stats})
            tool = arm.tool_points(q)
            values["total_mass"] = arm.total_mass()
            values["reach"] = float(np.nanmax(np.linalg.norm(tool, axis=1)))
            out.append(values)
        except (MissingParameterError, MetricError, ValueError, np.linalg.LinAlgError) as exc:
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def _check(model: Manipulator, spec: SweepSpec) -> None:
    if not 1 <= len(spec.axes) <= 2:
        raise ValueError("a sweep has one or two parameters")
    used = set(model.symbol_names())
    for ax in spec.axes:
        if ax.labels:
            _check_materials(model, ax)
            continue
        if ax.name not in used:
            raise ValueError(f"parameter '{ax.name}' is not a symbol of the model (symbols: {', '.join(sorted(used))})")
        if not ax.values:
            raise ValueError(f"parameter '{ax.name}': no values to sweep")
    if len({a.name for a in spec.axes}) != len(spec.axes):
        raise ValueError("the two swept parameters must differ")
    bad = [s for s in spec.stats if s not in summarize(np.array([0.0]))]
    if bad:
        raise ValueError(f"unknown statistic(s) {', '.join(bad)} (min, max, mean, std, p05, p50, p95)")
    for m in spec.metrics:
        parse_metric(m, joint_count(model), model_joint_numbers(model))


def _check_materials(model: Manipulator, ax: SweepAxis) -> None:
    i = ax.material_link
    if i is None or not 0 <= i < model.n or model.links[i].part is None:
        raise ValueError(f"{ax.name}: link {'?' if i is None else i + 1} is not made as a part (give it a section "
                         "and a material first)")
    unknown = [name for name in ax.labels if name not in material_table(model)]
    if unknown:
        raise ValueError(f"{ax.name}: unknown material(s) {', '.join(unknown)} (known: "
                         + ", ".join(material_table(model)) + ")")


def design_count(spec: SweepSpec) -> int:
    return int(np.prod([len(a.values) for a in spec.axes]))


def design_values(spec: SweepSpec, lo: int, hi: int) -> list[tuple[float, ...]]:
    """Parameter values of designs ``lo`` .. ``hi`` - 1 in grid order (last axis fastest), made on demand so
    that a sweep of millions of designs never holds the whole grid."""
    shape = tuple(len(a.values) for a in spec.axes)
    idx = np.unravel_index(np.arange(lo, hi), shape)
    return [tuple(a.values[int(k[j])] for a, k in zip(spec.axes, idx)) for j in range(hi - lo)]


def sweep_blocks(model: Manipulator, spec: SweepSpec, executor: cf.Executor,
                 sink: Callable[[int, list[dict[str, float] | str]], None], *, slots: int = 4, start: int = 0,
                 block: int | None = None, token: CancelToken | None = None) -> Job[None]:
    """Designs ``start`` .. of the grid on ``executor``; ``sink(first, results)`` gets them in design order
    (a dict of summaries, or a one-line reason a design has none). See
    :func:`designer.explore.distribute.ordered_blocks` for ``slots`` and ``block``."""
    _check(model, spec)
    names = [a.name for a in spec.axes]

    def task(lo: int, hi: int):
        return evaluate_designs, (model, names, design_values(spec, lo, hi), spec)

    yield from ordered_blocks(task, design_count(spec), executor, sink, slots=slots, start=start, block=block,
                              token=token, stage="sweep", unit="designs")


def sweep(model: Manipulator, spec: SweepSpec, executor: cf.Executor | None = None,
          block: int | None = None, token: CancelToken | None = None, slots: int | None = None) -> Job[SweepResult]:
    """Evaluate every design of the grid of ``spec.axes``; yields progress, returns the result in memory.

    Parameters
    ----------
    executor:
        Where the blocks run; None makes a 2-process pool for this sweep and shuts it down after.
        Pass ``client.get_executor()`` to run on a Dask cluster.
    block:
        Designs per submitted task (default: sized from the measured time so a task runs about a second).
    token:
        Checked between blocks; cancelling stops submitted work that has not started.
    slots:
        Blocks in flight at once (default 8).

    For sweeps too large to hold, :func:`designer.explore.sweep_file.sweep_to_csv` streams rows to a file.
    """
    _check(model, spec)
    total = design_count(spec)
    keys = spec.keys()
    values = {k: np.full(total, np.nan) for k in keys}
    errors: dict[int, str] = {}

    def sink(first: int, results: list) -> None:
        for i, r in enumerate(results, start=first):
            if isinstance(r, str):
                errors[i] = r
            else:
                for k in keys:
                    values[k][i] = r[k]

    with contextlib.ExitStack() as stack:
        if executor is None:
            executor, slots = stack.enter_context(open_executor(Compute("processes", 2)))
        yield from sweep_blocks(model, spec, executor, sink, slots=slots or 8, block=block, token=token)
    names = [a.name for a in spec.axes]
    designs = [dict(zip(names, row)) for row in design_values(spec, 0, total)]
    shape = tuple(len(a.values) for a in spec.axes)
    return SweepResult(spec, designs, {k: v.reshape(shape) for k, v in values.items()}, errors)


def better_larger(key: str) -> bool:
    """Whether a larger value of a sweep key is the better one: the reach, and metrics whose worst case
    is their smallest component (isotropy, dynamic manipulability, inertia ratio, ...)."""
    if key == "reach":
        return True
    if key in DESIGN_QUANTITIES:
        return False
    name = key.partition(":")[0].partition("[")[0].strip()
    metric = METRICS.get(name)
    return metric is not None and metric.reduce is Reduce.MIN


def conflicting_pair(result: SweepResult) -> tuple[str, str]:
    """The two summaries a Pareto view shows first: among the worst cases of the swept metrics, the
    total mass and the reach, the pair with the most non-dominated designs, each optimised in its
    better direction (:func:`better_larger`); pairs with the reach or the mass first on ties.

    A pair that does not conflict has a front of one design (the metric against the total mass
    when only a link length is swept); mass against reach, or peak torque against reach, conflict.
    """
    keys = [k for k in result.values if k.endswith(":max") or k in DESIGN_QUANTITIES]
    best: tuple[int, int, tuple[str, str]] | None = None
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            if a.partition(":")[0] == b.partition(":")[0]:
                continue
            front = int(result.pareto(a, b, (not better_larger(a), not better_larger(b))).sum())
            design = int(a in DESIGN_QUANTITIES) + int(b in DESIGN_QUANTITIES)
            if best is None or (front, design) > best[:2]:
                best = (front, design, (a, b))
    if best is None:
        first = next(iter(result.values))
        return first, first
    return best[2]
