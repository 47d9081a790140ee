"""The loops table of the mechanism editor: its rows are the model's loops, and each edit goes to the document."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.gui.document import Document
from designer.gui.mechanism_panel import LoopsTableModel
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


def test_loops_table_adds_edits_and_removes_the_models_loops(qapp):
    doc = Document(load_project(ROBOTS / "four_bar.json"))
    table = LoopsTableModel(doc)
    before = doc.model.loops
    assert table.rowCount() == len(before) == 1
    assert table.cell_value(0, 0) == str(before[0].link_i) and table.cell_value(0, 7) == before[0].name
    table.add_loop()   # between the last link and the base
    assert table.rowCount() == 2 and doc.model.loops[0] == before[0]
    assert (doc.model.loops[1].link_i, doc.model.loops[1].link_j) == (len(doc.model.links), 0)
    table.commit(1, 7, "extra")
    assert doc.model.loops[1].name == "extra" and table.cell_value(1, 7) == "extra"
    table.remove_loop(0)
    assert [lp.name for lp in doc.model.loops] == ["extra"] and table.rowCount() == 1
    table.remove_loop(5)   # no such row: nothing changes
    assert [lp.name for lp in doc.model.loops] == ["extra"]
