"""Metrics over the workspace: 2-D joint grids, samples within the joint limits, tool positions.

Everything returns plain arrays (for heat maps, histograms and 3D point
clouds) and is a pure function of a :class:`~designer.kinematics.NumericArm`.
"""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass
from enum import Enum
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..kinematics import NumericArm
from ..jobs import CancelToken, Job, Progress, sub_job
from ..numeric.batch import Batch, batch_frames, own_batch
from ..numeric.engine import arm_dynamics
from .distribute import ordered_blocks
from .joint_names import joint_numbers
from .metrics import ROUNDING, MetricSpec, Ratings, compute, evaluate, parse_metric

__all__ = ["Sampling", "joint_limits", "sample_configurations", "GridMap", "grid_map", "summarize",
           "SampleSummary", "sample_summary", "workspace_map", "variation", "DEFAULT_REVOLUTE_RANGE",
           "grid_states", "states_job", "MapResult", "map_job", "evaluate_chunked", "CHUNK_STATES", "MASS_ONLY",
           "mass_route", "RecursiveMass", "evaluate_states", "grid_axes", "grid_routed", "grid_values", "GRID_ROUTED"]

DEFAULT_REVOLUTE_RANGE = (-np.pi, np.pi)
CHUNK_STATES = 256   # states per step: ~5 ms for a six-joint arm (and faster than big blocks: they stay in cache)
#: states per step when M and G come from the recursive engine (:func:`mass_route`): ~2 ms for a six-joint arm;
#: 256-state steps would spend more on the calls than on the states (45 ms against 13 ms for 40,000 PUMA states)
CHUNK_DIRECT = 2048
#: the metrics that read nothing of a state but M (M^-1) and G (explore/metrics.py's functions of ``b.M``,
#: ``b.M_inv``, ``b.G``); torque_bound too when no rated speeds ask for its Coriolis term
MASS_ONLY = frozenset({"M", "coupling", "inertia_locked", "inertia_free", "inertia_ratio", "cond", "gravity",
                       "gravity_ratio"})


class Sampling(str, Enum):
    SOBOL = "sobol"     # scrambled Sobol sequence (scipy.stats.qmc)
    RANDOM = "random"   # independent uniform draws


def joint_limits(arm: NumericArm) -> np.ndarray:
    """(n, 2) ranges: the model's limits; [-pi, pi] for a revolute joint without; an error for a
    prismatic joint without (no sensible default length)."""
    lim = np.array(arm.limits, float).reshape(arm.n, 2).copy()
    for i in range(arm.n):
        if np.isnan(lim[i]).any():
            if not arm.revolute[i]:
                raise ValueError(f"joint {i + 1} is prismatic and has no limits: give its range in the model")
            lim[i] = DEFAULT_REVOLUTE_RANGE
        if lim[i, 1] < lim[i, 0]:
            raise ValueError(f"joint {i + 1}: lower limit {lim[i, 0]:g} is above upper limit {lim[i, 1]:g}")
    return lim


def sample_configurations(arm: NumericArm, count: int, method: Sampling | str = Sampling.SOBOL,
                          seed: int | None = 0, limits: np.ndarray | None = None) -> np.ndarray:
    """``count`` joint states (count, n) spread uniformly within the limits."""
    if count < 1:
        raise ValueError("sample count must be at least 1")
    lim = joint_limits(arm) if limits is None else np.asarray(limits, float)
    method = Sampling(method)
    if method is Sampling.SOBOL:
        # the first `count` points of a 2^m sequence (random() warns when count is no power of 2)
        m = max(0, int(np.ceil(np.log2(count))))
        from scipy.stats import qmc  # here: scipy.stats takes 1-2 s to import, and every command imported it
        u = qmc.Sobol(d=arm.n, scramble=True, seed=seed).random_base2(m)[:count]
    else:
        u = np.random.default_rng(seed).random((count, arm.n))
    return lim[:, 0] + u * (lim[:, 1] - lim[:, 0])


@dataclass(frozen=True)
class GridMap:
    """values[iy, ix] of a metric with joint ``joints[0]`` at x[ix] and ``joints[1]`` at y[iy]."""

    label: str
    joints: tuple[int, int]   # 1-based
    x: np.ndarray
    y: np.ndarray
    values: np.ndarray
    q0: np.ndarray            # the pose of the other joints (and the current pose to mark)


