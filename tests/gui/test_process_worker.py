"""Derivations in a worker process, seen from the window: instant Cancel, the memory limit, a killed
worker, and results equal to the in-process ones."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from tests.support import process_jobs as pj   # jobs the worker process imports by name
from designer.dynamics import derive
from designer.dynamics.results import Method, SimplifyMode
from designer.gui import derivation
from designer.gui.derivation import DerivationPanel
from designer.gui.document import Document
from designer.gui.main_window import MainWindow
from designer.gui.worker import ProcessJobWorker, process_runner, start_job
from designer.jobs.process import ProcessJob
from designer.project import from_dict, load_project
from tests.support.windows import click_answers

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


def make_panel(qtbot, model):
    panel = DerivationPanel(Document(model))
    qtbot.addWidget(panel)
    panel.show()
    return panel


def wait_for_stage(qtbot, panel, prefix: str, timeout_ms: int = 120_000) -> None:
    seen = []
    panel.progressed.connect(lambda p: seen.append(p.stage))
    qtbot.waitUntil(lambda: any(s.startswith(prefix) for s in seen), timeout=timeout_ms)


def test_cancel_during_full_simplification_says_cancelled_at_once(qtbot):
    panel = make_panel(qtbot, load_project(ROBOTS / "puma560.json"))
    panel.set_method(Method.LAGRANGE, SimplifyMode.FULL)
    panel.start()
    assert isinstance(panel.worker, ProcessJobWorker)
    wait_for_stage(qtbot, panel, "simplifying")
    qtbot.wait(300)   # well inside a long sympy step, where a thread would not see the token
    pid = panel.worker.pid
    at_once, _ = click_answers(qtbot, panel.cancel_button, panel.derivationCancelled)
    assert at_once, "the window waited for the worker before saying cancelled"
    assert panel.progress.format() == "cancelled" and panel.derive_button.isEnabled() and not panel.busy

    def gone():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    qtbot.waitUntil(gone, timeout=120_000)   # the process itself was stopped, not left running


def test_endless_allocation_is_stopped_by_the_limit_while_the_window_responds(qtbot, monkeypatch):
    runner = process_runner()
    outcome = []
    start_job(ProcessJob(pj.address_space_job), runner=runner, finished=outcome.append)
    qtbot.waitUntil(lambda: bool(outcome), timeout=120_000)
    limit = outcome[0] + 300   # 300 MB more than a worker has before it starts working
    monkeypatch.setattr(runner, "memory_limit_mb", limit)
    panel = make_panel(qtbot, load_project(ROBOTS / "double_pendulum.json"))
    monkeypatch.setattr(derivation, "process_derive", lambda *args: ProcessJob(pj.endless_allocation_job))
    with qtbot.waitSignal(panel.derivationFailed, timeout=120_000) as failed:
        panel.start()
    message = failed.args[0]
    assert "out of memory" in message and f"{limit} MB" in message
    assert panel.error_box.isVisible() and "out of memory" in panel.error.text()
    # the window's longest block meanwhile is a benchmark figure (benchmarks/bench_gui.py, worst of several runs)


def test_a_worker_killed_mid_derivation_is_reported_and_nothing_is_lost(qtbot, tmp_path):
    window = MainWindow(load_project(ROBOTS / "puma560.json"),
                        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    doc, panel = window.document, window.derivation
    doc.apply(doc.model.with_parameter("a2", 0.5), "Set a2")   # an unsaved edit
    window.autosave()
    model, undo_count = doc.model, doc.undo_stack.count()
    panel.set_method(Method.LAGRANGE, SimplifyMode.FULL)
    panel.start()
    wait_for_stage(qtbot, panel, "simplifying")
    with qtbot.waitSignal(panel.derivationFailed, timeout=120_000) as failed:
        os.kill(panel.worker.pid, signal.SIGKILL)
    assert "killed by SIGKILL" in failed.args[0] and "killed by SIGKILL" in panel.error.text()
    assert doc.model is model and doc.undo_stack.count() == undo_count and doc.dirty
    saved = json.loads(window.recovery.file.read_text(encoding="utf-8"))
    assert from_dict(saved["project"]) == model   # the recovery file has the latest edit

    panel.set_method(Method.NEWTON_EULER, SimplifyMode.FAST)   # the next derivation works
    with qtbot.waitSignal(panel.derivationFinished, timeout=120_000) as done:
        panel.start()
    assert done.args[0].model == model and not panel.error_box.isVisible()


@pytest.mark.parametrize("robot,method,simplify", [("puma560.json", Method.LAGRANGE, SimplifyMode.FAST),
                                                   ("stanford_modified.json", Method.NEWTON_EULER, SimplifyMode.FULL),
                                                   ("scara.json", Method.DALEMBERT, SimplifyMode.OFF)])
def test_a_derivation_in_the_worker_equals_the_in_process_one(qtbot, robot, method, simplify):
    model = load_project(ROBOTS / robot)
    panel = make_panel(qtbot, model)
    panel.set_method(method, simplify)
    with qtbot.waitSignal(panel.derivationFinished, timeout=300_000) as done:
        panel.start()
    got, want = done.args[0], derive(model, method, simplify)
    assert list(got.matrices) == list(want.matrices) and got.model == want.model
    for name in want.matrices:
        assert got.matrices[name] == want.matrices[name], name   # every entry, structurally
    for name in ("tau", "mass_matrix", "gravity", "coriolis"):
        assert getattr(got, name) == getattr(want, name), name
    # the window's result leaves out only the Christoffel cache of coriolis_matrix (never read there)
    assert set(got.extras) == set(want.extras) - {"christoffel"}


def test_the_memory_limit_preference_is_stored_and_applied(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QDialog

    from designer.gui import preferences
    from designer.jobs.process import default_memory_limit_mb
    window = MainWindow(load_project(ROBOTS / "double_pendulum.json"),
                        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    runner = process_runner()
    monkeypatch.setattr(runner, "memory_limit_mb", runner.memory_limit_mb)   # restored afterwards
    assert preferences.memory_limit_mb(window.settings) == default_memory_limit_mb() == runner.memory_limit_mb
    action = next(a for a in window.menuBar().actions()[1].menu().actions() if "memory limit" in a.text())

    def accept(dialog):
        dialog.spin.setValue(1536)
        return QDialog.DialogCode.Accepted
    monkeypatch.setattr(preferences.MemoryLimitDialog, "exec", accept)
    action.trigger()
    assert preferences.memory_limit_mb(window.settings) == 1536 and runner.memory_limit_mb == 1536
    window.settings.setValue(preferences.MEMORY_KEY, "lots")   # a hand-edited settings file
    assert preferences.memory_limit_mb(window.settings) == default_memory_limit_mb()
