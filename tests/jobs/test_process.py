"""The worker-process runner without Qt: exact results, cancel by kill, the memory limit, a killed worker."""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time

import pytest
import sympy as sp

from tests.support import process_jobs as pj   # jobs the worker process imports by name
from designer.dynamics import derive
from designer.dynamics.engine import derive_job
from designer.dynamics.results import Method, SimplifyMode
from designer.jobs.process import ProcessJob, ProcessRunner, dumps, loads
from designer.model import Convention, Inertia, JointType, Link, Manipulator, PointMass, symbol

R, P = JointType.REVOLUTE, JointType.PRISMATIC


class Outcome:
    """Collects a ticket's events; ``wait()`` returns the final one."""

    def __init__(self):
        self.events: list[tuple] = []
        self.ended = threading.Event()

    def __call__(self, kind, *payload):
        self.events.append((kind, *payload))
        if kind != "progress":
            self.ended.set()

    def wait(self, timeout: float = 120.0) -> tuple:
        assert self.ended.wait(timeout), f"no end after {timeout} s: {self.events[-3:]}"
        return self.events[-1]

    def progress(self) -> list:
        return [e[1] for e in self.events if e[0] == "progress"]


@pytest.fixture(scope="module")
def runner():
    r = ProcessRunner(memory_limit_mb=0)
    r.warm_up()
    yield r
    r.close()


def gone(pid: int, timeout: float = 60.0) -> bool:   # returns as soon as it is gone
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


def run(runner, spec, timeout=120.0):
    out = Outcome()
    ticket = runner.submit(spec, out)
    return out.wait(timeout), out, ticket


def arms() -> list[Manipulator]:
    """Shapes the window meets: float twists as typed (1.5707963267948966), a twist not a multiple of
    90 degrees, a prismatic joint, modified DH, symbolic lengths and masses, a point load."""
    a2, m2 = symbol("a2"), symbol("m2")
    planar = Manipulator(links=(
        Link(R, a=0.5, alpha=1.5707963267948966, mass=2.0, com=(0.1, 0, 0), inertia=Inertia(0.1, 0.2, 0.3)),
        Link(P, a=a2, alpha=0.7, theta=0.3, mass=m2, com=(0, 0.05, -0.1), inertia=Inertia(0.05, 0.04, 0.03, 0.01)),
        Link(R, a=0.2, alpha=-sp.pi / 2, d=0.1, mass=1.0, com=(0, 0, 0.05), inertia=Inertia(0.01, 0.01, 0.02))),
        name="RPR", gravity=(0, 0, -symbol("g")), parameters={"a2": 0.4, "m2": 1.5, "g": 9.81},
        point_masses=(PointMass(3, 0.4, (0.05, 0, 0)),))
    modified = Manipulator(links=tuple(
        Link(R, a=0.3 * k, alpha=(0, sp.pi / 2, -0.4, sp.pi / 2)[k], d=0.1, mass=1.0 + k, com=(0.05, 0, 0.1),
             inertia=Inertia(0.1, 0.1, 0.05)) for k in range(4)), name="RRRR modified",
        convention=Convention.MODIFIED, gravity=(0, 0, -9.81))
    return [planar, modified]


@pytest.mark.parametrize("method,simplify", [(Method.LAGRANGE, SimplifyMode.FAST),
                                             (Method.NEWTON_EULER, SimplifyMode.FULL),
                                             (Method.DALEMBERT, SimplifyMode.OFF)])
def test_derivation_in_a_worker_equals_the_one_in_process(runner, method, simplify):
    for model in arms():
        end, out, _ = run(runner, ProcessJob(derive_job, (model, method, simplify)))
        assert end[0] == "finished", end
        got, want = end[1], derive(model, method, simplify)
        assert got.model == want.model and got.method is want.method and out.progress()[0].stage == "preparing"
        assert list(got.matrices) == list(want.matrices)
        pairs = [(got.matrices[k], want.matrices[k]) for k in want.matrices]
        pairs += [(getattr(got, k), getattr(want, k)) for k in ("tau", "mass_matrix", "gravity", "coriolis")]
        for a, b in pairs:
            assert a.shape == b.shape
            for x, y in zip(a, b):   # structural equality, node for node, not just mathematical
                assert x == y and sp.srepr(x) == sp.srepr(y)


