"""The map job the window runs is the core's: chunked, cancellable, and the same numbers as
grid_map and sample_summary called in one go, on random arms of both conventions and mixed joints."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from designer.explore.maps import CHUNK_STATES, Sampling, grid_map, map_job, sample_summary
from designer.jobs import Cancelled, CancelToken, Progress, run
from designer.model import Convention
from tests.support.pin_reference import random_arm


@pytest.mark.parametrize("seed, n, convention", [(1, 3, Convention.STANDARD), (2, 7, Convention.MODIFIED)])
def test_map_job_is_grid_map_and_sample_summary_in_chunks(seed, n, convention):
    rng = np.random.default_rng(seed)
    arm = random_arm(rng, n, convention)
    arm = dataclasses.replace(arm, limits=np.tile([-0.8, 1.1], (n, 1)))   # prismatic joints need limits
    q0 = rng.uniform(-1, 1, n)
    steps: list[Progress] = []
    result = run(map_job(arm, "cond", (1, n), q0, 20, 300, Sampling.SOBOL, None, CancelToken()), steps.append)
    ref = grid_map(arm, "cond", (1, n), q0, 20)
    np.testing.assert_allclose(result.grid.values, ref.values, rtol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(result.grid.x, ref.x)
    np.testing.assert_array_equal(result.grid.q0, q0)
    summary = sample_summary(arm, "cond", 300, Sampling.SOBOL, seed=0)
    np.testing.assert_allclose(result.samples.values, summary.values, rtol=1e-12, equal_nan=True)
    assert result.samples.stats == pytest.approx(summary.stats, rel=1e-12, nan_ok=True)
    fractions = [s.fraction for s in steps if s.fraction is not None]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert len(fractions) >= 400 // CHUNK_STATES + 2   # progress per chunk, not one jump


def test_a_cancelled_map_job_stops_between_chunks():
    arm = random_arm(np.random.default_rng(5), 4, Convention.STANDARD, joints="RRRR")
    token = CancelToken()
    job = map_job(arm, "cond", (1, 2), np.zeros(4), 60, 0, Sampling.SOBOL, None, token)
    next(job)
    next(job)
    token.cancel()
    with pytest.raises(Cancelled):
        next(job)


def test_map_job_on_an_executor_gives_the_same_numbers_with_its_progress_in_order():
    from concurrent.futures import ThreadPoolExecutor
    arm = random_arm(np.random.default_rng(3), 3, Convention.STANDARD, joints="RRR")
    steps: list[Progress] = []
    with ThreadPoolExecutor(2) as pool:
        result = run(map_job(arm, "cond", (1, 2), np.zeros(3), 12, 64, Sampling.SOBOL, None, CancelToken(),
                             executor=pool), steps.append)
    ref = grid_map(arm, "cond", (1, 2), np.zeros(3), 12)
    np.testing.assert_allclose(result.grid.values, ref.values, rtol=1e-12, equal_nan=True)
    summary = sample_summary(arm, "cond", 64, Sampling.SOBOL, seed=0)
    np.testing.assert_allclose(result.samples.values, summary.values, rtol=1e-12, equal_nan=True)
    fractions = [s.fraction for s in steps if s.fraction is not None]
    assert fractions == sorted(fractions) and 0.0 <= fractions[0] and fractions[-1] == pytest.approx(1.0)
    assert {s.stage for s in steps} >= {"map"}
