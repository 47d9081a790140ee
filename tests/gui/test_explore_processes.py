"""Long symbolic jobs of the Explore panel and the Arm menu in the worker process: the Significance view's
operation counts (Cancel at once) and the Identification dialog's base parameters, with the in-process
numbers."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from designer.explore.significance import significance_job
from designer.gui.control_dialogs import IdentificationDialog
from designer.gui.explore_panel import ExplorePanel
from designer.gui.worker import ProcessJobWorker
from designer.jobs import CancelToken, run
from designer.kinematics import NumericArm
from designer.project import load_project
from designer.report.identification import base_parameter_table
from designer.model import Convention
from tests.support.arms import six_link
from tests.support.random_models import random_model
from tests.support.windows import click_answers

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


@pytest.fixture
def panel(qtbot):
    p = ExplorePanel()
    qtbot.addWidget(p)
    p.show()
    yield p
    if p.busy:
        p.cancel()
        qtbot.waitUntil(lambda: not p.busy, timeout=120_000)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_operation_counts_run_in_the_worker_process_and_cancel_at_once(qtbot, panel):
    panel.set_model(six_link())
    panel.ratings_edits["speed"].setText("2")
    panel.ratings_edits["acceleration"].setText("5")
    view = panel.significance_view
    view.samples.setValue(64)
    view.count_ops.setChecked(True)
    stages = []
    panel.jobProgress.connect(lambda step: stages.append(step.stage))
    assert view.run() is not None
    assert isinstance(panel.worker, ProcessJobWorker)
    qtbot.waitUntil(lambda: "operation counts" in stages, timeout=120_000)
    qtbot.wait(300)   # inside the symbolic derivation, where a thread would not see the token
    pid = panel.worker.pid
    at_once, (_, how) = click_answers(qtbot, panel.cancel_button, panel.jobEnded)
    assert how == "cancelled"
    assert at_once, "the panel waited for the worker process before saying cancelled"
    assert not panel.busy and "cancelled" in panel.status_label.text() and view.result is None
    qtbot.waitUntil(lambda: _gone(pid), timeout=120_000)   # the process itself was stopped


def test_significance_from_the_worker_equals_the_in_process_job(qtbot, panel):
    model = load_project(ROBOTS / "planar_two_link.json")
    panel.set_model(model)
    panel.ratings_edits["speed"].setText("2")
    panel.ratings_edits["acceleration"].setText("5")
    view = panel.significance_view
    view.samples.setValue(256)
    view.threshold.setValue(10.0)        # percent: drops some terms, so the simplified model is shorter
    view.count_ops.setChecked(True)
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000) as ended:
        assert view.run() is not None
        assert isinstance(panel.worker, ProcessJobWorker)
    assert ended.args[1] == "finished", panel.error_label.text()
    here = run(significance_job(model, NumericArm.from_model(model), np.full(2, 2.0), np.full(2, 5.0), 0.10, 256,
                                True, CancelToken()))
    got = view.result
    fields = lambda sig: [(t.matrix, t.joint, t.index, t.contribution, t.relative) for t in sig.terms]  # noqa: E731
    assert fields(got.significance) == fields(here.significance)            # every float exactly
    assert np.array_equal([t.share_translation for t in got.significance.terms],
                          [t.share_translation for t in here.significance.terms], equal_nan=True)
    assert np.array_equal(got.significance.reference, here.significance.reference)
    assert all(np.array_equal(got.check[k], here.check[k]) for k in here.check)
    full, simple = got.operations
    assert got.operations == here.operations and 0 < simple < full
    assert f"operations: {full} full, {simple} simplified" in view.summary.text()


def test_base_parameters_come_from_the_worker_process(qtbot):
    model = load_project(ROBOTS / "scara.json")
    dialog = IdentificationDialog(model)
    qtbot.addWidget(dialog)
    assert isinstance(dialog.worker, ProcessJobWorker)
    qtbot.waitUntil(lambda: dialog.bp is not None, timeout=120_000)
    bp, rows = base_parameter_table(model)
    assert dialog.bp.names == bp.names and dialog.bp.formulas == bp.formulas and dialog.bp.rank == bp.rank
    assert [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())] == [r["name"] for r in rows]
    # closed while its job runs (or waits for a process), the dialog's job is stopped and nothing comes back
    other = IdentificationDialog(random_model(np.random.default_rng(3), 7, Convention.STANDARD))
    qtbot.addWidget(other)
    worker = other.worker
    with qtbot.waitSignal(worker.signals.cancelled, timeout=120_000):
        other.reject()
    qtbot.wait(1500)     # longer than the job takes
    assert other.bp is None and other.table.rowCount() == 0
    if worker.pid is not None:
        qtbot.waitUntil(lambda: _gone(worker.pid), timeout=120_000)
