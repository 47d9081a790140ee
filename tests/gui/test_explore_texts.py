"""Explore's tables read whole at 1366 x 768 (issue 29 item 10): Significance's headers are as wide as their
text (they read "_i (N m or N"), and every header and cell a narrow column may cut carries its whole text as
its tooltip (the map's statistics read "0.7325…" with no way to see the rest)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QTableWidget

from tests.gui.test_design_report import shown_window
from tests.gui.test_explore_panel import run

pytestmark = pytest.mark.usefixtures("no_dialogs")


def cells(table: QTableWidget) -> list:
    heads = [table.horizontalHeaderItem(c) for c in range(table.columnCount())]
    return heads + [table.item(r, c) for r in range(table.rowCount()) for c in range(table.columnCount())]


def test_significance_and_map_tables_read_whole_or_say_it_in_a_tooltip(qtbot, tmp_path):
    w = shown_window(qtbot, tmp_path, "puma560")
    w.result_tabs.setCurrentWidget(w.explore_scroll)
    panel = w.explore
    for what, text in (("torque", "100"), ("speed", "2"), ("acceleration", "5")):
        panel.ratings_edits[what].setText(text)
    view = panel.significance_view
    panel.tabs.setCurrentWidget(view)
    view.samples.setValue(256)
    assert run(qtbot, panel, view.run, timeout=120_000) == "finished", panel.error_label.text()
    for table in (view.joints, view.terms):
        assert table.rowCount() > 0
        for item in cells(table):
            if item is None or not item.text():
                continue   # an empty cell (no translation share) has nothing to cut
            assert item.toolTip(), item.text()
            if "Lee" not in item.toolTip():   # the translation share's own explanation
                assert item.toolTip() == item.text()
        header = table.horizontalHeader()
        metrics = header.fontMetrics()
        for c in range(table.columnCount()):   # each header as wide as its text: nothing cut in the middle
            assert header.sectionSize(c) >= metrics.horizontalAdvance(table.horizontalHeaderItem(c).text()), c
    # the map's statistics: numbers cut by a narrow column say the whole number in the tooltip
    mapping = panel.map_view
    panel.tabs.setCurrentWidget(mapping)
    mapping.steps.setValue(9)
    mapping.samples.setValue(64)
    assert run(qtbot, panel, mapping.compute, timeout=120_000) == "finished", panel.error_label.text()
    stats = [mapping.stats.item(0, c) for c in range(mapping.stats.columnCount())]
    assert all(item is not None and item.text() and item.toolTip() == item.text() for item in stats)


def test_an_equation_entry_cut_by_its_column_reads_whole_in_its_tooltip(qtbot):
    """A closed chain's Coriolis matrix is listed as coriolis_matrix_i,j: the 90 px Entry column showed
    "coriolis_ma…", and no tooltip said the rest (issue 29 item 10)."""
    from dataclasses import replace

    import sympy as sp
    from PySide6.QtCore import Qt

    from designer.gui.equations_view import EquationsView
    from tests.gui.test_equations_view import robmat_double_pendulum
    eq = robmat_double_pendulum()
    eq = replace(eq, extras={**eq.extras, "coriolis_matrix": sp.Matrix([[sp.Symbol("q1"), 0], [0, 1]])})
    view = EquationsView()
    qtbot.addWidget(view)
    view.set_equations(eq)
    view.hide_zero.setChecked(False)
    model = view.table.model()
    labels = [model.index(r, 0).data() for r in range(model.rowCount())]
    long = [r for r, text in enumerate(labels) if text.startswith("coriolis_matrix")]
    assert long
    metrics = view.table.fontMetrics()
    for r in long:
        text = labels[r]
        assert metrics.horizontalAdvance(text) > view.table.columnWidth(0)   # cut in its column, so:
        assert model.index(r, 0).data(Qt.ItemDataRole.ToolTipRole) == text
