"""Cancel inside one long call: the interruptible block, and significance's operation counts
(one sympy.cse over every entry, which has no place for a token check of its own)."""

from __future__ import annotations

import threading
import time

import pytest
import sympy as sp

from designer.jobs import CancelToken, Cancelled, run
from designer.jobs.interrupt import interruptible
from designer.kinematics import NumericArm
from designer.project import load_project

from tests.support import robot_path

#: a safety net only, never a measure: a block that ignores the cancel spins until this, then fails the test
#: (how fast a cancel lands is printed by benchmarks/bench_cancel.py)
NEVER = 300.0


def test_a_busy_block_stops_when_cancelled():
    token = CancelToken()
    inside = threading.Event()
    threading.Thread(target=lambda: inside.wait(NEVER) and token.cancel(), daemon=True).start()
    start = time.perf_counter()
    spins = 0
    with pytest.raises(Cancelled):
        with interruptible(token):
            while time.perf_counter() - start < NEVER:   # no check of its own
                inside.set()
                spins += 1
                sum(range(100))
    assert spins > 0   # it was running when the cancel came, and the cancel, not the loop, ended it


def test_a_finished_block_leaves_nothing_behind():
    token = CancelToken()
    with interruptible(token):
        x = sum(range(1000))
    assert x == 499500
    token.cancel()            # after the block: nothing may be raised any more
    time.sleep(0.3)
    assert sum(range(10)) == 45
    with pytest.raises(Cancelled):   # a token cancelled before the block stops it at the door
        with interruptible(token):
            pass


def test_cancelled_significance_job_stops_during_the_common_subexpressions(monkeypatch):
    """The CSE stage made to last a minute (sympy.cse run again and again on the real entries):
    a cancel while it runs ends the job within a few seconds, as Cancelled."""
    from designer.explore.significance import significance_job
    model = load_project(robot_path("planar_two_link"))
    arm = NumericArm.from_model(model)
    real = sp.cse
    inside = threading.Event()

    def slow_cse(exprs, *args, **kwargs):
        inside.set()
        start = time.perf_counter()
        while time.perf_counter() - start < NEVER:   # ends only if the cancel does not
            got = real(exprs, *args, **kwargs)
        return got

    monkeypatch.setattr(sp, "cse", slow_cse)
    token = CancelToken()
    outcome: dict = {}

    def job():
        try:
            outcome["result"] = run(significance_job(model, arm, [2.0, 2.0], [5.0, 5.0], 0.1, 64, True, token,
                                                     check=0), None, token)
        except Cancelled:
            outcome["cancelled"] = True

    worker = threading.Thread(target=job, daemon=True)
    worker.start()
    assert inside.wait(NEVER), "the job never reached the operation counts"
    token.cancel()
    worker.join(NEVER)
    assert not worker.is_alive(), "the CSE ran on after the cancel"
    assert "cancelled" in outcome and "result" not in outcome
