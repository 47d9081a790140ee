"""The model editors: DH table, link inspector, presets, parameters, gravity, loads, problems."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from designer.gui.cells import BAD_COLOR, MISSING_COLOR
from designer.gui.dh_table import COLUMNS
from designer.gui.document import Document
from designer.gui.inspector import LinkInspector
from designer.gui.params import LoadsPanel, ParametersPanel
from designer.gui.presets import PresetDialog
from designer.gui.dh_table import DHTable
from designer.gui.problems import ProblemsPanel
from designer.model import Convention, PointMass, symbol
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


@pytest.fixture
def doc():
    model = load_project(ROBOTS / "double_pendulum.json")
    return Document(model)


@pytest.fixture
def table(qtbot, doc):
    widget = DHTable(doc)
    qtbot.addWidget(widget)
    return widget


def col(name: str) -> int:
    return COLUMNS.index(name)


def test_cell_edit_changes_model_and_undo_restores(table, doc):
    before = doc.model
    table.table_model.set_text(1, col("a"), "L2 + 0.1")
    assert doc.model.links[1].a == symbol("L2") + sp.Float(0.1)
    assert doc.model.links[0] == before.links[0]
    assert doc.undo_stack.undoText() == "Set a of link 2 to L2 + 0.1"
    assert doc.dirty
    doc.undo_stack.undo()
    assert doc.model == before
    assert not doc.dirty
    doc.undo_stack.redo()
    assert doc.model.links[1].a == symbol("L2") + sp.Float(0.1)


def test_cell_edit_through_the_table_editor(qtbot, table, doc):
    table.show()
    qtbot.waitExposed(table)
    index = table.table_model.index(0, col("d"))
    table.view.setCurrentIndex(index)
    table.view.edit(index)
    editor = table.view.viewport().findChild(QLineEdit)
    assert editor is not None
    editor.selectAll()
    qtbot.keyClicks(editor, "L1/2")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: doc.model.links[0].d != 0, timeout=120_000)  # the delegate commits queued
    assert doc.model.links[0].d == symbol("L1") / 2
    assert table.table_model.data(index) == "L1/2"


def test_bad_cell_keeps_the_old_value_and_shows_the_error(table, doc):
    messages = []
    table.table_model.message.connect(messages.append)
    before = doc.model
    table.table_model.set_text(1, col("alpha"), "pi/*2")
    assert doc.model == before and doc.undo_stack.count() == 0
    index = table.table_model.index(1, col("alpha"))
    assert table.table_model.data(index) == "pi/*2"                 # what the user typed stays visible
    assert table.table_model.data(index, Qt.ItemDataRole.BackgroundRole).color() == BAD_COLOR
    tip = table.table_model.data(index, Qt.ItemDataRole.ToolTipRole)
    assert "link 2, alpha" in tip and "syntax error" in tip
    assert messages and "link 2, alpha" in messages[0]
    # another edit elsewhere keeps the bad entry on display ...
    table.table_model.set_text(0, col("mass"), "3")
    assert table.table_model.data(index) == "pi/*2"
    # ... and a good entry replaces it
    table.table_model.set_text(1, col("alpha"), "pi/2")
    assert doc.model.links[1].alpha == sp.pi / 2
    assert table.table_model.error_at(1, col("alpha")) is None


def test_joint_type_and_name_cells(table, doc):
    table.table_model.set_text(0, col("joint"), "P")
    assert not doc.model.links[0].is_revolute
    table.table_model.set_text(0, col("joint"), "X")
    assert not doc.model.links[0].is_revolute
    assert "R (revolute) or P (prismatic)" in table.table_model.error_at(0, col("joint")).message
    table.table_model.set_text(1, col("name"), "forearm")
    assert doc.model.links[1].name == "forearm"


def test_convention_switch_relabels_the_header_and_undoes(table, doc, monkeypatch):
    monkeypatch.setattr(type(table), "ask_convention", staticmethod(lambda *a: "keep"))
    assert table.table_model.headerData(col("a"), Qt.Orientation.Horizontal) == "a_i"
    table.convention.setCurrentIndex(1)
    table.convention.activated.emit(1)
    assert doc.model.convention is Convention.MODIFIED
    assert table.table_model.headerData(col("a"), Qt.Orientation.Horizontal) == "a_(i-1)"
    assert "Craig" in table.table_model.headerData(col("a"), Qt.Orientation.Horizontal,
                                                   Qt.ItemDataRole.ToolTipRole)
    doc.undo_stack.undo()
    assert doc.model.convention is Convention.STANDARD
    assert table.convention.currentIndex() == 0


def test_add_remove_and_move_links_carry_point_masses(table, doc):
    from dataclasses import replace
    doc.apply(replace(doc.model, point_masses=(PointMass(2, "M"),)), "Add load")
    upper, lower = doc.model.links
    table.select_link(0)
    table.move_link(1)
    assert doc.model.links == (lower, upper)
    assert doc.model.point_masses[0].link == 1          # the load moved with its link
    assert table.current_link() == 1
    table.select_link(0)
    table.add_link()
    assert doc.model.n == 3 and doc.model.links[0] == lower and doc.model.links[2] == upper
    assert doc.model.point_masses[0].link == 1
    table.select_link(0)
    table.remove_link()
    assert doc.model.n == 2 and doc.model.point_masses == ()   # the load went with its link
    labels = [doc.undo_stack.text(i) for i in range(doc.undo_stack.count())]
    assert labels[1:] == ["Move link 1 down", "Add link 2", "Remove link 1"]
    for _ in range(3):
        doc.undo_stack.undo()
    assert doc.model.links == (upper, lower) and doc.model.point_masses[0].link == 2


def test_inertia_tensor_is_symmetric_and_com_edits(qtbot, doc):
    inspector = LinkInspector(doc)
    qtbot.addWidget(inspector)
    inspector.set_link(1)
    inspector.inertia[(0, 1)].submit("0.25")
    link = doc.model.links[1]
    assert float(link.inertia.xy) == 0.25
    assert inspector.inertia[(1, 0)].text() == "0.25"             # the mirror entry follows
    assert link.inertia.matrix() == link.inertia.matrix().T
    inspector.inertia[(2, 1)].submit("-0.5")
    assert float(doc.model.links[1].inertia.yz) == -0.5
    assert inspector.inertia[(1, 2)].text() == "-0.5"
    inspector.com[0].submit("-L2/2")
    assert doc.model.links[1].com[0] == -symbol("L2") / 2
    assert doc.undo_stack.undoText() == "Set COM x of link 2 to -L2/2"


def test_bad_inspector_entry_keeps_model(qtbot, doc):
    inspector = LinkInspector(doc)
    qtbot.addWidget(inspector)
    messages = []
    inspector.message.connect(messages.append)
    before = doc.model
    inspector.com[1].submit("import os")
    assert doc.model == before
    assert inspector.com[1].error and "link 1, centre of mass y" in inspector.com[1].toolTip()
    assert messages
    doc.apply(doc.model.with_parameter("L1", 2.0), "Set L1")     # unrelated edit: error stays
    assert inspector.com[1].text() == "import os"


def test_cylinder_preset_fills_mass_com_and_inertia(qtbot, doc):
    dialog = PresetDialog(doc.model, 0)
    qtbot.addWidget(dialog)
    dialog.set_kind("cylinder")
    dialog.set_field("mass", "2")
    dialog.set_field("radius", "0.1")
    dialog.set_field("length", "0.5")
    dialog.set_field("axis", "z")
    dialog.set_field("center", "-0.25, 0, 0")
    inspector = LinkInspector(doc)
    qtbot.addWidget(inspector)
    inspector.apply_body(dialog.body(), dialog.kind_label())
    link = doc.model.links[0]
    m, r, h = 2.0, 0.1, 0.5
    assert float(link.mass) == m
    assert [float(c) for c in link.com] == [-0.25, 0, 0]
    assert float(link.inertia.zz) == pytest.approx(m * r**2 / 2)
    assert float(link.inertia.xx) == pytest.approx(m * (3 * r**2 + h**2) / 12)
    assert float(link.inertia.yy) == pytest.approx(m * (3 * r**2 + h**2) / 12)
    assert doc.undo_stack.undoText() == "Apply cylinder preset to link 1"


def test_thin_rod_preset_defaults_span_the_link(qtbot, doc):
    dialog = PresetDialog(doc.model, 0)
    qtbot.addWidget(dialog)
    dialog.set_kind("thin rod")
    body = dialog.body()
    # standard DH: link 1 runs from (-L1, 0, 0) to frame 1's origin; I = m L^2/12 across the rod
    L1, m1 = symbol("L1"), symbol("m1")
    assert sp.simplify(body.com[0] + L1 / 2) == 0
    assert sp.simplify(body.inertia.yy - m1 * L1**2 / 12) == 0
    assert body.inertia.xx == 0
    dialog.set_field("mass", "2*")
    assert "syntax error" in dialog.error.text()


def test_parameters_panel_lists_symbols_and_highlights_missing(qtbot, doc):
    table = doc.model.links
    doc.apply(doc.model.with_link(1, __import__("dataclasses").replace(table[1], d="h")), "Set d")
    panel = ParametersPanel(doc)
    qtbot.addWidget(panel)
    model = panel.table_model
    names = model.names()
    assert names == sorted(["L1", "L2", "g", "h", "m1", "m2"])
    row = names.index("h")
    assert model.data(model.index(row, 1), Qt.ItemDataRole.BackgroundRole).color() == MISSING_COLOR
    assert model.data(model.index(names.index("L1"), 1), Qt.ItemDataRole.BackgroundRole) is None
    model.set_text(row, 1, "0.2")
    assert doc.model.parameter_values["h"] == 0.2
    assert model.data(model.index(row, 1), Qt.ItemDataRole.BackgroundRole) is None
    model.set_text(names.index("g"), 1, "g2")
    assert "needs a number" in model.error_at(names.index("g"), 1).message
    assert doc.model.parameter_values["g"] == 9.81
    panel.add_parameter("k_spring", 3.0)
    assert doc.model.parameter_values["k_spring"] == 3.0
    assert model.data(model.index(model.names().index("k_spring"), 3)) == "not used"


def test_gravity_and_point_masses(qtbot, doc):
    panel = LoadsPanel(doc)
    qtbot.addWidget(panel)
    panel.gravity[0].submit("0")
    panel.gravity[2].submit("-g")
    assert doc.model.gravity == (0, 0, -symbol("g"))
    panel.add_point_mass()
    assert doc.model.point_masses == (PointMass(2, 1),)
    loads = panel.table_model
    loads.set_text(0, 1, "M_load")
    loads.set_text(0, 2, "L2/2")
    loads.set_text(0, 0, "3")                       # no link 3
    assert doc.model.point_masses == (PointMass(2, "M_load", ("L2/2", 0, 0)),)
    assert "no link 3" in loads.error_at(0, 0).message


def test_problems_listed_and_never_blocking(qtbot, doc, table):
    problems = ProblemsPanel(doc)
    qtbot.addWidget(problems)
    counts = []
    problems.countChanged.connect(lambda e, w: counts.append((e, w)))
    table.table_model.set_text(0, col("mass"), "-1")
    assert doc.model.links[0].mass == -1                   # the edit went through
    texts = [problems.item(i).text() for i in range(problems.count())]
    assert any("link 1, mass" in t and "must be >= 0" in t for t in texts)
    assert counts[-1][0] == 1
    chosen = []
    problems.linkChosen.connect(chosen.append)
    item = next(problems.item(i) for i in range(problems.count()) if "link 1, mass" in problems.item(i).text())
    problems.itemClicked.emit(item)
    assert chosen == [0]
    doc.undo_stack.undo()
    assert not any("link 1, mass" in problems.item(i).text() for i in range(problems.count()))


def test_arm_name_and_description(qtbot, doc):
    panel = LoadsPanel(doc)
    qtbot.addWidget(panel)
    assert panel.name.text() == "Double pendulum"
    panel.name.setText("Pendulum II")
    panel.name.editingFinished.emit()
    assert doc.model.name == "Pendulum II" and doc.undo_stack.undoText() == "Rename arm to 'Pendulum II'"
    doc.undo_stack.undo()
    assert panel.name.text() == "Double pendulum"
