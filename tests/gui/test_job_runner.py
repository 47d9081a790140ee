"""The shared job line (designer/gui/job_runner.py): both runners, progress, Cancel, failures, replaced jobs."""

from __future__ import annotations

import os
import threading

import pytest

from designer.gui.job_runner import JobRunner, StaleBanner, plain_message
from designer.gui.worker import JobWorker, ProcessJobWorker
from designer.jobs import Progress
from designer.jobs.process import ProcessJob
from tests.support import process_jobs as pj   # jobs the worker process imports by name

pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


def make_runner(qtbot, **options) -> JobRunner:
    runner = JobRunner(**options)
    qtbot.addWidget(runner)
    runner.show()
    return runner


def stepping_job(steps: int, gate: threading.Event | None = None):
    def make(token):
        for k in range(steps):
            if gate is not None:
                gate.wait(5)
            token.check()
            yield Progress("stepping", k / steps, f"step {k + 1}")
        return steps * 10
    return make


def test_a_pool_job_reports_progress_and_its_result(qtbot):
    runner = make_runner(qtbot)
    got, stages = [], []
    runner.progressed.connect(lambda p: stages.append(p.stage))
    gate = threading.Event()   # the job waits for it: busy is seen before the pool thread can finish
    with qtbot.waitSignal(runner.ended, timeout=120_000) as ended:
        worker = runner.start("Count", stepping_job(5, gate), got.append)
        assert isinstance(worker, JobWorker) and runner.busy and runner.cancel_button.isEnabled()
        gate.set()
    assert ended.args == ["Count", "finished"] and got == [50]
    assert stages and set(stages) == {"stepping"}
    assert runner.status.text() == "Count: done" and runner.progress.value() == 1000
    assert not runner.busy and not runner.cancel_button.isEnabled() and not runner.error_box.isVisible()


def test_a_process_job_runs_in_another_process(qtbot):
    runner = make_runner(qtbot, status_line=False)
    got = []
    with qtbot.waitSignal(runner.ended, timeout=120_000) as ended:
        worker = runner.start("Count", ProcessJob(pj.counting_job, (4,)), got.append)
        assert isinstance(worker, ProcessJobWorker)
    assert ended.args == ["Count", "finished"]
    assert got[0][0] == "done" and got[0][1] != os.getpid()
    assert runner.progress.format() == "done" and not runner.status.isVisible()


def test_cancel_stops_a_process_job_and_says_so(qtbot):
    runner = make_runner(qtbot, status_line=False)
    seen, cancelled = [], []
    runner.progressed.connect(seen.append)
    worker = runner.start("Sleep", ProcessJob(pj.sleeping_job, (60,)), lambda r: pytest.fail("finished"),
                          on_cancelled=lambda: cancelled.append(True))
    qtbot.waitUntil(lambda: bool(seen), timeout=120_000)
    with qtbot.waitSignal(runner.ended, timeout=120_000) as ended:
        runner.cancel_button.click()
    assert ended.args == ["Sleep", "cancelled"] and cancelled == [True] and worker.done
    assert runner.progress.format() == "cancelled" and runner.progress.value() == 0


def test_a_failure_is_one_line_without_the_exception_name_of_an_input_mistake(qtbot):
    runner = make_runner(qtbot)
    told = []

    def bad(token):
        yield Progress("checking", 0.5)
        raise ValueError("entry (1, 2) is not a joint of 1..2")

    with qtbot.waitSignal(runner.ended, timeout=120_000) as ended:
        runner.start("Balance", bad, lambda r: pytest.fail("finished"), on_failed=lambda m, d: told.append((m, d)))
    assert ended.args == ["Balance", "failed"]
    assert told[0][0] == "entry (1, 2) is not a joint of 1..2" and "Traceback" in told[0][1]
    assert runner.error_box.isVisible() and "ValueError" not in runner.error.text()
    assert runner.error.text() == "Balance: entry (1, 2) is not a joint of 1..2"
    runner.details_button.click()
    assert runner.details.isVisible() and "ValueError" in runner.details.toPlainText()
    # a programming error keeps its name: it is a bug report, not an input mistake
    with qtbot.waitSignal(runner.ended, timeout=120_000):
        runner.start("Crash", ProcessJob(pj.failing_job), lambda r: None)
    assert "ZeroDivisionError: 1/0 in stage two" in runner.error.text()
    # the next start clears the error
    with qtbot.waitSignal(runner.ended, timeout=120_000):
        runner.start("Count", stepping_job(2), lambda r: None)
    assert not runner.error_box.isVisible()


def test_an_error_in_the_result_handler_is_shown_not_raised(qtbot):
    runner = make_runner(qtbot)

    def show(result):
        raise KeyError("column q7")

    with qtbot.waitSignal(runner.ended, timeout=120_000):
        runner.start("Table", stepping_job(1), show)
    assert runner.error_box.isVisible() and "column q7" in runner.error.text()


def test_a_replaced_job_is_cancelled_and_its_late_events_dropped(qtbot):
    runner = make_runner(qtbot)
    gate = threading.Event()
    first, second, ends = [], [], []
    runner.ended.connect(lambda title, how: ends.append((title, how)))
    old = runner.start("Old", stepping_job(3, gate), first.append)
    new = runner.start("New", stepping_job(2), second.append)
    assert old.token.cancelled and runner.worker is new
    gate.set()
    qtbot.waitUntil(lambda: old.done and ("New", "finished") in ends, timeout=120_000)
    qtbot.wait(50)
    assert first == [] and second == [20] and ends == [("New", "finished")]


def test_hide_when_idle_shows_the_runner_only_while_a_job_runs(qtbot):
    from PySide6.QtWidgets import QWidget
    window = QWidget()
    qtbot.addWidget(window)
    runner = JobRunner(window, hide_when_idle=True, show_errors=False)
    window.show()
    assert not runner.isVisible()
    gate = threading.Event()
    runner.start("Export", stepping_job(2, gate), lambda r: None)
    assert runner.isVisible()
    with qtbot.waitSignal(runner.ended, timeout=120_000):
        gate.set()
    assert not runner.isVisible()


def test_the_stale_banner_names_the_reason_and_the_button():
    banner = StaleBanner()
    banner.set_reason("the model changed", "Run")
    assert not banner.isHidden()
    assert "the model changed" in banner.text() and "Run to update" in banner.text()
    banner.set_reason("")
    assert banner.text() == "" and banner.isHidden()


def test_plain_message():
    assert plain_message("ValueError: entry 3 is empty") == "entry 3 is empty"
    assert plain_message("KeyError: 'x'") == "KeyError: 'x'"
    assert plain_message("no colon here") == "no colon here"


def test_a_destroyed_runner_stops_its_job(qtbot):
    """Closing the window that holds a runner cancels its job (the worker process is stopped)."""
    from PySide6.QtWidgets import QWidget
    window = QWidget()
    runner = JobRunner(window)
    seen = []
    runner.progressed.connect(seen.append)
    worker = runner.start("Sleep", ProcessJob(pj.sleeping_job, (60,)), lambda r: None)
    qtbot.waitUntil(lambda: bool(seen), timeout=120_000)
    assert not worker.token.cancelled
    window.deleteLater()
    qtbot.waitUntil(lambda: worker.token.cancelled, timeout=120_000)
    qtbot.waitUntil(lambda: worker.done, timeout=120_000)
