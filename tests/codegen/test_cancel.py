"""Cancel is honoured at every stage of a code generation job (the graph walks, sympy's CSE passes and
the nesting bound all check the token), on the largest arm we promise: seven joints, every length, mass,
COM and inertia entry a symbol. How fast is a benchmark's figure (benchmarks/bench_cancel.py); here the
job must end as cancelled, not run to its end."""

from __future__ import annotations

import threading
import time

import pytest

from tests.support.codegen import generate_job
from designer.dynamics.engine import compact_equations_job
from designer.dynamics.results import Equations
from designer.jobs import Cancelled, CancelToken, run

from tests.support.anyarm_arms import symbolic_arm


@pytest.fixture(scope="module")
def seven() -> Equations:
    return run(compact_equations_job(symbolic_arm(7)))


def _cancel_during(eq: Equations, detail: str, delay: float) -> list[str]:
    """Run the C code job and cancel it ``delay`` s after the step named ``detail`` starts (inside the step's
    long work); the steps seen. The job must end as cancelled (the 7-joint job runs for minutes: the cancel
    comes while it runs)."""
    token = CancelToken()
    seen: list[str] = []
    ended: list[str] = []

    def cancel_later() -> None:
        time.sleep(delay)
        token.cancel()

    def progress(step) -> None:
        seen.append(step.detail)
        if step.detail == detail and len(seen) == seen.index(detail) + 1:
            threading.Thread(target=cancel_later, daemon=True).start()

    def work() -> None:
        try:
            run(generate_job(eq, "c", token=token), progress, token)
            ended.append("finished")
        except Cancelled:
            ended.append("cancelled")
    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(600)   # a safety net, not a measure
    assert ended == ["cancelled"], f"the job was not cancelled during {detail} ({ended}, {seen})"
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("detail", ["tau", "mass_matrix", "gravity"])
def test_cancel_stops_a_seven_joint_codegen_job_inside_each_stage(seven, detail):
    seen = _cancel_during(seven, detail, delay=0.1)
    assert detail in seen
