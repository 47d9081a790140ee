"""The window fits a laptop screen, the Explore panel fits its column, long equations scroll."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import sympy as sp
from PySide6.QtCore import QPoint, QRect, QSettings

from designer.gui.main_window import MainWindow
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    w = MainWindow(load_project(ROBOTS / "puma560.json"), settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    return w


def _inside(widget, window) -> bool:
    """Whether ``widget`` is shown and lies wholly inside the window's client area."""
    top_left = widget.mapTo(window, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    return widget.isVisible() and not widget.visibleRegion().isEmpty() and window.rect().contains(rect)


@pytest.mark.parametrize("size", [(1366, 768), (1600, 1000)])
def test_the_window_fits_the_screen_with_its_panels_and_sliders(qtbot, window, size):
    screen = QRect(0, 0, size[0], size[1] - 30)   # less a task bar
    window.fit_to_screen(screen)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)
    assert window.width() <= screen.width() and window.height() <= screen.height()
    assert window.minimumSizeHint().width() <= screen.width()
    assert window.minimumSizeHint().height() <= screen.height()
    assert _inside(window.result_tabs, window) and _inside(window.derivation.derive_button, window)
    assert len(window.sliders.sliders) == 6
    for slider, spin in zip(window.sliders.sliders, window.sliders.spins):
        assert _inside(slider, window) and _inside(spin, window)
    assert _inside(window.arm_view, window) and window.arm_view.height() >= 200


def test_the_explore_panel_fits_its_column_at_1600(qtbot, window):
    window.fit_to_screen(QRect(0, 0, 1600, 970))
    window.show()
    qtbot.waitExposed(window)
    window.result_tabs.setCurrentWidget(window.gates["Explore"])   # the tab's page: the scroll area or a
    qtbot.wait(50)                                                  # closed chain's one-line refusal
    scroll = window.explore.parentWidget().parentWidget()
    assert scroll.isVisible()
    for view in window.explore.views():   # every tab, not only the first
        window.explore.tabs.setCurrentWidget(view)
        qtbot.wait(10)
        assert not scroll.horizontalScrollBar().isVisible(), type(view).__name__
        assert window.explore.minimumSizeHint().width() <= scroll.viewport().width()


def test_a_long_equation_scrolls_sideways(qtbot):
    from designer.gui.equations_view import EquationsView
    from tests.support.report_equations import robmat_double_pendulum
    view = EquationsView()
    qtbot.addWidget(view)
    view.resize(320, 500)
    view.show()
    eq = robmat_double_pendulum()
    q = sp.symbols("q1:7")
    long_term = sum(sp.Symbol(f"L{k}") * sp.sin(q[k % 6]) * sp.cos(q[(k + 1) % 6]) for k in range(40))
    view.set_equations(replace(eq, matrices={"M": sp.Matrix([[long_term]])}))
    view.select_row(0)
    qtbot.waitUntil(lambda: view.rendered_count == 1, timeout=20_000)
    scroll = view.math.parentWidget().parentWidget()
    qtbot.wait(50)
    assert view.math.pixmap().width() > scroll.viewport().width()
    bar = scroll.horizontalScrollBar()
    assert bar.maximum() >= view.math.pixmap().width() - scroll.viewport().width() > 0   # all of it reachable