class RecursiveMass:
    """M and G of many states from a serial arm's generated recursive code (composite rigid bodies and the
    Newton-Euler gravity, :class:`~designer.numeric.engine.ArmDynamics`), under the ``compiled`` interface
    that :class:`~designer.numeric.batch.Batch` takes over M and G with."""

    def __init__(self, arm: NumericArm):
        self.dynamics = arm_dynamics(arm)

    def M_many(self, q: np.ndarray) -> np.ndarray:
        return self.dynamics.M(q)

    def G_many(self, q: np.ndarray) -> np.ndarray:
        return self.dynamics.G(q)


def mass_route(arm: NumericArm, spec: MetricSpec, ratings: Ratings | None = None, compiled=None):
    """Where a map of ``spec`` takes M and G from: ``compiled`` when given; a serial arm's recursive engine
    (:class:`RecursiveMass`) when the metric needs no more than M and G (:data:`MASS_ONLY`), which costs a
    tenth of building M from the bodies' Jacobians (a 200 x 200 PUMA 560 coupling map: about 25 ms against
    180 ms, benchmarks/bench_explore.py) and gives the same M to rounding; None (the Jacobians) otherwise,
    and for a closed chain's arm (its own batch)."""
    if compiled is not None:
        return compiled
    name = spec.metric.name
    wanted = name in MASS_ONLY or (name == "torque_bound" and (ratings is None or ratings.speed is None))
    if not wanted or own_batch(arm):
        return None
    return RecursiveMass(arm)


#: the metrics a joint grid evaluates from M's entries at the grid's own shapes (:func:`grid_values`)
GRID_ROUTED = frozenset({"M", "coupling"})


def grid_routed(arm: NumericArm, spec: MetricSpec, compiled=None) -> bool:
    """Whether a joint grid of ``spec`` goes through :func:`grid_values`: M or coupling of a serial arm without
    ``compiled`` dynamics given."""
    return compiled is None and spec.metric.name in GRID_ROUTED and arm.n > 1 and not own_batch(arm)


