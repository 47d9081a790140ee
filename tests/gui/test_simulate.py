"""The Simulate tab: a passive fall computed in the worker conserves energy, starts at the pose of
the sliders, and plays back through the sliders into the 3D view."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from designer.project import load_project

from tests.support.held_jobs import hold_jobs

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / "planar_two_link.json"),
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.show()
    return w


def test_a_released_arm_falls_conserving_energy_and_plays_back(qtbot, window):
    panel = window.simulate
    q0 = np.array([0.5, -0.3])
    window.sliders.set_values(q0)
    panel.duration.setValue(1.0)
    with qtbot.waitSignal(panel.finished, timeout=120_000):
        assert panel.run() is not None
    r = panel.result
    np.testing.assert_allclose(r.q[0], q0, atol=1e-12)
    assert r.t[-1] == pytest.approx(1.0)
    assert np.ptp(r.energy) <= 1e-6 * np.abs(r.energy).max()   # no friction, no torque: E is constant
    assert np.abs(r.q[-1] - q0).max() > 0.1                     # and the arm did fall
    # the fall starts downwards: gravity (-y) pulls the first link's angle down from 0.5 rad
    assert r.q[5, 0] < q0[0]
    k = len(r.t) // 2
    panel.scrub.setValue(k)
    np.testing.assert_allclose(window.sliders.values(), r.q[k], atol=1e-9)
    np.testing.assert_allclose(window.arm_view.joint_values(), r.q[k], atol=1e-9)
    panel.speed.setCurrentText("2x")
    panel.set_playing(True)
    qtbot.waitUntil(lambda: not panel.timer.isActive(), timeout=120_000)   # plays to the end and stops
    np.testing.assert_allclose(window.sliders.values(), r.q[-1], atol=1e-9)
    window.document.apply(window.document.model.with_parameter("m2", 3.0), "Set m2")
    assert panel.stale_banner.isVisibleTo(panel)


def _open(qtbot, tmp_path, name: str):
    from designer.gui.main_window import MainWindow
    w = MainWindow(load_project(ROBOTS / f"{name}.json"),
                   settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.show()
    return w


def _run(qtbot, panel):
    with qtbot.waitSignal(panel.finished, timeout=120_000):
        assert panel.run() is not None
    return panel.result


def _pin_tau(arm, q, qd, qdd):
    from tests.support.pin_reference import pin, pin_model
    model = pin_model(arm)
    data = model.createData()
    return np.array([pin.rnea(model, data, a, b, c) for a, b, c in zip(q, qd, qdd)])


def _plotted(plot) -> np.ndarray:
    return np.column_stack([item.getData()[1] for item in plot.listDataItems()])


def test_a_quintic_move_rests_at_both_ends_and_plots_pinocchios_torques(qtbot, tmp_path):
    window = _open(qtbot, tmp_path, "puma560")
    panel = window.simulate
    q0 = np.array([0.1, -0.4, 0.3, 0.2, -0.5, 0.7])
    window.sliders.set_values(q0)
    panel.motion.setCurrentText("quintic move")
    panel.target.setText("30, -45, 20, 0, 60, -90")     # degrees: the PUMA's joints are all revolute
    panel.duration.setValue(1.2)
    r = _run(qtbot, panel)
    q1 = np.radians([30, -45, 20, 0, 60, -90])
    np.testing.assert_allclose(r.q[0], q0, atol=1e-12)
    np.testing.assert_allclose(r.q[-1], q1, atol=1e-12)
    for rates in (r.qd, r.qdd):                          # rest to rest, no jerk at the ends
        np.testing.assert_allclose(rates[[0, -1]], 0.0, atol=1e-12)
    assert r.t[-1] == pytest.approx(1.2)
    mid = len(r.t) // 2                                  # the quintic is point-symmetric about T/2
    np.testing.assert_allclose(r.q[mid] + r.q[-1 - mid], q0 + q1, atol=1e-12)
    # velocity by differences of the plotted q: the quintic's qd is that of its q
    np.testing.assert_allclose(np.gradient(r.q, r.t, axis=0)[1:-1], r.qd[1:-1], atol=2e-2 * np.abs(r.qd).max())
    # the plotted torques are Pinocchio's inverse dynamics at every sampled time
    np.testing.assert_allclose(_plotted(panel.tau_plot), _pin_tau(panel.arm, r.q, r.qd, r.qdd), rtol=1e-8, atol=1e-8)
    # and the energy gained is the torques' work (trapezoidal rule: to a small fraction of it)
    gain = r.energy - r.energy[0]
    assert np.abs(gain - r.work).max() <= 2e-3 * np.abs(r.work).max() + 1e-9
    assert "peak |τ| per joint" in panel.status.text()
    panel.scrub.setValue(len(r.t) - 1)
    np.testing.assert_allclose(window.sliders.values(), q1, atol=1e-9)


def test_a_trajectory_csv_is_driven_with_its_torques_and_bad_files_are_named(qtbot, tmp_path):
    window = _open(qtbot, tmp_path, "scara")
    panel = window.simulate
    n = window.document.model.n
    t = np.linspace(0.0, 2.0, 81)
    w = np.arange(1, n + 1)
    q = 0.05 * np.sin(np.outer(t, w))
    qd = 0.05 * w * np.cos(np.outer(t, w))
    qdd = -0.05 * w**2 * np.sin(np.outer(t, w))
    path = tmp_path / "move.csv"
    header = ["t"] + [f"{p}{i}" for p in ("q", "qd", "qdd") for i in range(1, n + 1)]
    rows = np.column_stack([t, q, qd, qdd])
    path.write_text(",".join(header) + "\n" + "\n".join(",".join(repr(float(v)) for v in row) for row in rows) + "\n")
    panel.motion.setCurrentText("trajectory CSV")
    panel.csv_path.setText(str(path))
    r = _run(qtbot, panel)
    np.testing.assert_allclose(r.q, q, atol=1e-12)
    np.testing.assert_allclose(_plotted(panel.tau_plot), _pin_tau(panel.arm, q, qd, qdd), rtol=1e-8, atol=1e-8)
    before = panel.result
    bad = tmp_path / "bad.csv"
    bad.write_text("t,q1\n0,0\n")
    panel.csv_path.setText(str(bad))
    assert panel.run() is None
    assert str(bad) in panel.status.text() and "Traceback" not in panel.status.text()
    assert panel.result is before                        # the last good motion stays


def test_a_long_fall_shows_progress_as_time_advances_and_cancels(qtbot, tmp_path, monkeypatch):
    window = _open(qtbot, tmp_path, "puma560")
    panel = window.simulate
    window.sliders.set_values(np.array([0.1, -0.4, 0.3, 0.2, -0.5, 0.7]))
    panel.duration.setValue(40.0)      # about a second of integration: several reports on the way
    shown = []
    panel.progress.valueChanged.connect(shown.append)
    r = _run(qtbot, panel)
    # the bar moved through simulated time, step by step, not only at the end
    inside = [v for v in shown if 0 < v < 1000]
    assert len(set(inside)) >= 3 and inside == sorted(inside), shown
    assert shown[-1] == 1000 and r.t[-1] == pytest.approx(40.0)
    # Cancel stops the integration between two of its steps: the run is held after its first step inside the
    # span until it is cancelled (on a loaded machine a 60 s fall had ended before the click landed)
    hold_jobs(monkeypatch)
    panel.duration.setValue(60.0)
    shown.clear()
    assert panel.run() is not None
    qtbot.waitUntil(lambda: any(0 < v < 1000 for v in shown), timeout=120_000)
    assert panel.worker is not None and panel.busy
    with qtbot.waitSignal(panel.worker.signals.cancelled, timeout=120_000):
        panel.cancel_button.click()
    assert panel.status.text() == "Simulation cancelled" and panel.result is r


def test_the_tab_builds_its_plots_when_first_shown_not_with_the_window(qtbot, window):
    """The window's start-up builds no plot of the Simulate tab (it is not the tab shown first); showing it
    builds its three, in the layout."""
    panel = window.simulate
    assert panel._built == {} and len(panel.plots.ci.items) == 0
    window.show()
    qtbot.waitExposed(window)
    window.result_tabs.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: bool(panel._built), timeout=10000)
    assert set(panel.plots.ci.items) == {panel.q_plot, panel.tau_plot, panel.e_plot, panel.legend}
