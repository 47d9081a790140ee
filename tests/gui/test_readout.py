"""The kinematics read-out under the sliders: the tool position and the Jacobian's condition number,
checked against the planar two-link arm by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from designer.gui.readout import KinematicsReadout, jacobian_condition
from designer.kinematics import NumericArm
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def _planar_condition(L1: float, L2: float, q1: float, q2: float) -> float:
    s1, c1, s12, c12 = np.sin(q1), np.cos(q1), np.sin(q1 + q2), np.cos(q1 + q2)
    J = np.array([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12]])
    s = np.linalg.svd(J, compute_uv=False)
    return s[0] / s[1]


@pytest.mark.parametrize("q", [(0.3, 1.2), (-0.7, 2.5), (1.0, -0.4)])
def test_condition_number_of_the_planar_arm(q):
    model = load_project(ROBOTS / "planar_two_link.json")
    arm = NumericArm.from_model(model)
    p = model.parameter_values
    assert jacobian_condition(arm, q) == pytest.approx(_planar_condition(p["L1"], p["L2"], *q), rel=1e-9)


def test_readout_in_the_window_warns_at_a_stretched_arm(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    model = load_project(ROBOTS / "planar_two_link.json")
    window = MainWindow(model, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.sliders.set_values([0.4, 1.1])
    readout: KinematicsReadout = window.readout
    L1, L2 = model.parameter_values["L1"], model.parameter_values["L2"]
    x, y = L1 * np.cos(0.4) + L2 * np.cos(1.5), L1 * np.sin(0.4) + L2 * np.sin(1.5)
    assert f"{x:.4g}, {y:.4g}" in readout.text() and not readout.near_singular
    window.sliders.set_values([0.4, 0.0])   # stretched out: the arm cannot move along itself
    assert readout.near_singular and "singularity" in readout.text()


def test_moving_the_sliders_does_not_re_lay_out_the_window(qtbot, tmp_path):
    from PySide6.QtCore import QEvent, QObject

    from designer.gui.main_window import MainWindow
    window = MainWindow(load_project(ROBOTS / "puma560.json"),
                        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(100)

    class Counter(QObject):
        resizes = 0

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Resize:
                Counter.resizes += 1
            return False
    counter = Counter()
    window.arm_view.view.installEventFilter(counter)
    for k in range(30):   # read-out texts of different lengths, one line or two
        window.sliders.set_values(np.full(6, 0.05 * k) * (-1) ** k)
        qtbot.wait(5)
    assert Counter.resizes == 0


def test_round_off_reads_zero_in_the_pose_words():
    """Issue 29 item 11: a map caption read "q6 = -9.231e-11" and the read-out "tool (0.4115, 0.1491, 9.129e-18)"."""
    from designer.gui.cells import reading
    assert reading(-9.231e-11) == "0" and reading(9.129e-18) == "0" and reading(-0.0) == "0"
    assert reading(12.345678) == "12.35" and reading(-0.41149) == "-0.4115" and reading(2.5e-4) == "0.00025"


def test_the_readout_writes_a_round_off_coordinate_as_zero(qtbot, tmp_path):
    from designer.gui.main_window import MainWindow
    model = load_project(ROBOTS / "puma560_three_link.json")
    window = MainWindow(model, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.sliders.set_values([0.0, 0.0, 0.0])
    p = NumericArm.from_model(model).tool_pose(np.zeros(3))[:3, 3]
    assert abs(p[2]) < 1e-12   # round-off of a coordinate that is zero
    first = window.readout.text().split("\n")[0]
    assert first.startswith(f"tool ({p[0]:.4g}, {p[1]:.4g}, 0) m"), first
    assert "-0.000" not in first


def test_the_readout_writes_no_negative_zero_in_the_tool_axis(qtbot, tmp_path):
    """The serial palletizer's tool z axis at zero is (0, -1.2e-16, -1): it read "z (0.000, -0.000, -1.000)"."""
    from designer.gui.main_window import MainWindow
    model = load_project(ROBOTS / "palletizer_serial.json")
    window = MainWindow(model, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.sliders.set_values([0.0] * model.n)
    z = NumericArm.from_model(model).tool_pose(np.zeros(model.n))[:3, 2]
    assert z[1] < 0 and abs(z[1]) < 1e-12
    assert "z (0.000, 0.000, -1.000)" in window.readout.text().split("\n")[0]
