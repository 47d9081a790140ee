"""The Explore area's computations as jobs (generators that yield progress and check a cancel token).

The map job (a grid map in chunks of states, with its sample statistics) is the
core's :func:`designer.explore.maps.map_job`, run where the Compute preference says
(:func:`placed_map_job`); the sweep and comparison jobs here wrap core calls for the
window's executor and progress. No Qt here.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import contextlib
import threading
from dataclasses import dataclass
from collections.abc import Iterator, Sequence

import numpy as np

from ...explore.distribute import Compute, open_executor
from ...explore.joints import explore_arm
from ...explore.maps import CHUNK_STATES, MapResult, Sampling, evaluate_chunked, joint_limits, map_job
from ...explore.joint_names import joint_numbers
from ...explore.metrics import Ratings, evaluate, parse_metric
from ...explore.sweep import SweepSpec, sweep
from ...jobs import CancelToken, Job, Progress
from ...kinematics import NumericArm
from ...model import Manipulator

__all__ = ["MapResult", "map_job", "placed_map_job", "kept_executor", "close_kept_executor", "sweep_job",
           "Comparison", "compare_job", "evaluate_chunked", "CHUNK_STATES"]

BLOCK_STATES = 10_000   # workspace states per block of designs in a sweep (~0.5 s for a six-joint arm)


def sweep_job(model: Manipulator, spec: SweepSpec, token: CancelToken, workers: int = 2,
              compute: Compute | None = None) -> Job:
    """The core's design sweep where ``compute`` says (default: ``workers`` threads: no pickling, nothing
    forked from a Qt process), in small blocks so that progress is smooth and a cancel takes effect within
    a block."""
    designs = int(np.prod([len(a.values) for a in spec.axes]))
    if compute is not None and compute.kind != "threads":
        # the kept local processes (spawned, not forked: this process runs Qt) or Dask client; blocks are
        # sized by time
        yield Progress("connecting" if compute.kind == "dask" else "starting", None, compute.describe())
        with _kept(compute) as (executor, slots):
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


class _Kept:
    """The executor of the last Compute preference a map or sweep used, kept open between jobs: spawning
    two local processes took 4-5 s on the development machine against 0.1 s for a 60 x 60 map of the PUMA
    560, and a map that follows the pose is recomputed every quarter second. Dropped when the preference
    changes, when a job finds it broken, and at exit."""

    def __init__(self):
        self.lock = threading.Lock()
        self.compute: Compute | None = None
        self.stack: contextlib.ExitStack | None = None
        self.pair: tuple[cf.Executor, int] | None = None
        atexit.register(self.close)

    def get(self, compute: Compute) -> tuple[cf.Executor, int]:
        with self.lock:
            if self.compute != compute or self.pair is None:
                self._close()
                stack = contextlib.ExitStack()
                # spawned, not forked: this process runs Qt; a scheduler that cannot be reached raises here
                self.pair = stack.enter_context(open_executor(compute, spawn=True))
                self.compute, self.stack = compute, stack
            return self.pair

    def drop(self, compute: Compute) -> None:
        with self.lock:
            if self.compute == compute:
                self._close()

    def close(self) -> None:
        with self.lock:
            self._close()

    def _close(self) -> None:
        stack, self.stack, self.pair, self.compute = self.stack, None, None, None
        if stack is not None:
            try:
                stack.close()
            except Exception:  # noqa: BLE001 - a broken pool or a lost scheduler: it is gone either way
                pass


_KEPT = _Kept()


def kept_executor(compute: Compute) -> tuple[cf.Executor, int]:
    """(executor, slots) of ``compute`` (local processes or a Dask cluster), opened once and kept."""
    return _KEPT.get(compute)


def close_kept_executor() -> None:
    """Stop the kept processes or disconnect from the kept scheduler."""
    _KEPT.close()


@contextlib.contextmanager
def _kept(compute: Compute) -> Iterator[tuple[cf.Executor, int]]:
    executor, slots = kept_executor(compute)
    try:
        yield executor, slots
    except (cf.BrokenExecutor, OSError, TimeoutError, RuntimeError):
        # a worker process died, the pool or the client was shut down, the scheduler went away: the next
        # job starts afresh (a bad metric or pose keeps them)
        _KEPT.drop(compute)
        raise


def placed_map_job(compute: Compute | None, arm: NumericArm, metric: str, joints: tuple[int, int],
                   q0: Sequence[float], steps: int, samples: int, sampling: Sampling, ratings: Ratings | None,
                   token: CancelToken) -> Job[MapResult]:
    """The core's map job on the executor of ``compute`` (None: in the job's own thread): a pool of its
    threads for this job, or the kept local processes or Dask client (:func:`kept_executor`)."""
    if compute is None:
        return (yield from map_job(arm, metric, joints, q0, steps, samples, sampling, ratings, token))
    if compute.kind == "threads":
        threads = cf.ThreadPoolExecutor(max_workers=compute.workers, thread_name_prefix="explore")
        try:
            return (yield from map_job(arm, metric, joints, q0, steps, samples, sampling, ratings, token,
                                       threads, 2 * compute.workers))
        finally:
            threads.shutdown(wait=False, cancel_futures=True)   # a cancelled map's running blocks end alone
    yield Progress("connecting" if compute.kind == "dask" else "starting", None, compute.describe())
    with _kept(compute) as (executor, slots):
        return (yield from map_job(arm, metric, joints, q0, steps, samples, sampling, ratings, token,
                                   executor, slots))


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
    arm_a = explore_arm(model_a)   # a closed chain's ActuatedArm: its actuated joints
    arm_b = explore_arm(model_b)
    if arm_a.n != arm_b.n:
        raise ValueError(f"design A has {arm_a.n} joints and design B {arm_b.n}: compare arms of the same size")
    spec = parse_metric(metric, arm_a.n, joint_numbers(arm_a))   # the picker names A's joints (by links)
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
