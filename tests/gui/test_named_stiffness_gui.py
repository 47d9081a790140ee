"""The drive editor takes a parameter's name for a joint's stiffness (issue 23): the name goes into the model, its
value into the Parameters table's missing row, the read-out's frequency follows that value; a bad name or a
name whose value is not allowed stays red with its message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from scipy.linalg import eigh
from PySide6.QtCore import Qt

from designer.model.expr import symbol
from designer.gui.drives_frames import DRIVE_COLUMNS
from designer.project import load_project, save_project
from tests.support.windows import open_window

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


def col(name: str) -> int:
    return list(DRIVE_COLUMNS).index(name)   # the drive table's order


def test_a_stiffness_cell_takes_a_parameter_name(qtbot, tmp_path):
    window = open_window(qtbot, tmp_path, ROBOTS / "planar_two_link.json")
    doc, table = window.document, window.drives.drive_model
    table.set_text(0, col("stiffness"), "2e3")
    table.set_text(1, col("stiffness"), "k_gear")
    assert doc.model.links[1].drive.stiffness == symbol("k_gear")
    assert table.data(table.index(1, col("stiffness"))) == "k_gear"
    assert "k_gear" in doc.model.unvalued_symbols()                   # the Parameters table asks for it
    window.design.set_pose([0.3, 1.1])                                 # the arm still moves and reads out, without
    assert "tool (" in window.readout.text() and "lowest natural frequency" not in window.readout.text()   # no
    assert "no value for parameter(s): k_gear" in window.readout.text()   # frequency yet, and why
    doc.apply(doc.model.with_parameter("k_gear", 1e3), "Set k_gear")
    window.design.set_pose([0.3, 1.1])
    from designer.numeric.engine import arm_dynamics
    f = np.sqrt(eigh(np.diag([2e3, 1e3]), arm_dynamics(window.design.arm).M(np.array([0.3, 1.1])),
                     eigvals_only=True)[0]) / (2 * np.pi)
    assert f"{f:.3g} Hz" in window.readout.text()
    # bad entries: red with the message, the model keeps the name
    before = doc.model
    for text, why in (("k +", "syntax"), ("q1", "joint variable"), ("-k_gear", "above zero")):
        table.set_text(1, col("stiffness"), text)
        assert doc.model == before
        assert table.data(table.index(1, col("stiffness"))) == text
        message = window.statusBar().currentMessage()
        assert message.startswith("joint 2, torsional stiffness:") and why in message, message
    table.set_text(1, col("damping"), "c2")                            # damping may be named too
    assert isinstance(doc.model.links[1].drive.damping, sp.Symbol)
    save_project(doc.model, tmp_path / "p.json")
    assert load_project(tmp_path / "p.json").links[1].drive.stiffness == symbol("k_gear")


def test_readout_adds_the_frequency_with_the_links_bending(qtbot, tmp_path):
    """The tube arm's links are parts: the read-out gives the lowest frequency with their bending (the value of
    numeric/flex_modes.py at the slider pose) first, the rigid-link one beside it, and above it (Rayleigh)."""
    from designer.numeric.elastic import elastic_joints
    from designer.numeric.flex_modes import lowest_flex_frequency
    window = open_window(qtbot, tmp_path, ROBOTS / "tube_arm.json")
    q = [0.2, -1.0, 1.1]
    window.design.set_pose(q)
    text = window.readout.text()
    f = float(lowest_flex_frequency(window.design.arm, elastic_joints(window.document.model), np.array(q)))
    assert f"lowest natural frequency {f:.3g} Hz\n" in text
    rigid = float(text.split(f"{f:.3g} Hz\n")[1].split(" Hz with rigid links")[0])
    assert f < rigid


def test_a_word_typed_as_a_stiffness_is_said_at_once_and_in_the_readout(qtbot, tmp_path):
    """"abc" typed as a stiffness makes a parameter without a value: the status bar says so when typed, the cell
    is marked (its tooltip says what is missing) and the read-out says why it has no frequency, instead of the
    frequency vanishing with only a line under Problems."""
    from designer.gui.cells import MISSING_COLOR
    window = open_window(qtbot, tmp_path, ROBOTS / "tube_arm.json")
    doc, table = window.document, window.drives.drive_model
    assert "lowest natural frequency" in window.readout.text()
    table.set_text(1, col("stiffness"), "abc")
    assert doc.model.links[1].drive.stiffness == symbol("abc")
    message = window.statusBar().currentMessage()
    assert message.startswith("joint 2, torsional stiffness: abc is a new parameter without a value"), message
    index = table.index(1, col("stiffness"))
    assert table.data(index, Qt.ItemDataRole.BackgroundRole).color() == MISSING_COLOR
    assert "abc: no value yet" in table.data(index, Qt.ItemDataRole.ToolTipRole)
    text = window.readout.text()
    assert "lowest natural frequency" not in text
    assert "no natural frequency: drive data: no value for parameter(s): abc" in text.split("\n")
    doc.apply(doc.model.with_parameter("abc", 5e3), "Set abc")   # given its value: the frequency is back
    assert "lowest natural frequency" in window.readout.text() and "no natural frequency" not in window.readout.text()
    assert table.data(table.index(1, col("stiffness")), Qt.ItemDataRole.BackgroundRole) is None
