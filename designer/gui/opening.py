"""What the user sees while the window loads: a light window, shown at once, until the main window and its
project are ready (issue 29).

The main window's modules bring sympy, numpy's and pyqtgraph's plots and a few hundred widgets: about two
seconds before anything would show. :class:`Opening` needs only Qt's widgets, so it paints sooner than a
bare Qt window with a GL view (``benchmarks/bench_startup.py``); :func:`designer.gui.app.start` builds the main
window after its first paint, takes its place, and then :attr:`Opening.opened` carries the window (its
project loaded) - the state a caller or a test waits for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QHBoxLayout, QHeaderView, QLabel, QProgressBar,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

if TYPE_CHECKING:
    from ..glance import Glance
    from .view3d import ArmView

__all__ = ["Opening", "SIZE", "COLUMNS"]

SIZE = (1880, 1040)   # main_window.DEFAULT_SIZE: the placeholder stands where the window will
FRAME = (16, 48)     # main_window.FRAME: the window manager's frame and title bar
# the main window's columns at its default size, about 3 : 4 : 4 (the editors, the arm, the results): the first
# look's table and arm stand about where the window will show them
COLUMNS = (3, 4, 4)


class Opening(QWidget):
    """A placeholder window: the name of what is opening, a line saying which step runs, a busy bar.

    ``opened(window)`` is emitted once the main window is on screen with its project loaded; ``main_window`` is
    None until then. ``after_first_paint(callback)`` runs ``callback`` once, after this window's first
    paint has reached the screen's buffer.

    The first look (:meth:`first_look`): before the main window's modules load, the project's arm drawn from its
    numbers in the 3D view and its DH table as the file writes it, where the main window will show them (its
    columns), read only, in a window of its own that takes this one's place (:attr:`look`; :meth:`front` is the
    one on screen); ``looked(arm_view)`` is emitted when they are shown.
    """

    opened = Signal(object)
    looked = Signal(object)

    def __init__(self, what: str, settings: QSettings | None = None):
        super().__init__()
        self.main_window: QWidget | None = None
        self.closed = False
        self._painted: list = []
        self.arm_view: ArmView | None = None   # the first look's 3D view, once made
        self.table: QTableWidget | None = None
        self.setWindowTitle(f"Manipulator Designer — opening {what}")
        self.what = what
        self.look: _LookWindow | None = None   # the first look's window, once made
        self.info, self.step = _info(self, what)   # the whole window
        columns = QHBoxLayout(self)
        columns.setContentsMargins(0, 0, 0, 0)
        columns.addWidget(self.info)
        _place(self, settings)

    def first_look(self, look: Glance) -> ArmView:
        """Make the first look of ``look`` (the module :mod:`designer.gui.view3d` imported by now) in a window of
        its own, hidden: its 3D view drawn off screen first (:func:`designer.gui.app.open_window`), then
        :meth:`show_first_look`.

        A window of its own, made with its 3D view in it, not this one: a GL view added to a window that is on
        screen makes Qt destroy that window's X window and make another for OpenGL, and repaint it all (a block
        of 40-55 ms in Qt after the view was made, the window unmapped and mapped again; issue 29)."""
        from .view3d import ArmView
        from ..glance import TABLE_COLUMNS
        from .table_headers import DH_HEADERS
        window = _LookWindow(self)
        table = QTableWidget(len(look.rows), len(TABLE_COLUMNS), window)
        table.setHorizontalHeaderLabels(DH_HEADERS[look.arm.convention])   # as the main window's table
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setToolTip("the project's DH table as its file writes it: it can be edited once the window has loaded")
        for row, cells in enumerate(look.rows):
            for column, text in enumerate(cells):
                table.setItem(row, column, QTableWidgetItem(text))
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        arm_view = ArmView(window)
        arm_view.in_native_window()   # as the main window's view
        arm_view.set_arm(look.arm)
        view = arm_view.view   # hidden, its place kept (it is drawn there off screen): nothing moves when it comes
        policy = view.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        view.setSizePolicy(policy)
        view.hide()
        columns = QHBoxLayout(window)
        columns.setContentsMargins(0, 0, 0, 0)
        for widget, stretch in zip((table, arm_view, window.info), COLUMNS):
            columns.addWidget(widget, stretch)
        window.setGeometry(self.geometry())   # where this one stands now (moved or resized by the user)
        window.setWindowState(self.windowState())
        self.look, self.table, self.arm_view = window, table, arm_view
        return arm_view

    def show_first_look(self) -> None:
        """The first look's window in this one's place, with its table and the arm's place (its view a turn
        later: :meth:`show_first_look_arm`), the name and the step."""
        if self.look is None or self.closed:
            return
        self.look.show()
        self.hide()

    def show_first_look_arm(self) -> None:
        """The first look's 3D view shown in its place: its first frame on screen in a block of its own (as the
        main window's, designer.gui.app._show_3d)."""
        if self.arm_view is None:
            return
        self.arm_view.view.show()
        self.looked.emit(self.arm_view)

    def front(self) -> Opening | _LookWindow:
        """The window the user sees while the main window loads: the first look's, once shown, else this one."""
        return self.look if self.look is not None and self.look.isVisible() else self

    def say(self, text: str) -> None:
        """Show the step that runs now (painted at once: the steps block the event loop)."""
        self.step.setText(text)
        if self.look is not None:
            self.look.step.setText(text)
        self.front().step.repaint()   # the line alone, not the window
        QApplication.processEvents()

    def leave(self) -> None:
        """Hide this window and the first look's: the main window stands in their place."""
        self.hide()
        if self.look is not None:
            self.look.hide()

    def after_first_paint(self, callback) -> None:
        self._painted.append(callback)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self._painted:
            callbacks, self._painted = self._painted, []
            for callback in callbacks:   # after this paint is flushed: the next turn of the event loop
                QTimer.singleShot(0, callback)

    def closeEvent(self, event) -> None:
        if self.main_window is None:
            self.closed = True   # closed by the user while loading: the start stops there
        super().closeEvent(event)

    def finish(self, window: QWidget) -> None:
        """The main window stands in its place: hide this one and say so."""
        self.main_window = window
        self.leave()
        if self.look is not None:   # the first look's window and its GL resources go
            self.look.deleteLater()
            self.look = self.table = self.arm_view = None
        self.opened.emit(window)


