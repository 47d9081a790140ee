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
