"""Units in the tables, presets without float noise, joint-type and convention switches that keep
the arm meaningful, 1-based link names in problems, readable cells in a dark palette."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette

from designer.gui.cells import TEXT_ON_LIGHT
from designer.gui.dh_table import COLUMNS, DHTable
from designer.gui.document import Document
from designer.gui.params import LoadsPanel, ParametersPanel
from designer.gui.presets import PresetDialog
from designer.gui.problems import ProblemsPanel
from designer.kinematics import NumericArm
from designer.model import Convention, PointMass
from designer.model.units import parameter_units
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


def col(name: str) -> int:
    return COLUMNS.index(name)


@pytest.fixture
def puma_doc():
    return Document(load_project(ROBOTS / "puma560.json"))


def test_parameter_units_come_from_their_use(puma_doc):
    units = parameter_units(puma_doc.model)
    assert units["m2"] == "kg" and units["a2"] == "m" and units["d3"] == "m" and units["g"] == "m/s²"
    assert units["Ixx1"] == "kg m²"
    planar = load_project(ROBOTS / "planar_two_link.json")
    # d1 appears in the COM (d1 - L1) and L1 in a: lengths; I1 in the inertia
    assert parameter_units(planar) == {**parameter_units(planar), "d1": "m", "L1": "m", "I1": "kg m²", "m1": "kg"}


def test_units_from_a_scaled_inertia_a_cut_joint_and_a_part(qtbot):
    """Issue 29 item 14: the palletizer's m1 and m6 (a mass, and an inertia m1*0.3**2/2 that is a mass times a
    length squared: not a second unit), the four-bar's ground length L0 (only in the cut joint's frame) and the
    tube arm's diameters and walls (only in the links' sections) had "-"; the sweep axis "D2" none."""
    pal = parameter_units(load_project(ROBOTS / "palletizer_parallelogram.json"))
    assert pal["m1"] == pal["m6"] == "kg"
    # w and wr only in inertias m2*(L2**2 + w**2)/12: a mass times a quadratic form, so lengths (the "-" left over)
    assert pal["w"] == pal["wr"] == "m"
    assert parameter_units(load_project(ROBOTS / "four_bar.json"))["L0"] == "m"
    tube = load_project(ROBOTS / "tube_arm.json")
    units = parameter_units(tube)
    assert all(units[f"{d}{i}"] == "m" for d in "Dt" for i in (1, 2, 3))
    panel = ParametersPanel(Document(tube))
    qtbot.addWidget(panel)
    model = panel.table_model
    shown = {model.data(model.index(r, 0)): model.data(model.index(r, 2)) for r in range(model.rowCount())}
    assert shown["D2"] == "m" and shown["t3"] == "m"
    from designer.gui.explore_panel import ExplorePanel
    explore = ExplorePanel()
    qtbot.addWidget(explore)
    explore.set_model(tube)
    assert explore.sweep_view.parameter_label("D2") == "D2 (m)"   # the sweep's axis and CSV column


def test_parameters_table_shows_units(qtbot, puma_doc):
    panel = ParametersPanel(puma_doc)
    qtbot.addWidget(panel)
    model = panel.table_model
    assert model.headerData(2, Qt.Orientation.Horizontal) == "unit"
    shown = {model.data(model.index(r, 0)): model.data(model.index(r, 2)) for r in range(model.rowCount())}
    assert shown["m3"] == "kg" and shown["a3"] == "m" and shown["Izz1"] == "kg m²"


def test_load_table_headers_carry_units(qtbot, puma_doc):
    puma_doc.apply(replace(puma_doc.model, point_masses=(PointMass(6, 1.0),)), "Add load")
    panel = LoadsPanel(puma_doc)
    qtbot.addWidget(panel)
    model = panel.table_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["link", "mass (kg)", "x (m)", "y (m)", "z (m)"]


def test_cylinder_preset_lies_along_the_link_without_float_noise(qtbot, puma_doc):
    dialog = PresetDialog(puma_doc.model, 2)   # PUMA link 3: a3 along x
    qtbot.addWidget(dialog)
    dialog.set_kind("cylinder")
    assert dialog.fields["length"].text() == "a3" and dialog.fields["axis"].currentText() == "x"
    body = dialog.body()
    text = " ".join(sp.sstr(getattr(body.inertia, k)) for k in ("xx", "yy", "zz"))
    assert "0.0075" in text and "00000000" not in text   # 3 r^2 with r = 0.05
    a3, m3 = sp.Symbol("a3", real=True), sp.Symbol("m3", real=True)
    assert float(body.inertia.xx / m3) == pytest.approx(0.05**2 / 2, rel=1e-12)   # about its own axis: m r^2 / 2
    across = sp.Poly(sp.expand(body.inertia.yy / m3), a3)
    assert [float(c) for c in across.all_coeffs()] == pytest.approx([1 / 12, 0, 0.0075 / 12], rel=1e-12)


def test_switching_r_to_p_does_not_keep_angle_limits(qtbot, puma_doc):
    table = DHTable(puma_doc)
    qtbot.addWidget(table)
    messages = []
    table.table_model.message.connect(messages.append)
    assert puma_doc.model.links[1].limits is not None
    table.table_model.set_text(1, col("joint"), "P")
    link = puma_doc.model.links[1]
    assert not link.is_revolute and link.limits is None
    assert messages and "link 2" in messages[-1] and "metres" in messages[-1]
    table.table_model.set_text(1, col("joint"), "R")
    assert puma_doc.model.links[1].limits is None   # no lengths reused as angles either


@pytest.mark.parametrize("choice", ["convert", "keep", None])
def test_switching_the_convention_offers_to_keep_the_arm(qtbot, puma_doc, monkeypatch, choice):
    table = DHTable(puma_doc)
    qtbot.addWidget(table)
    asked = []
    monkeypatch.setattr(DHTable, "ask_convention",
                        staticmethod(lambda parent, conv, note: asked.append(conv) or choice))
    before = puma_doc.model
    table.convention.setCurrentIndex(1)
    table.convention.activated.emit(1)
    assert asked == [Convention.MODIFIED]
    after = puma_doc.model
    if choice is None:
        assert after == before and table.convention.currentIndex() == 0
        return
    assert after.convention is Convention.MODIFIED
    q = np.array([0.3, -0.5, 0.8, 0.1, 0.6, -0.2])
    coms = [NumericArm.from_model(m).com_positions(q) for m in (before, after)]
    if choice == "convert":
        np.testing.assert_allclose(coms[0], coms[1], atol=1e-9)   # the same arm
    else:
        assert not np.allclose(coms[0], coms[1], atol=1e-6)      # the same numbers: another arm


def test_problems_name_links_from_one(qtbot, puma_doc):
    panel = ProblemsPanel(puma_doc)
    qtbot.addWidget(panel)
    puma_doc.apply(puma_doc.model.with_link(1, replace(puma_doc.model.links[1], mass=-2)), "bad mass")
    texts = [panel.item(k).text() for k in range(panel.count())]
    assert any("link 2" in t for t in texts) and not any("links[" in t for t in texts)
    chosen = []
    panel.linkChosen.connect(chosen.append)
    item = next(panel.item(k) for k in range(panel.count()) if "link 2" in panel.item(k).text())
    panel.itemClicked.emit(item)
    assert chosen == [1]


def test_bad_cells_stay_readable_in_a_dark_palette(qtbot, puma_doc):
    table = DHTable(puma_doc)
    qtbot.addWidget(table)
    dark = QPalette()
    for role in (QPalette.ColorRole.Base, QPalette.ColorRole.Window):
        dark.setColor(role, QColor(35, 35, 35))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        dark.setColor(role, QColor(235, 235, 235))
    table.setPalette(dark)
    model = table.table_model
    model.set_text(0, col("a"), "2 +")
    index = model.index(0, col("a"))
    background = model.data(index, Qt.ItemDataRole.BackgroundRole).color()
    foreground = model.data(index, Qt.ItemDataRole.ForegroundRole).color()
    assert foreground == TEXT_ON_LIGHT
    assert background.lightness() - foreground.lightness() > 120   # dark text on the light red


def test_metric_and_coefficient_units():
    from designer.gui.explore.picker import metric_unit
    from designer.model.units import inertial_unit
    rev = [True, True, False]
    assert metric_unit("gravity[2]", rev) == "N m" and metric_unit("gravity[3]", rev) == "N"
    assert metric_unit("M[1,2]", rev) == "kg m²" and metric_unit("M[1,3]", rev) == "kg m"
    assert metric_unit("M[3,3]", rev) == "kg"
    assert metric_unit("inertia_locked[3]:max", rev) == "kg" and metric_unit("coupling[1,2]", rev) == "1"
    assert metric_unit("total_mass") == "kg" and metric_unit("reach") == "m" and metric_unit("nonsense") == ""
    # torque N m = kg m^2 s^-2 over revolute rates (s^-1): kg m^2; a force over two prismatic rates: kg/m
    assert inertial_unit(True, True, True) == "kg m²" and inertial_unit(False, False, False) == "kg/m"
    assert inertial_unit(True, False) == "kg m" == inertial_unit(False, True)   # M_ij = M_ji


def test_a_zero_inertia_is_never_swept_negative():
    from designer.explore.coupling import default_range
    model = load_project(ROBOTS / "puma560.json")
    zero = [n for n, v in model.parameter_values.items() if v == 0 and n.startswith("I")]
    assert zero, "the PUMA has zero inertia entries"
    assert default_range(model, zero[0])[0] >= 0
    offsets = [n for n, v in model.parameter_values.items() if v == 0 and n.startswith("c")]
    if offsets:   # a COM offset of zero may go either way
        assert default_range(model, offsets[0]) == (-0.5, 0.5)


def test_sweep_and_sizing_exports_name_units(qtbot, tmp_path):
    import numpy as np

    from designer.gui.explore_panel import ExplorePanel
    planar = load_project(ROBOTS / "planar_two_link.json")
    panel = ExplorePanel()
    qtbot.addWidget(panel)
    panel.set_model(planar)
    panel.set_joint_values(np.array([0.2, 0.4]))
    panel.picker.set_metric("gravity[1]")
    view = panel.sweep_view
    view.params[0].setCurrentText("m2")
    view.counts[0].setValue(3)
    view.samples.setValue(10)
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000):
        view.run()
    header, _rows = view.csv_data()
    assert header[0] == "m2 (kg)" and "gravity[1]:max (N m)" in header and "total_mass (kg)" in header
    assert view.curves.plot.getAxis("left").labelText.startswith("Gravity torque, joint 1 (N m)")
    sizing = panel.sizing_view
    sizing.target.setText("10, 20")
    sizing.steps.setValue(11)
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000):
        sizing.run()
    header, _ = sizing.curve_csv()
    assert header[:3] == ["t (s)", "q1 (rad)", "q2 (rad)"] and "tau1 (N m)" in header
    titles = [sizing.table.horizontalHeaderItem(c).text() for c in range(sizing.table.columnCount())]
    assert "peak q̇" in titles


def test_lengths_are_read_from_an_inertia_only_when_it_is_a_mass_times_squares_of_lengths():
    from designer.model.units import _lengths_in_inertia
    m, a, b, k = (sp.Symbol(n) for n in ("m", "a", "b", "k"))
    assert sorted(_lengths_in_inertia(m * (a**2 + b**2) / 12, {"m"})) == ["a", "b"]
    assert sorted(_lengths_in_inertia(m * (a**2 + a * b + b**2), {"m"})) == ["a", "b"]
    assert _lengths_in_inertia(m * a * b, {"m"}) == []            # a cross term alone: a could be m², b 1
    assert _lengths_in_inertia(m * a**3 / b, {"m"}) == []         # not a quadratic form
    assert _lengths_in_inertia(m * (a**2 + b), {"m"}) == []       # not homogeneous
    assert _lengths_in_inertia(k * (a**2 + b**2), {"m"}) == []    # k is no known mass
    assert _lengths_in_inertia(m * a**2 + k, {"m"}) == []
