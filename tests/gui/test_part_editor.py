"""The inspector's Part box: a link becomes a tube of a material, its dimensions are edited with
undo, bad entries keep the model, and the mass it makes is read-only in the DH table."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from designer.gui.dh_table import COLUMNS, DHTable
from designer.gui.document import Document
from designer.gui.inspector import LinkInspector
from designer.project import load_project
from tests.support import ROBOTS

pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


@pytest.fixture
def doc():
    return Document(load_project(ROBOTS / "double_pendulum.json"))


@pytest.fixture
def inspector(qtbot, doc):
    widget = LinkInspector(doc)
    qtbot.addWidget(widget)
    widget.set_link(1)
    return widget


def _choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))
    combo.activated.emit(combo.currentIndex())


def test_make_a_link_a_tube_then_edit_and_undo(inspector, doc):
    box = inspector.part_box
    before = doc.model
    _choose(box.shape, "tube")
    part = doc.model.links[1].part
    assert part is not None and part.shape == "tube" and part.material.name == "aluminium 6061-T6"
    assert doc.undo_stack.undoText() == "Make link 2 a tube"
    # the double pendulum's link 2 has a = L2 = 0.8 (standard DH): a 60 x 4 mm tube of 0.8 m
    R, r = 0.03, 0.026
    expected = 2700 * np.pi * (R**2 - r**2) * 0.8
    assert float(doc.model.numeric().links[1].mass) == pytest.approx(expected)
    assert inspector.com[0].isReadOnly() and not inspector.preset_button.isEnabled()
    box.dims[0].submit("0.08")
    assert float(doc.model.links[1].part.dim("outer_diameter")) == 0.08
    assert doc.undo_stack.undoText() == "Set outer diameter of link 2 to 0.08"
    _choose(box.material, "steel")
    assert doc.model.links[1].part.material.name == "steel"
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.model == before
    assert not inspector.com[0].isReadOnly()


def test_bad_dimension_keeps_the_part(inspector, doc):
    _choose(inspector.part_box.shape, "tube")
    before = doc.model
    messages = []
    inspector.message.connect(messages.append)
    edit = inspector.part_box.dims[1]   # the wall
    edit.submit("-0.004")
    assert doc.model == before and edit.error and "links[2].part.wall" in edit.toolTip()
    edit.submit("0.05")   # more than half the 60 mm diameter
    assert doc.model == before
    assert any("less than half the outer diameter" in m for m in messages)


def test_a_part_on_a_link_of_no_length_is_refused_with_a_message(qtbot, doc):
    from dataclasses import replace
    doc.apply(doc.model.with_link(0, replace(doc.model.links[0], a=0)), "a = 0")
    inspector = LinkInspector(doc)
    qtbot.addWidget(inspector)
    inspector.set_link(0)
    messages = []
    inspector.message.connect(messages.append)
    before = doc.model
    _choose(inspector.part_box.shape, "box")
    assert doc.model == before
    assert messages and "zero length" in messages[-1]


def test_the_mass_a_part_makes_is_read_only_in_the_dh_table(qtbot, inspector, doc):
    table = DHTable(doc)
    qtbot.addWidget(table)
    _choose(inspector.part_box.shape, "cylinder")
    index = table.table_model.index(1, COLUMNS.index("mass"))
    assert not table.table_model.flags(index) & Qt.ItemFlag.ItemIsEditable
    assert "part" in table.table_model.data(index, Qt.ItemDataRole.ToolTipRole)
    other = table.table_model.index(0, COLUMNS.index("mass"))
    assert table.table_model.flags(other) & Qt.ItemFlag.ItemIsEditable


def test_the_3d_view_draws_a_part_at_its_size():
    """Geometry without a display: the upper arm of the tube arm is one cylinder of its outer
    diameter along its DH segment; a box section is a box of its width and height."""
    from designer.gui import arm_scene as scene
    from designer.kinematics import display_arm

    arm = display_arm(load_project(ROBOTS / "tube_arm.json"))
    q = np.array([0.3, -0.7, 0.9])
    T = arm.frames(q)
    mats = scene.link_matrices(arm, T, 0.01)
    assert len(mats) == 2 * arm.n and all(mats[2 * i + 1] is None for i in range(arm.n))
    upper = mats[2]
    # the unit cylinder's axis (z, length 1) runs from frame 1's origin to frame 2's
    assert np.allclose(upper[:3, 3], T[1, :3, 3]) and np.allclose(upper[:3, 3] + upper[:3, 2], T[2, :3, 3])
    assert np.linalg.norm(upper[:3, 0]) == pytest.approx(0.09 / 2)      # D2 = 90 mm
    M = scene.box_part_matrix(np.zeros(3), np.array([0.5, 0, 0]), np.array([0, 0, 1.0]), (0.05, 0.08))
    corners = (M @ np.array([[1, 1, 1, 1], [-1, -1, -1, 1]]).T).T[:, :3]
    assert np.allclose(np.abs(corners[0] - corners[1]), [0.5, 0.08, 0.05])
