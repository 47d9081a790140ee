"""The Simulate tab: a passive fall computed in the worker conserves energy, starts at the pose of
the sliders, and plays back through the sliders into the 3D view."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from designer.project import load_project

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
    with qtbot.waitSignal(panel.finished, timeout=60_000):
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
    qtbot.waitUntil(lambda: not panel.timer.isActive(), timeout=10_000)   # plays to the end and stops
    np.testing.assert_allclose(window.sliders.values(), r.q[-1], atol=1e-9)
    window.document.apply(window.document.model.with_parameter("m2", 3.0), "Set m2")
    assert panel.stale_banner.isVisibleTo(panel)
