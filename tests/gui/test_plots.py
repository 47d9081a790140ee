"""Coupling plots: the curves drawn equal numbers computed independently (Pinocchio, recursive N-E)."""

from __future__ import annotations

import xml.dom.minidom

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from tests.support.arms import six_link
from designer.explore.coupling import Quantity
from designer.kinematics import NumericArm
from designer.numeric import recursive as rec

Q = np.array([0.2, 0.4, -0.7, 0.3, 0.5, -0.2])


@pytest.fixture
def panel(qtbot):
    from designer.gui.coupling_plots import CouplingPanel
    widget = CouplingPanel()
    widget.resize(700, 600)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def test_joint_sweep_curves_equal_pinocchio_crba(panel, qtbot):
    from tests.support.pin_reference import pin, pin_model
    model = six_link()
    panel.set_model(model)
    panel.set_pair(1, 2)  # joints 2 and 3 of the PUMA; q3 swept
    panel.set_joint_values(Q)
    qtbot.waitUntil(lambda: abs(panel.joint_markers[0].value() - np.degrees(Q[2])) < 1e-9, timeout=120_000)
    curves = panel.curve_data()
    x_deg, m23 = curves["M_23"]
    arm = NumericArm.from_model(model)
    pm = pin_model(arm)
    data = pm.createData()
    assert len(x_deg) > 50
    for x, y, normalised in zip(x_deg[::10], m23[::10], curves["M_23/sqrt(M_22 M_33)"][1][::10]):
        q = Q.copy()
        q[2] = np.radians(x)
        M = pin.crba(pm, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        assert y == pytest.approx(M[1, 2], rel=1e-9, abs=1e-12)
        assert normalised == pytest.approx(M[1, 2] / np.sqrt(M[1, 1] * M[2, 2]), rel=1e-9)


def test_coriolis_and_centrifugal_curves_equal_recursive_newton_euler(panel, qtbot):
    model = six_link()
    panel.set_model(model)
    panel.set_pair(0, 2)
    panel.set_joint_values(Q)
    panel.refresh()
    curves = panel.curve_data()
    arm = NumericArm.from_model(model)
    pairs = [(a, b) for a in range(6) for b in range(a + 1, 6)]
    col = pairs.index((0, 2))
    x_deg = curves["B_1,13"][0]
    for k in range(0, len(x_deg), 20):
        q = Q.copy()
        q[2] = np.radians(x_deg[k])
        B, C = rec.coriolis_coefficients(arm, q)
        assert curves["B_1,13"][1][k] == pytest.approx(B[0, col], abs=1e-10)
        assert curves["B_3,13"][1][k] == pytest.approx(B[2, col], abs=1e-10)
        assert curves["C_13"][1][k] == pytest.approx(C[0, 2], abs=1e-10)
        assert curves["C_31"][1][k] == pytest.approx(C[2, 0], abs=1e-10)


def test_parameter_sweep_has_a_curve_per_second_value(panel):
    model = six_link()
    panel.set_model(model)
    panel.set_pair(1, 2)
    panel.set_joint_values(Q)
    panel.set_parameter_sweep("a2", 0.3, 0.6, "m3", [2.0, 6.0], Quantity.COUPLING)
    curves = panel.curve_data()
    assert list(curves) == ["m3 = 2", "m3 = 6"]
    for label, m3 in (("m3 = 2", 2.0), ("m3 = 6", 6.0)):
        x, y = curves[label]
        assert x[0] == pytest.approx(0.3) and x[-1] == pytest.approx(0.6)
        for k in (0, len(x) // 2, len(x) - 1):
            arm = NumericArm.from_model(model, {"a2": x[k], "m3": m3})
            assert y[k] == pytest.approx(rec.mass_matrix(arm, Q)[1, 2], rel=1e-9)


def test_plots_follow_the_sliders_throttled(panel, qtbot):
    panel.set_model(six_link())
    panel.set_pair(1, 2)
    first = panel.curve_data()["M_23"][1].copy()
    for k in range(20):  # a drag: many values in a burst give few recomputations
        panel.set_joint_values(Q * k / 19)
    qtbot.waitUntil(lambda: not np.allclose(panel.curve_data()["M_23"][1], first), timeout=120_000)
    assert panel.joint_markers[0].value() == pytest.approx(np.degrees(Q[2]))


def test_export_png_svg_csv(panel, tmp_path):
    from PySide6.QtGui import QImage
    panel.set_model(six_link())
    panel.set_pair(1, 2)
    panel.export_image(tmp_path / "plot.png")
    panel.export_image(tmp_path / "plot.svg")
    panel.export_csv(tmp_path / "plot.csv")
    image = QImage(str(tmp_path / "plot.png"))
    assert not image.isNull() and image.width() >= 800
    svg = xml.dom.minidom.parse(str(tmp_path / "plot.svg"))
    assert svg.documentElement.tagName == "svg" and svg.getElementsByTagName("path")
    rows = (tmp_path / "plot.csv").read_text().splitlines()
    assert rows[0].startswith("q3 (rad),M_23,") and len(rows) == 1 + 121


def test_model_without_values_shows_a_message(panel):
    from designer.model import Link, Manipulator
    panel.set_model(Manipulator(links=(Link("R", a="L1"), Link("R", a="L2")), parameters={"L1": 1.0}))
    assert panel.status.isVisible() and "L2" in panel.status.text()


def test_coupling_builds_its_plots_on_first_show(qtbot):
    # issue 29: a window whose Coupling tab is never opened never pays for its plots
    from designer.gui.coupling_plots import CouplingPanel
    widget = CouplingPanel()
    qtbot.addWidget(widget)
    widget.set_model(six_link())
    widget.set_joint_values(Q)
    widget.forget_project()
    assert widget.plots_made() == [] and widget.joint_plots.ci.items == {}
    assert widget.parameter_plots.ci.items == {}
    widget.resize(700, 600)
    widget.show()
    qtbot.waitUntil(lambda: bool(widget.curve_data()), timeout=120_000)
    assert len(widget.plots_made()) == 4 and len(widget.joint_plots.ci.items) == 3
    assert "M_12" in widget.curve_data()
