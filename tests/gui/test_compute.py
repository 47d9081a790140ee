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
        qtbot.waitUntil(lambda: "cannot reach" in dialog.status.text(), timeout=120_000)
    assert dialog.result() != QDialog.DialogCode.Accepted and dialog.result_compute.kind == "threads"


def test_a_reachable_scheduler_is_kept(qtbot):
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        dialog = ComputeDialog(Compute("threads", 2))
        qtbot.addWidget(dialog)
        dialog.radio["dask"].setChecked(True)
        dialog.address.setText(cluster.scheduler_address)
        with qtbot.waitSignal(dialog.accepted, timeout=120_000):
            dialog.accept()
        assert dialog.result_compute == Compute("dask", 2, cluster.scheduler_address)
        assert "Connected" in dialog.status.text()


def test_window_sweeps_run_where_the_preference_says():
    model = load_project(robot_path("planar_two_link"))
    spec = SweepSpec((SweepAxis.linspace("m2", 0.5, 2.0, 6),), ("coupling[1,2]",), ("max",), samples=128)
    from designer.gui.explore import jobs
    threads = run(sweep_job(model, spec, CancelToken()))
    try:
        spawned = run(sweep_job(model, spec, CancelToken(), compute=Compute("processes", 2)))
        pool, _ = jobs.kept_executor(Compute("processes", 2))
        pids = set(pool._processes)
        again = run(sweep_job(model, spec, CancelToken(), compute=Compute("processes", 2)))
        assert jobs.kept_executor(Compute("processes", 2))[0] is pool and set(pool._processes) == pids
    finally:
        jobs.close_kept_executor()
    assert np.array_equal(threads.column("coupling[1,2]:max"), spawned.column("coupling[1,2]:max"))
    assert np.array_equal(again.column("coupling[1,2]:max"), spawned.column("coupling[1,2]:max"))
    assert np.all(np.diff(threads.column("coupling[1,2]:max")) > 0)    # a heavier outer link couples more


# -- the Map view honours the preference as sweeps do --------------------------------------------------
@pytest.fixture
def panel(qtbot):
    from designer.gui.explore_panel import ExplorePanel
    from tests.support.arms import six_link
    p = ExplorePanel()
    qtbot.addWidget(p)
    p.set_model(six_link())
    p.set_joint_values(np.array([0.3, 0.6, -1.2, 0.2, 0.4, 0.1]))
    p.picker.set_metric("coupling[2,3]")
    view = p.map_view
    view.joint_x.setCurrentIndex(view.joint_x.findData(2))
    view.joint_y.setCurrentIndex(view.joint_y.findData(3))
    view.steps.setValue(20)
    view.samples.setValue(300)
    yield p
    if p.busy:
        p.cancel()
        qtbot.waitUntil(lambda: not p.busy, timeout=120_000)


def _compute_map(qtbot, panel, timeout=120_000) -> str:
    with qtbot.waitSignal(panel.jobEnded, timeout=timeout) as ended:
        assert panel.map_view.compute() is not None, panel.error_label.text()
    return ended.args[1]


def _expected_map(panel):
    from designer.explore.maps import grid_map, sample_summary
    arm = panel.arm()
    grid = grid_map(arm, "coupling[2,3]", (2, 3), q0=panel.q, steps=20)
    return grid.values, sample_summary(arm, "coupling[2,3]", 300).stats


def test_the_map_runs_on_the_threads_of_the_preference(qtbot, panel, monkeypatch):
    import threading
    from designer.explore import maps
    save_compute(Compute("threads", 3))
    names = []
    block = maps._evaluate_block

    def recording(*args):
        names.append(threading.current_thread().name)
        return block(*args)
    monkeypatch.setattr(maps, "_evaluate_block", recording)
    assert _compute_map(qtbot, panel) == "finished"
    # every state was evaluated in blocks on the preference's pool of three threads
    assert len(names) >= 2 and all(n.startswith("explore") for n in names) and len(set(names)) <= 3
    values, stats = _expected_map(panel)
    np.testing.assert_allclose(panel.map_view.heat.image.image, values, rtol=1e-12, atol=1e-12)
    assert panel.map_view.result.samples.stats == pytest.approx(stats, rel=1e-12)


@pytest.mark.slow
def test_the_map_runs_on_local_processes_kept_between_maps(qtbot, panel):
    from designer.gui.explore import jobs
    compute = Compute("processes", 2)
    save_compute(compute)
    try:
        assert _compute_map(qtbot, panel, timeout=120_000) == "finished"
        values, _ = _expected_map(panel)
        np.testing.assert_allclose(panel.map_view.heat.image.image, values, rtol=1e-12, atol=1e-12)
        pool, _ = jobs.kept_executor(compute)
        pids = set(pool._processes)
        assert len(pids) == 2
        panel.set_joint_values(np.array([0.0, 0.6, -1.2, 0.5, 0.4, 0.1]))
        assert _compute_map(qtbot, panel, timeout=120_000) == "finished"
        # the second map ran on the same two processes: no new start-up
        assert jobs.kept_executor(compute)[0] is pool and set(pool._processes) == pids
        np.testing.assert_allclose(panel.map_view.heat.image.image, _expected_map(panel)[0], rtol=1e-12,
                                   atol=1e-12)
        save_compute(Compute("threads", 2))
        assert _compute_map(qtbot, panel) == "finished"
        jobs.kept_executor(Compute("processes", 1))   # another preference: the old pool is stopped
        assert pool._processes is None or not any(p.is_alive() for p in pool._processes.values())
    finally:
        jobs.close_kept_executor()


def test_an_unreachable_scheduler_keeps_the_old_map_and_says_why(qtbot, panel):
    import dask
    save_compute(Compute("threads", 2))
    assert _compute_map(qtbot, panel) == "finished"
    old, image = panel.map_view.result, panel.map_view.heat.image.image.copy()
    address = f"tcp://127.0.0.1:{_free_port()}"
    save_compute(Compute("dask", 2, address))
    panel.set_joint_values(np.array([0.0, 0.6, -1.2, 0.5, 0.4, 0.1]))
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert _compute_map(qtbot, panel) == "failed"
    message = panel.error_label.text()
    assert message.startswith("Map: cannot reach the Dask scheduler at " + address), message
    assert "\n" not in message
    assert panel.map_view.result is old and np.array_equal(panel.map_view.heat.image.image, image)
