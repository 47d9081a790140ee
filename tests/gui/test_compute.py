"""The Compute preference: kept in QSettings, a scheduler checked before it is kept, sweeps run where it says."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialog

from tests.support import robot_path
from designer.explore.distribute import Compute
from designer.explore.sweep import SweepAxis, SweepSpec
from designer.gui.compute import ComputeButton, ComputeDialog, load_compute, save_compute
from designer.gui.explore.jobs import sweep_job
from designer.jobs import CancelToken, run
from designer.project import load_project

pytestmark = pytest.mark.gui
distributed = pytest.importorskip("distributed")


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def test_the_choice_is_remembered(settings, qtbot):
    assert load_compute(settings) == Compute("threads", 2)      # nothing saved: threads, as before
    save_compute(Compute("dask", 2, "tcp://10.1.2.3:8786"), settings)
    settings.sync()
    assert load_compute(settings) == Compute("dask", 2, "tcp://10.1.2.3:8786")
    settings.setValue("compute/kind", "quantum")
    assert load_compute(settings).kind == "threads"             # a damaged entry falls back
    button = ComputeButton(None, settings)
    qtbot.addWidget(button)
    save_compute(Compute("processes", 3), settings)
    button._label()
    assert "3 local processes" in button.text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_said_and_not_kept(qtbot):
    import dask
    dialog = ComputeDialog(Compute("threads", 2))
    qtbot.addWidget(dialog)
    dialog.radio["dask"].setChecked(True)
    dialog.address.setText("")
    dialog.accept()
    assert "scheduler address" in dialog.status.text() and dialog.result() != QDialog.DialogCode.Accepted
    dialog.address.setText(f"tcp://127.0.0.1:{_free_port()}")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        dialog.accept()
        qtbot.waitUntil(lambda: "cannot reach" in dialog.status.text(), timeout=30_000)
    assert dialog.result() != QDialog.DialogCode.Accepted and dialog.result_compute.kind == "threads"


def test_a_reachable_scheduler_is_kept(qtbot):
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        dialog = ComputeDialog(Compute("threads", 2))
        qtbot.addWidget(dialog)
        dialog.radio["dask"].setChecked(True)
        dialog.address.setText(cluster.scheduler_address)
        with qtbot.waitSignal(dialog.accepted, timeout=30_000):
            dialog.accept()
        assert dialog.result_compute == Compute("dask", 2, cluster.scheduler_address)
        assert "Connected" in dialog.status.text()


def test_window_sweeps_run_where_the_preference_says():
    model = load_project(robot_path("planar_two_link"))
    spec = SweepSpec((SweepAxis.linspace("m2", 0.5, 2.0, 6),), ("coupling[1,2]",), ("max",), samples=128)
    threads = run(sweep_job(model, spec, CancelToken()))
    spawned = run(sweep_job(model, spec, CancelToken(), compute=Compute("processes", 2)))
    assert np.array_equal(threads.column("coupling[1,2]:max"), spawned.column("coupling[1,2]:max"))
    assert np.all(np.diff(threads.column("coupling[1,2]:max")) > 0)    # a heavier outer link couples more
