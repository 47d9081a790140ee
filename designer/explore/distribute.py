"""Where explore work runs (local processes, threads, a Dask cluster) and how it is cut into tasks.

A :class:`Compute` names the place; :func:`open_executor` turns it into a
``concurrent.futures`` executor (for Dask, ``Client.get_executor()``: its futures
are ``concurrent.futures`` futures, so one loop serves all three). Dask does the
scheduling, the retries after a lost worker and the data transfer; we only cut
the work into blocks.

:func:`ordered_blocks` is that loop: it submits blocks of items (designs, joint
states) sized from the measured time per item so that each task runs about
``target`` seconds, keeps a bounded number of blocks in flight (memory does not
grow with the number of items), and hands the results to a sink strictly in
item order, so a file written by the sink is always a prefix of the final one.

No Qt, and no Dask import unless a scheduler is asked for.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import DesignerError
from ..jobs import CancelToken, Job, Progress

__all__ = ["Compute", "ComputeError", "SCHEDULER_ENV", "scheduler_from_env", "open_executor", "check_scheduler",
           "ordered_blocks", "timed"]

# the environment variable Dask itself reads for its ``scheduler-address`` setting
SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
TARGET_SECONDS = 1.0      # wanted run time of one task: long against Dask's ~1 ms per task, short for progress
CONNECT_TIMEOUT = 10.0    # seconds to reach a scheduler before saying it cannot be reached


class ComputeError(DesignerError):
    """The place to compute cannot be used (no Dask installed, scheduler unreachable); one line."""


@dataclass(frozen=True)
class Compute:
    """Where to run: ``processes`` (``workers`` local processes), ``threads``, or ``dask`` at ``scheduler``."""

    kind: str = "processes"
    workers: int = 2
    scheduler: str = ""

    def __post_init__(self):
        if self.kind not in ("processes", "threads", "dask"):
            raise ValueError(f"compute kind '{self.kind}': use processes, threads or dask")
        if self.kind != "dask" and self.workers < 1:
            raise ValueError("workers: at least 1")
        if self.kind == "dask" and not self.scheduler.strip():
            raise ValueError("a Dask cluster needs a scheduler address (tcp://HOST:PORT)")

    def describe(self) -> str:
        if self.kind == "dask":
            return f"Dask scheduler {self.scheduler}"
        return f"{self.workers} local {self.kind}"


def scheduler_from_env() -> str:
    """The scheduler address of :data:`SCHEDULER_ENV`, or ''."""
    return os.environ.get(SCHEDULER_ENV, "").strip()


def _ignore_sigint() -> None:
    # Ctrl+C reaches the whole foreground process group: the parent stops the sweep and says so in one
    # line; workers that also raised KeyboardInterrupt would print a traceback each
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _client(address: str, timeout: float | None = None):
    try:
        from distributed import Client
    except ImportError:
        raise ComputeError("a Dask scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
    timeout = timeout or _connect_timeout()
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ComputeError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    except ValueError as exc:   # a malformed address
        raise ComputeError(f"Dask scheduler address '{address}': {exc}") from None


def check_scheduler(address: str, timeout: float | None = None) -> str:
    """Connect to the scheduler and describe its workers (one line); :class:`ComputeError` if unreachable."""
    client = _client(address, timeout)
    try:
        threads = client.nthreads()
        return f"{address}: {len(threads)} worker{'s' if len(threads) != 1 else ''}, " \
               f"{sum(threads.values())} threads"
    finally:
        client.close()


def _connect_timeout() -> float:
    """:data:`CONNECT_TIMEOUT`, or Dask's own connect timeout when that is shorter (a user who set
    ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT`` wants to hear sooner)."""
    import dask.config
    from dask.utils import parse_timedelta
    configured = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect", CONNECT_TIMEOUT), "s")
    return min(CONNECT_TIMEOUT, float(configured or CONNECT_TIMEOUT))


@contextlib.contextmanager
def open_executor(compute: Compute, spawn: bool = False) -> Iterator[tuple[cf.Executor, int]]:
    """(executor, slots): the executor and how many tasks to keep in flight on it (twice its workers).

    ``spawn`` starts local processes fresh instead of forking (a process with a Qt application or other
    threads running must not fork)."""
    if compute.kind == "threads":
        with cf.ThreadPoolExecutor(compute.workers, thread_name_prefix="explore") as threads:
            yield threads, 2 * compute.workers
        return
    if compute.kind == "processes":
        context = multiprocessing.get_context("spawn") if spawn else None
        pool = cf.ProcessPoolExecutor(compute.workers, mp_context=context, initializer=_ignore_sigint)
        try:
            yield pool, 2 * compute.workers
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return
    client = _client(compute.scheduler)
    try:
        threads = sum(client.nthreads().values())
        if threads == 0:
            raise ComputeError(f"the Dask scheduler at {compute.scheduler} has no workers")
        # pure=False: two blocks with equal arguments are still two tasks
        yield client.get_executor(pure=False), 2 * threads
    finally:
        client.close()


_MALLOC_TUNED = False
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3     # mallopt parameters of glibc's malloc.h


def _tune_malloc() -> None:
    """Once per process: let glibc keep freed memory for reuse (up to 64 MiB) instead of returning it.

    A block allocates and frees tens of MiB of numpy temporaries per design. Dask's nannies start workers
    with MALLOC_TRIM_THRESHOLD_=65536, which also pins the mmap threshold at 128 KiB: every such array is
    then mapped, page-faulted and unmapped afresh, +35 % CPU on the PUMA 560 sweep (measured with thread
    CPU time). With these settings a block takes ~20 % less CPU than under glibc's defaults too.
    """
    global _MALLOC_TUNED
    if _MALLOC_TUNED:
        return
    _MALLOC_TUNED = True
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 64 << 20)
    except (OSError, AttributeError):
        pass   # not glibc (musl): its allocator has no such settings


def timed(func: Callable[..., list], *args: Any) -> tuple[list, float]:
    """Run ``func(*args)`` on a worker; return its result and the seconds it took (to size the next blocks)."""
    _tune_malloc()
    t = time.perf_counter()
    out = func(*args)
    return out, time.perf_counter() - t


def ordered_blocks(task: Callable[[int, int], tuple[Callable[..., list], tuple]], total: int,
                   executor: cf.Executor, sink: Callable[[int, list], None], *, slots: int = 4,
                   start: int = 0, block: int | None = None, target: float = TARGET_SECONDS,
                   token: CancelToken | None = None, stage: str = "blocks", unit: str = "items") -> Job[None]:
    """Run items ``start`` .. ``total`` - 1 in blocks; ``sink(first, results)`` sees them in item order.

    ``task(lo, hi)`` gives the function and arguments of the block of items ``lo`` .. ``hi`` - 1; the
    function returns one result per item. ``block`` fixes the block size; without it the first blocks hold
    one item and later ones as many as run in about ``target`` seconds (never so many that fewer than
    ``slots`` blocks are left). Yields progress; cancelling (or closing the job) cancels what has not
    started. At most ``slots`` blocks are in flight or waiting for an earlier one.
    """
    slots = max(1, slots)
    per_item: float | None = None      # measured seconds per item (exponentially smoothed)
    running: dict[cf.Future, tuple[int, int]] = {}
    ready: dict[int, list] = {}         # first item -> results, waiting for the blocks before it
    next_item, written = start, start
    began = time.perf_counter()

    def size() -> int:
        if block:
            return block
        if per_item is None:
            return 1
        left = total - next_item
        return max(1, min(round(target / max(per_item, 1e-6)), -(-left // slots)))

    try:
        yield Progress(stage, (written / total) if total else 1.0, f"{written} of {total} {unit}")
        while written < total:
            while next_item < total and len(running) + len(ready) < slots:
                hi = min(total, next_item + size())
                func, args = task(next_item, hi)
                running[executor.submit(timed, func, *args)] = (next_item, hi)
                next_item = hi
            if token is not None:
                token.check()
            done, _ = cf.wait(running, timeout=0.25, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                lo, hi = running.pop(fut)
                results, seconds = fut.result()
                if len(results) != hi - lo:
                    raise RuntimeError(f"a block of {hi - lo} {unit} returned {len(results)} results")
                rate = seconds / (hi - lo)
                per_item = rate if per_item is None else 0.7 * per_item + 0.3 * rate
                ready[lo] = results
            while written in ready:
                results = ready.pop(written)
                sink(written, results)
                written += len(results)
            if done:
                yield Progress(stage, written / total, f"{written} of {total} {unit} "
                                                       f"({time.perf_counter() - began:.0f} s)")
    finally:
        for fut in running:
            fut.cancel()

