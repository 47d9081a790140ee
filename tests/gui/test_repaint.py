"""Nothing stays painted over the window after a pop-up or another window closes (issue 20, item 9):
the screen is grabbed before, while and after, and the window's pixels must come back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect, QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QToolTip, QWidget

from designer.gui.main_window import MainWindow
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    w = MainWindow(load_project(ROBOTS / "puma560.json"),
                   settings=QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.fit_to_screen(QGuiApplication.primaryScreen().availableGeometry())   # all of it on the screen
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(400)
    return w


def _screen(window) -> np.ndarray:
    """The window's area of the screen as the X server shows it (not the window's own rendering)."""
    rect = QRect(window.mapToGlobal(QPoint(0, 0)), window.size())
    image = QGuiApplication.primaryScreen().grabWindow(0).toImage().copy(rect)
    image = image.convertToFormat(image.Format.Format_RGB888)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, :3 * image.width()].reshape(image.height(), image.width(), 3).astype(int)


def _changed(a: np.ndarray, b: np.ndarray) -> int:
    """Pixels that differ visibly."""
    return int((np.abs(a - b).sum(axis=2) > 30).sum())


def test_only_the_gl_view_is_a_native_window(window):
    native = [w for w in window.findChildren(QWidget) if w.internalWinId()]
    assert native == [window.arm_view.view]   # the splitters, tabs and sliders were native too


def test_closed_pop_ups_and_windows_leave_nothing_behind(qtbot, window):
    view = window.arm_view.view
    before = _screen(window)
    # a menu and a tooltip over the 3D view and the column beside it
    menu = QMenu(window)
    for k in range(10):
        menu.addAction(f"cy{k}  centre of mass y of link {k}  WWWWWWWWWWWWWWWWWWWW")
    menu.popup(view.mapToGlobal(QPoint(-80, 30)))
    qtbot.waitExposed(menu)
    qtbot.wait(200)
    assert _changed(before, _screen(window)) > 1000     # it is on the screen
    menu.close()
    QToolTip.showText(view.mapToGlobal(QPoint(-40, 200)), "cx3  centre of mass x of link 3 " + "W" * 30, view)
    qtbot.wait(300)
    QToolTip.hideText()
    qtbot.wait(400)
    assert _changed(before, _screen(window)) == 0
    # the user guide, a window of its own, moved over the window and closed
    window.show_user_guide()
    docs = window.docs_window
    qtbot.waitExposed(docs)
    docs.move(view.mapToGlobal(QPoint(150, 40)))
    qtbot.wait(300)
    assert _changed(before, _screen(window)) > 1000
    docs.close()
    qtbot.wait(500)
    assert _changed(before, _screen(window)) == 0       # a strip of its text stayed beside the view
