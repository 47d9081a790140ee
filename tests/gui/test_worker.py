"""Jobs on the thread pool, and the derivation panel built on them."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import sympy as sp

from designer.dynamics.results import Equations, Method, SimplifyMode
from designer.gui.derivation import DerivationPanel
from designer.gui.document import Document
from designer.gui.worker import start_job
from designer.jobs import Progress
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


def counting_job(token, steps=5, result="done"):
    for k in range(steps):
        yield Progress("counting", k / steps, f"step {k + 1}")
        time.sleep(0.01)
    return (result, threading.get_ident())


def endless_job(token):
    k = 0
    while True:
        k += 1
        yield Progress("spinning", None, str(k))
        time.sleep(0.01)


def long_step_job(token):
    """One long step that checks the token itself, as derivations do inside their loops."""
    yield Progress("long step", 0.0)
    while True:
        token.check()
        sum(range(20000))


def failing_job(token):
    yield Progress("about to fail", 0.5)
    raise ZeroDivisionError("1/0 in stage two")


def test_job_runs_in_a_pool_thread_and_reports(qtbot):
    seen, results = [], []   # connected before the job starts: a fast job cannot outrun them
    start_job(counting_job, progress=seen.append, finished=results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=120_000)
    result, thread = results[0]
    assert result == "done" and thread != threading.get_ident()
    qtbot.waitUntil(lambda: len(seen) >= 1)
    assert seen[0].stage == "counting"


@pytest.mark.parametrize("job", [endless_job, long_step_job])
def test_cancel_stops_a_job(qtbot, job):
    finished, seen = [], []
    worker = start_job(job, finished=finished.append, progress=seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=120_000)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=120_000):   # neither job ends by itself
        worker.cancel()
    assert not finished


def test_failure_comes_back_with_details(qtbot):
    failures = []
    start_job(failing_job, failed=lambda *args: failures.append(args))
    qtbot.waitUntil(lambda: bool(failures), timeout=120_000)
    message, details = failures[0]
    assert message == "ZeroDivisionError: 1/0 in stage two"
    assert "failing_job" in details and "Traceback" in details


# -- the derivation panel --------------------------------------------------------------

def fake_equations(model, method, simplify):
    m = sp.Matrix([[sp.Symbol("m1")]])
    return Equations(Method(method), model, SimplifyMode(simplify), {"tau": m}, m, m, m, m)


class FakeDerive:
    """A derivation stand-in: counts calls, yields stages, optionally fails."""

    def __init__(self, fail: str | None = None, steps: int = 4):
        self.calls = 0
        self.fail = fail
        self.steps = steps

    def __call__(self, model, method, simplify, token):
        self.calls += 1
        for k in range(self.steps):
            yield Progress(f"stage {k + 1}", k / self.steps)
            time.sleep(0.01)
        if self.fail:
            raise ValueError(self.fail)
        return fake_equations(model, method, simplify)


@pytest.fixture
def doc():
    return Document(load_project(ROBOTS / "double_pendulum.json"))


def make_panel(qtbot, doc, derive):
    panel = DerivationPanel(doc, derive)
    qtbot.addWidget(panel)
    panel.show()
    return panel


def test_panel_derives_caches_and_marks_stale(qtbot, doc):
    derive = FakeDerive()
    panel = make_panel(qtbot, doc, derive)
    stages = []
    panel.progressed.connect(lambda p: stages.append(p.stage))
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000) as blocker:
        panel.start()
        assert panel.busy and not panel.derive_button.isEnabled() and panel.cancel_button.isEnabled()
    first = blocker.args[0]
    assert first.model == doc.model and stages[0] == "stage 1"
    assert panel.current_equations() == (first, False) and not panel.stale.isVisible()
    assert panel.progress.format() == "done"

    original = doc.model
    doc.apply(original.with_parameter("L1", 2.0), "Set L1")          # an edit: shown equations are stale
    assert panel.current_equations() == (first, True)
    assert panel.stale.isVisible()
    doc.undo_stack.undo()                                             # back to the derived model: fresh again
    assert panel.current_equations() == (first, False) and not panel.stale.isVisible()
    panel.start()                                                      # cached: no new job
    assert derive.calls == 1 and not panel.busy

    panel.set_method(Method.NEWTON_EULER)                              # other settings: stale until derived
    assert panel.current_equations()[1] is True
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000):
        panel.start()
    assert derive.calls == 2 and panel.current_equations()[0].method is Method.NEWTON_EULER
    panel.set_method(Method.LAGRANGE)                                  # reopening is instant
    assert panel.current_equations() == (first, False)


def test_panel_failure_shows_error_and_keeps_working(qtbot, doc):
    panel = make_panel(qtbot, doc, FakeDerive(fail="no value for parameter(s): k"))
    with qtbot.waitSignal(panel.derivationFailed, timeout=120_000):
        panel.start()
    assert panel.error_box.isVisible()
    assert "no value for parameter(s): k" in panel.error.text()
    panel.details_button.setChecked(True)
    assert "ValueError" in panel.details.toPlainText() and panel.details.isVisible()
    assert panel.derive_button.isEnabled() and not panel.busy
    panel.derive = FakeDerive()
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000):
        panel.start()
    assert not panel.error_box.isVisible()


def test_panel_cancel(qtbot, doc):
    panel = make_panel(qtbot, doc, lambda model, method, simplify, token: endless_job(token))
    with qtbot.waitSignal(panel.progressed, timeout=120_000):
        panel.start()
    with qtbot.waitSignal(panel.derivationCancelled, timeout=120_000):
        panel.cancel_button.click()
    assert panel.progress.format() == "cancelled" and panel.derive_button.isEnabled()
    assert panel.current_equations() == (None, False)


def test_real_derivation_in_the_worker(qtbot, doc):
    """The double pendulum by Lagrange: M11 = (m1 + m2) L1^2 + m2 L2^2 + 2 m2 L1 L2 cos q2 + ... (ROBMAT)."""
    panel = make_panel(qtbot, doc, None)
    stages = []
    panel.progressed.connect(lambda p: stages.append(p.stage))
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000) as blocker:
        panel.start()
    eq = blocker.args[0]
    assert stages
    L1, L2, m1, m2 = sp.symbols("L1 L2 m1 m2", real=True)
    q2 = eq.model.q[1]
    expected = (m1 + m2) * L1**2 + m2 * L2**2 + 2 * m2 * L1 * L2 * sp.cos(q2)
    assert sp.simplify(eq.mass_matrix[0, 0] - expected) == 0


def test_real_six_link_derivation_cancels(qtbot):
    """Cancelled while it runs, the derivation ends as cancelled, with no result (how fast:
    benchmarks/bench_cancel.py)."""
    doc = Document(load_project(ROBOTS / "puma560.json"))
    panel = make_panel(qtbot, doc, None)
    panel.set_method(Method.LAGRANGE, SimplifyMode.FULL)
    with qtbot.waitSignal(panel.progressed, timeout=120_000):
        panel.start()
    finished = []
    panel.derivationFinished.connect(finished.append)
    with qtbot.waitSignal(panel.derivationCancelled, timeout=120_000):
        panel.cancel()
    assert not finished
