"""The Explore area's computations as jobs (generators that yield progress and check a cancel token).

The core's map and sample functions evaluate everything in one call; here the
same arithmetic runs in chunks of states so that the window can show progress
and cancel between chunks. The numbers are the core's: the states are built the
way :func:`designer.explore.maps.grid_map` and
:func:`~designer.explore.maps.sample_summary` build them and evaluated by
:func:`designer.explore.metrics.evaluate`. No Qt here.
"""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np

from ...explore.distribute import Compute, open_executor
from ...explore.maps import GridMap, SampleSummary, Sampling, joint_limits, sample_configurations, summarize
from ...explore.metrics import Ratings, evaluate, parse_metric
from ...explore.sweep import SweepSpec, sweep
from ...jobs import CancelToken, Job, Progress
from ...kinematics import NumericArm
from ...model import Manipulator

__all__ = ["MapResult", "map_job", "sweep_job", "Comparison", "compare_job", "conditions_job",
           "evaluate_chunked", "CHUNK_STATES"]

BLOCK_STATES = 10_000   # workspace states per block of designs in a sweep (~0.5 s for a six-joint arm)
CHUNK_STATES = 256   # states per step: ~5 ms for a six-joint arm (and faster than big blocks: they stay in cache)


def evaluate_chunked(arm: NumericArm, q: np.ndarray, spec, ratings: Ratings | None, token: CancelToken,
                     stage: str, start: float = 0.0, span: float = 1.0) -> Job[np.ndarray]:
    """:func:`evaluate` over ``q`` in chunks, yielding progress from ``start`` to ``start + span``."""
    parts = []
    for s in range(0, len(q), CHUNK_STATES):
        token.check()
        parts.append(evaluate(arm, q[s:s + CHUNK_STATES], spec, ratings))
        done = min(len(q), s + CHUNK_STATES)
        yield Progress(stage, start + span * done / len(q), f"{done} of {len(q)} states")
    return np.concatenate(parts) if parts else np.empty(0)


@dataclass(frozen=True)
class MapResult:
    """A joint-grid map and the metric's statistics over samples within the joint limits."""

    grid: GridMap
    samples: SampleSummary | None


def map_job(arm: NumericArm, metric: str, joints: tuple[int, int], q0: Sequence[float], steps: int,
            samples: int, sampling: Sampling, ratings: Ratings | None, token: CancelToken) -> Job[MapResult]:
    """The metric over joints ``joints`` (1-based) on a ``steps`` x ``steps`` grid, the other joints at
    ``q0``; then, if ``samples`` > 0, its statistics over that many samples."""
    spec = parse_metric(metric, arm.n)
    i, j = joints
    if not (1 <= i <= arm.n and 1 <= j <= arm.n) or i == j:
        raise ValueError(f"pick two different joints from 1 to {arm.n} (got {i} and {j})")
    q0 = np.asarray(q0, float)
    if q0.shape != (arm.n,):
        raise ValueError(f"the pose needs {arm.n} joint values, got {q0.size}")
    lim = joint_limits(arm)
    x = np.linspace(lim[i - 1, 0], lim[i - 1, 1], int(steps))
    y = np.linspace(lim[j - 1, 0], lim[j - 1, 1], int(steps))
    X, Y = np.meshgrid(x, y)
    Q = np.tile(q0, (X.size, 1))
    Q[:, i - 1], Q[:, j - 1] = X.ravel(), Y.ravel()
    span = 0.8 if samples > 0 else 1.0
    yield Progress("map", 0.0, f"{X.size} states")
    values = yield from evaluate_chunked(arm, Q, spec, ratings, token, "map", 0.0, span)
    grid = GridMap(spec.label, (i, j), x, y, values.reshape(Y.shape), q0)
    summary = None
    if samples > 0:
        q = sample_configurations(arm, int(samples), sampling, seed=0)
        v = yield from evaluate_chunked(arm, q, spec, ratings, token, "samples", span, 1.0 - span)
        summary = SampleSummary(spec.label, q, v, summarize(v))
    return MapResult(grid, summary)


def sweep_job(model: Manipulator, spec: SweepSpec, token: CancelToken, workers: int = 2,
              compute: Compute | None = None) -> Job:
    """The core's design sweep where ``compute`` says (default: ``workers`` threads: no pickling, nothing
    forked from a Qt process), in small blocks so that progress is smooth and a cancel takes effect within
    a block."""
    designs = int(np.prod([len(a.values) for a in spec.axes]))
    if compute is not None and compute.kind != "threads":
        # local processes are spawned, not forked (this process runs Qt); blocks are sized by time
        with open_executor(compute, spawn=True) as (executor, slots):
            return (yield from sweep(model, spec, executor, token=token, slots=slots))
    executor = cf.ThreadPoolExecutor(max_workers=compute.workers if compute else workers,
                                     thread_name_prefix="explore-sweep")
    try:
        # blocks of at most ~BLOCK_STATES state evaluations: a cancelled sweep leaves at most that much
        # work running in the pool's threads
        block = max(1, min(designs // 40, BLOCK_STATES // max(1, spec.samples)))
        return (yield from sweep(model, spec, executor, block=block, token=token))
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Comparison:
    """Two designs side by side: the core's comparison rows (:func:`designer.explore.compare.compare`:
    metric, where, A, B, B-A, B/A) and the picked metric against one joint for each design."""

    rows: list[dict]
    curve_joint: int                    # 1-based
    x: np.ndarray
    curve_a: np.ndarray
    curve_b: np.ndarray
    label: str


def compare_job(model_a: Manipulator, model_b: Manipulator, metric: str, joint: int, q: Sequence[float],
                stats: Sequence[str], samples: int, ratings: Ratings | None, token: CancelToken) -> Job[Comparison]:
    """The core's A/B table at the pose ``q`` and over ``samples`` workspace states, and ``metric``
    against joint ``joint`` (1-based) with the other joints at ``q``."""
    from ...explore.compare import compare
    arm_a = NumericArm.from_model(model_a)
    arm_b = NumericArm.from_model(model_b)
    if arm_a.n != arm_b.n:
        raise ValueError(f"design A has {arm_a.n} joints and design B {arm_b.n}: compare arms of the same size")
    spec = parse_metric(metric, arm_a.n)
    yield Progress("compare", None, f"every metric at the pose and over {samples} samples")
    rows = compare(arm_a, arm_b, q, ratings, samples, stats=tuple(stats))
    token.check()
    yield Progress("curves", 0.9, spec.label)
    lim = joint_limits(arm_a)[joint - 1]
    x = np.linspace(lim[0], lim[1], 181)
    Q = np.tile(np.asarray(q, float), (len(x), 1))
    Q[:, joint - 1] = x
    curve_a, curve_b = evaluate(arm_a, Q, spec, ratings), evaluate(arm_b, Q, spec, ratings)
    return Comparison(rows, joint, x, curve_a, curve_b, spec.label)


def conditions_job(model: Manipulator, kind: str, targets, unknowns, token: CancelToken) -> Job:
    """:func:`designer.explore.conditions.find_conditions` as one step (sympy cannot be interrupted;
    a cancel takes effect when it returns)."""
    from ...explore.conditions import find_conditions
    yield Progress("conditions", None, "deriving M and G and solving the coefficient equations")
    result = find_conditions(model, kind, targets or None, unknowns or None)
    token.check()
    return result