def grid_values(arm: NumericArm, spec: MetricSpec, x: np.ndarray, y: np.ndarray, i: int, j: int,
                pose: np.ndarray) -> np.ndarray:
    """``spec`` (:func:`grid_routed`) over the grid of joints ``i`` along ``x`` and ``j`` along ``y`` (0-based),
    the others at ``pose``: values[iy, ix]. The recursive engine's M code runs once on the grid's axes as
    they broadcast, so each entry, and each step of the recursion, is computed at the size of the joints it
    reads: the part that reads neither joint (the links beyond both, and the joints before both) once, what
    reads one of them once per value of that joint, and only what reads both at every grid point. The same
    operations on the same numbers as state by state (the same M to the last bit, and so the same metric),
    with only the entries the metric reads combined: a 200 x 200 PUMA 560 coupling map in a few
    milliseconds (benchmarks/bench_explore.py)."""
    n = arm.n
    q: list = [float(v) for v in pose]
    q[i], q[j] = np.asarray(x, float)[None, :], np.asarray(y, float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = arm_dynamics(arm).vector_function("M")(q)
        at: dict[tuple[int, ...], Any] = {}
        pairs = [(r, c) for r in range(n) for c in range(r, n)]   # M's upper triangle by rows
        for k, (r, c) in enumerate(pairs):
            at[r, c] = at[c, r] = upper[k]
        shape = (len(y), len(x))
        if spec.metric.name == "M":
            if spec.index:
                return np.broadcast_to(at[spec.index], shape).copy()
            return _max_abs_off(at, n, shape)
        diag: list[Any] = [np.asarray(at[k, k], dtype=float) for k in range(n)]
        # a joint that moves nothing (M_ii zero up to rounding) gives NaN, as explore/metrics.py's coupling
        scale = np.abs(diag[0])
        for v in diag[1:]:
            scale = np.maximum(scale, np.abs(v))
        nothing = [v <= ROUNDING * scale for v in diag]
        if spec.index:
            a, b = spec.index
            d = [np.sqrt(np.where(nothing[k], np.nan, diag[k])) for k in (a, b)]
            return np.broadcast_to(at[a, b] / (d[0] * d[1]), shape).copy()
        d = [np.sqrt(v) for v in diag]     # unmasked: each at its own shape; the mask comes at the end
        ratio = {(r, c): at[r, c] / (d[r] * d[c]) for r in range(n) for c in range(r + 1, n)}
        out = _max_abs_off(ratio, n, shape)
        out[np.logical_or.reduce([np.broadcast_to(v, shape) for v in nothing])] = np.nan
        return out


def _max_abs_off(entries: dict, n: int, shape: tuple[int, int]) -> np.ndarray:
    """max over i != j of |entries[i, j]| (the upper triangle's keys suffice: symmetric), at ``shape``; NaN
    where any is NaN (as numpy's max)."""
    pairs = [(r, c) for r in range(n) for c in range(r + 1, n)]
    out = np.abs(np.broadcast_to(entries[pairs[0]], shape))
    for key in pairs[1:]:
        out = np.maximum(out, np.abs(entries[key]))
    return out


def evaluate_states(arm: NumericArm, q: np.ndarray, spec: MetricSpec | str, ratings: Ratings | None = None,
                    compiled=None) -> np.ndarray:
    """:func:`~designer.explore.metrics.evaluate` with M and G from where :func:`mass_route` sends them."""
    spec = parse_metric(spec, arm.n, joint_numbers(arm)) if isinstance(spec, str) else spec
    return evaluate(arm, q, spec, ratings, compiled=mass_route(arm, spec, ratings, compiled))


def grid_map(arm: NumericArm, spec: MetricSpec | str, joints: tuple[int, int], q0: ArrayLike | None = None,
             steps: int | tuple[int, int] = 50, ranges: Sequence[Sequence[float]] | None = None,
             ratings: Ratings | None = None, compiled=None) -> GridMap:
    """A metric over two joints swept on a grid (1-based joint numbers), the rest held at ``q0``.

    ``compiled``: optional compiled dynamics of the same model for M and G; without, :func:`mass_route` picks.
    """
    spec = parse_metric(spec, arm.n, joint_numbers(arm)) if isinstance(spec, str) else spec
    if grid_routed(arm, spec, compiled):
        x, y, i, j, pose = grid_axes(arm, joints, q0, steps, ranges)
        values = grid_values(arm, spec, x, y, i, j, pose)
    else:
        x, y, Q = grid_states(arm, joints, q0, steps, ranges)
        values = evaluate_states(arm, Q, spec, ratings, compiled).reshape(len(y), len(x))
    return GridMap(spec.label, (joints[0], joints[1]), x, y, values,
                   np.zeros(arm.n) if q0 is None else np.asarray(q0, float))


def grid_states(arm: NumericArm, joints: tuple[int, int], q0: ArrayLike | None = None,
                steps: int | tuple[int, int] = 50,
                ranges: Sequence[Sequence[float]] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, Q): the grid of :func:`grid_map`, its states row by row (``y`` slowest), (len(x) len(y), n).
    ``joints`` by their names (:func:`~designer.explore.joint_names.joint_numbers`: 1..n, a closed chain's
    link numbers)."""
    x, y, i, j, pose = grid_axes(arm, joints, q0, steps, ranges)
    X, Y = np.meshgrid(x, y)
    Q: np.ndarray = np.tile(pose, (X.size, 1))
    Q[:, i], Q[:, j] = X.ravel(), Y.ravel()
    return x, y, Q


def grid_axes(arm: NumericArm, joints: tuple[int, int], q0: ArrayLike | None = None,
              steps: int | tuple[int, int] = 50, ranges: Sequence[Sequence[float]] | None = None
              ) -> tuple[np.ndarray, np.ndarray, int, int, np.ndarray]:
    """(x, y, i, j, pose) of :func:`grid_states` without the states: the axes, the two joints' 0-based
    indices and the pose of the others."""
    numbers = joint_numbers(arm)
    if not (joints[0] in numbers and joints[1] in numbers) or joints[0] == joints[1]:
        which = f"numbers from 1 to {arm.n}" if numbers == tuple(range(1, arm.n + 1)) else \
            f"of the joints {', '.join(map(str, numbers))}"
        raise ValueError(f"joints must be two different {which}, got {joints[0]} and {joints[1]}")
    i, j = numbers.index(joints[0]), numbers.index(joints[1])
    pose = np.zeros(arm.n) if q0 is None else np.asarray(q0, float)
    if pose.shape != (arm.n,):
        raise ValueError(f"the pose needs {arm.n} joint values, got {pose.size}")
    lim = joint_limits(arm)
    rx, ry = (lim[i], lim[j]) if ranges is None else (ranges[0], ranges[1])
    nx, ny = (steps, steps) if isinstance(steps, int | float | np.number) else steps
    x, y = np.linspace(rx[0], rx[1], int(nx)), np.linspace(ry[0], ry[1], int(ny))
    return x, y, i, j, pose


def evaluate_chunked(arm: NumericArm, q: np.ndarray, spec: MetricSpec, ratings: Ratings | None,
                     token: CancelToken, stage: str, start: float = 0.0, span: float = 1.0) -> Job[np.ndarray]:
    """:func:`evaluate` over ``q`` in chunks of :data:`CHUNK_STATES` (:data:`CHUNK_DIRECT` on the recursive
    engine's M, :func:`mass_route`), checking ``token`` between them and yielding progress from ``start`` to
    ``start + span``."""
    parts = []
    source = mass_route(arm, spec, ratings)
    chunk = CHUNK_STATES if source is None else CHUNK_DIRECT
    for s in range(0, len(q), chunk):
        token.check()
        parts.append(evaluate(arm, q[s:s + chunk], spec, ratings, compiled=source))
        done = min(len(q), s + chunk)
        yield Progress(stage, start + span * done / len(q), f"{done} of {len(q)} states")
    return np.concatenate(parts) if parts else np.empty(0)


@dataclass(frozen=True)
class MapResult:
    """A joint-grid map and the metric's statistics over samples within the joint limits."""

    grid: GridMap
    samples: SampleSummary | None


def map_job(arm: NumericArm, metric: str, joints: tuple[int, int], q0: Sequence[float], steps: int,
            samples: int, sampling: Sampling, ratings: Ratings | None, token: CancelToken,
            executor: cf.Executor | None = None, slots: int = 4) -> Job[MapResult]:
    """:func:`grid_map` on a ``steps`` x ``steps`` grid then, if ``samples`` > 0, :func:`sample_summary`
    (seed 0) as one job: the same states and numbers, evaluated in chunks with progress and cancel, in
    this thread or, given an ``executor`` (threads, local processes, a Dask cluster), in blocks on it
    (:func:`states_job`)."""
    spec = parse_metric(metric, arm.n, joint_numbers(arm))
    span = 0.8 if samples > 0 else 1.0

    def values_of(q: np.ndarray, stage: str, start: float, part: float) -> Job[np.ndarray]:
        if executor is None:
            return (yield from evaluate_chunked(arm, q, spec, ratings, token, stage, start, part))
        return (yield from sub_job(states_job(arm, q, metric, ratings, executor, slots, token), start, part, stage))

    if grid_routed(arm, spec):   # milliseconds: one step
        x, y, i, j, pose = grid_axes(arm, joints, q0, int(steps))
        yield Progress("map", 0.0, f"{len(x) * len(y)} states")
        token.check()
        values = grid_values(arm, spec, x, y, i, j, pose)
        yield Progress("map", span, f"{len(x) * len(y)} of {len(x) * len(y)} states")
    else:
        x, y, Q = grid_states(arm, joints, q0, int(steps))
        yield Progress("map", 0.0, f"{len(Q)} states")
        values = yield from values_of(Q, "map", 0.0, span)
    grid = GridMap(spec.label, (joints[0], joints[1]), x, y, values.reshape(len(y), len(x)), np.asarray(q0, float))
    summary = None
    if samples > 0:
        q = sample_configurations(arm, int(samples), sampling, seed=0)
        v = yield from values_of(q, "samples", span, 1.0 - span)
        summary = SampleSummary(spec.label, q, v, summarize(v))
    return MapResult(grid, summary)


def _evaluate_block(arm: NumericArm, q: np.ndarray, metric: str, ratings: Ratings | None) -> list[float]:
    return evaluate_states(arm, q, metric, ratings).tolist()


def states_job(arm: NumericArm, q: np.ndarray, metric: str, ratings: Ratings | None, executor: cf.Executor,
               slots: int = 4, token: CancelToken | None = None) -> Job[np.ndarray]:
    """The metric (one number per state) at states ``q`` on ``executor`` (local processes or a Dask
    cluster), in blocks sized to run about a second each; yields progress, returns the values in order."""
    parse_metric(metric, arm.n, joint_numbers(arm))   # a bad metric is named here, not on a worker
    out = np.empty(len(q))

    def task(lo: int, hi: int):
        return _evaluate_block, (arm, q[lo:hi], metric, ratings)

    def sink(first: int, values: list) -> None:
        out[first:first + len(values)] = values

    yield from ordered_blocks(task, len(q), executor, sink, slots=slots, token=token, stage="map", unit="states")
    return out


STATS = ("min", "max", "mean", "std", "p05", "p50", "p95")


def summarize(values: np.ndarray) -> dict[str, float]:
    """Statistics of one number per state, ignoring NaN (min, max, mean, std, 5/50/95th percentiles)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return {k: float("nan") for k in STATS}
    p05, p50, p95 = np.percentile(v, [5, 50, 95])
    return {"min": float(v.min()), "max": float(v.max()), "mean": float(v.mean()), "std": float(v.std()),
            "p05": float(p05), "p50": float(p50), "p95": float(p95)}


@dataclass(frozen=True)
class SampleSummary:
    label: str
    q: np.ndarray        # (N, n) the samples
    values: np.ndarray   # (N,)
    stats: dict[str, float]


def sample_summary(arm: NumericArm, spec: MetricSpec | str, count: int = 1000,
                   method: Sampling | str = Sampling.SOBOL, seed: int | None = 0,
                   ratings: Ratings | None = None) -> SampleSummary:
    """A metric at ``count`` samples within the joint limits, with its statistics."""
    spec = parse_metric(spec, arm.n, joint_numbers(arm)) if isinstance(spec, str) else spec
    q = sample_configurations(arm, count, method, seed)
    values = evaluate_states(arm, q, spec, ratings)
    return SampleSummary(spec.label, q, values, summarize(values))


def workspace_map(arm: NumericArm, spec: MetricSpec | str, count: int = 2000,
                  method: Sampling | str = Sampling.SOBOL, seed: int | None = 0,
                  ratings: Ratings | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(tool points in frame 0 (N, 3), metric values (N,)) at samples within the joint limits (3D plot)."""
    q = sample_configurations(arm, count, method, seed)
    values = evaluate_states(arm, q, spec, ratings)
    return (batch_frames(arm, q)[:, -1] @ arm.tool)[:, :3, 3], values  # tool point


def variation(arm: NumericArm, q: np.ndarray) -> dict[str, np.ndarray]:
    """Each M_ij over the states q: max, min (signed) and ratio = max|M_ij| / min|M_ij| (inf when
    M_ij reaches or crosses zero, nan when it is zero everywhere), all (n, n) arrays, with the
    largest and smallest cond(M)."""
    M = compute(arm, q, "M")
    absM = np.abs(M)
    lo = absM.min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(lo > 0, absM.max(axis=0) / np.where(lo > 0, lo, 1.0), np.inf)
    sign_change = (M.max(axis=0) > 0) & (M.min(axis=0) < 0)
    ratio = np.where(sign_change, np.inf, ratio)
    ratio = np.where(absM.max(axis=0) == 0, np.nan, ratio)   # identically zero: no ratio
    cond = compute(arm, q, "cond")
    return {"max": M.max(axis=0), "min": M.min(axis=0), "ratio": ratio,
            "cond_max": np.array(cond.max()), "cond_min": np.array(cond.min())}


def at_pose(arm: NumericArm, q: Sequence[float]) -> Batch:
    """A one-state batch, for single-configuration tables."""
    return Batch(arm, np.asarray(q, float)[None, :])
