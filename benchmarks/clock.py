"""The one way the benchmarks time a call: the median of its wall-clock times over several runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["median_seconds"]


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    """The median wall-clock time of ``fn()`` over ``runs`` calls, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