def test_exact_pickling_keeps_unevaluated_products_and_the_christoffel_ring():
    """sympy's own pickle re-evaluates Mul(2, x + y) into 2x + 2y; ours gives the tree back as it was."""
    x, y = sp.symbols("x y")
    held = sp.Mul(2, x + y, evaluate=False)
    assert pickle.loads(pickle.dumps(held)) != held   # why dumps exists: if this ever holds, it may go
    assert loads(dumps(held)) == held and sp.srepr(loads(dumps(held))) == sp.srepr(held)
    eq = derive(arms()[0], Method.LAGRANGE, SimplifyMode.FAST)
    back = loads(dumps(eq))
    tr, c = eq.extras["christoffel"]
    tr2, c2 = back.extras["christoffel"]
    assert tr2.ring == tr.ring and c2 == c


def test_failure_comes_back_with_the_traceback(runner):
    end, _, _ = run(runner, ProcessJob(pj.failing_job))
    assert end[0] == "failed" and end[1] == "ZeroDivisionError: 1/0 in stage two"
    assert "failing_job" in end[2] and "Traceback" in end[2]


def test_cancel_kills_the_process_and_the_next_job_runs(runner):
    out = Outcome()
    ticket = runner.submit(ProcessJob(pj.sleeping_job, (60,)), out)
    assert ticket.started.wait(60)
    while not out.progress():
        out.ended.wait(0.01)
    pid = ticket.pid
    assert runner.cancel(ticket) and out.events[-1] == ("cancelled",)
    assert not runner.cancel(ticket)   # once only
    assert gone(pid), "killed and reaped"
    end, _, _ = run(runner, ProcessJob(pj.counting_job, (3,)))
    assert end[0] == "finished" and end[1][0] == "done" and end[1][1] != pid


def test_a_worker_killed_from_outside_is_reported_and_the_next_job_runs(runner):
    out = Outcome()
    ticket = runner.submit(ProcessJob(pj.sleeping_job, (60,)), out)
    assert ticket.started.wait(60)
    os.kill(ticket.pid, signal.SIGKILL)
    end = out.wait(30)
    assert end[0] == "failed" and "killed by SIGKILL" in end[1] and "nothing in the window was changed" in end[1]
    end, _, _ = run(runner, ProcessJob(pj.counting_job, (2,)))
    assert end[0] == "finished"


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the address space from /proc")
def test_the_memory_limit_stops_a_job_that_allocates_without_end():
    _, out, _ = run(ProcessRunner(memory_limit_mb=0), ProcessJob(pj.address_space_job))
    base = out.events[-1][1]   # MB of address space a worker has before any work
    limited = ProcessRunner(memory_limit_mb=base + 300)
    end, out, _ = run(limited, ProcessJob(pj.endless_allocation_job))
    assert end[0] == "failed" and "out of memory" in end[1] and f"{base + 300} MB" in end[1], end
    assert out.progress(), "it did allocate for a while"
    end, _, _ = run(limited, ProcessJob(pj.counting_job, (2,)))   # the next job gets a fresh process
    assert end[0] == "finished"
    limited.close()


def test_where_no_worker_process_can_start_jobs_run_in_this_process(monkeypatch):
    from designer.jobs import process

    def cannot(ctx):
        raise OSError("no processes here")
    monkeypatch.setattr(process, "_Child", cannot)
    here = ProcessRunner()
    end, out, _ = run(here, ProcessJob(pj.counting_job, (3,)))
    assert end == ("finished", ("done", os.getpid()))
    assert [p.stage for p in out.progress()] == ["counting"]   # within a stage: at most every 50 ms
    end, _, _ = run(here, ProcessJob(pj.failing_job))
    assert end[0] == "failed" and end[1] == "ZeroDivisionError: 1/0 in stage two"
    out = Outcome()
    ticket = here.submit(ProcessJob(pj.ticking_job), out)
    assert ticket.started.wait(30)
    while not out.progress():
        out.ended.wait(0.01)
    assert here.cancel(ticket) and out.events[-1] == ("cancelled",)
    here.close()


def test_kept_results_are_read_with_the_collector_paused_and_frozen_out_of_it():
    import gc
    keeper = ProcessRunner(memory_limit_mb=0, freeze_results=True)
    before = gc.get_freeze_count()
    try:
        end, _, _ = run(keeper, ProcessJob(pj.counting_job, (2,)))
        assert end[0] == "finished" and gc.isenabled()
        assert gc.get_freeze_count() > before and gc.is_tracked(end[1])
    finally:
        gc.unfreeze()
        keeper.close()
