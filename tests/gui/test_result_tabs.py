"""The result tabs' titles read whole at 1366 px (issue 29: "Equatio…" below about 1800 px): short titles
when the full ones do not fit, the full name in every tooltip; the full titles where they fit."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSettings

from designer.gui.main_window import MainWindow
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
FULL = ["Equations", "Coupling", "Explore", "Simulate", "Requirements", "Problems", "History"]

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.mark.parametrize("size", [(1024, 700), (1366, 768), (1920, 1080)])
def test_every_result_tab_title_reads_whole(qtbot, tmp_path, size):
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    w = MainWindow(load_project(ROBOTS / "puma560.json"), settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.fit_to_screen(QRect(0, 0, size[0], size[1] - 30))
    w.show()
    qtbot.waitExposed(w)
    w.tab_titles.set_count(w.problems, 12)   # the widest title a count makes
    tabs = w.result_tabs
    bar = tabs.tabBar()

    def whole() -> bool:   # no tab squeezed below its title's own width (Qt elides those)
        return all(bar.tabRect(k).width() >= bar.tabSizeHint(k).width() for k in range(bar.count()))
    qtbot.waitUntil(whole, timeout=60_000)
    metrics = bar.fontMetrics()
    for k in range(bar.count()):
        text = bar.tabText(k)
        assert "…" not in text and metrics.horizontalAdvance(text) < bar.tabRect(k).width(), text
        assert bar.rect().contains(bar.tabRect(k)), text
        assert tabs.tabToolTip(k).startswith(FULL[k] + ":"), tabs.tabToolTip(k)
    titles = [bar.tabText(k) for k in range(bar.count())]
    assert titles[5] == ("Problems (12)")
    if size[0] >= 1920:   # room for the full titles: they are shown
        assert titles[:5] + titles[6:] == FULL[:5] + FULL[6:]
    else:
        assert titles[0] == "Eqs" and titles[3] == "Sim"