class _LookWindow(QWidget):
    """The first look's window (:meth:`Opening.first_look`): closing it closes the start, as closing the
    placeholder does."""

    def __init__(self, opening: Opening):
        super().__init__()
        self.opening = opening
        self.setWindowTitle(opening.windowTitle())
        self.info, self.step = _info(self, opening.what)   # the placeholder's column, on in its place
        self.step.setText(opening.step.text())

    def closeEvent(self, event) -> None:
        if self.opening.main_window is None:
            self.opening.closed = True   # closed by the user while loading: the start stops there
        super().closeEvent(event)


def _info(parent: QWidget, what: str) -> tuple[QWidget, QLabel]:
    """The name of what opens, the step that runs and a busy bar, centred in a column: (the column, the step's
    line)."""
    info = QWidget(parent)
    layout = QVBoxLayout(info)
    layout.addStretch(2)
    title = QLabel(f"Opening {what}", info)
    font = title.font()
    font.setPointSizeF(font.pointSizeF() * 1.6)
    title.setFont(font)
    step = QLabel("Loading the window…", info)
    bar = QProgressBar(info)
    bar.setRange(0, 0)   # busy: the steps take unknown times
    bar.setMaximumWidth(360)
    for widget in (title, step, bar):
        layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignHCenter)
    layout.addStretch(3)
    return info, step


def _place(window: QWidget, settings: QSettings | None) -> None:
    """Where the main window will stand: its saved geometry, else its default size centred on the screen."""
    saved = (settings or QSettings()).value("window/geometry")
    if isinstance(saved, QByteArray | bytes) and window.restoreGeometry(saved):
        return
    screen = QGuiApplication.primaryScreen()
    available = screen.availableGeometry() if screen is not None else QRect(0, 0, *SIZE)
    width = max(640, min(SIZE[0], available.width() - FRAME[0]))
    height = max(480, min(SIZE[1], available.height() - FRAME[1]))
    window.setGeometry(available.x() + (available.width() - width) // 2,
                       available.y() + max(0, (available.height() - height - FRAME[1]) // 2), width, height)
