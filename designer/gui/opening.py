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
    columns), read only; ``looked(arm_view)`` is emitted when they are shown.
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
        self.columns = QHBoxLayout(self)
        self.columns.setContentsMargins(0, 0, 0, 0)
        self.info = QWidget(self)   # the name, the step and the busy bar: the whole window until the first look
        self.columns.addWidget(self.info)
        layout = QVBoxLayout(self.info)
        layout.addStretch(2)
        title = QLabel(f"Opening {what}", self.info)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        title.setFont(font)
        self.step = QLabel("Loading the window…", self.info)
        self.bar = QProgressBar(self.info)
        self.bar.setRange(0, 0)   # busy: the steps take unknown times
        self.bar.setMaximumWidth(360)
        for widget in (title, self.step, self.bar):
            layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(3)
        self._place(settings)

    def _place(self, settings: QSettings | None) -> None:
        """Where the main window will stand: its saved geometry, else its default size centred on the screen."""
        saved = (settings or QSettings()).value("window/geometry")
        if isinstance(saved, QByteArray | bytes) and self.restoreGeometry(saved):
            return
        screen = QGuiApplication.primaryScreen()
        available = screen.availableGeometry() if screen is not None else QRect(0, 0, *SIZE)
        width = max(640, min(SIZE[0], available.width() - FRAME[0]))
        height = max(480, min(SIZE[1], available.height() - FRAME[1]))
        self.setGeometry(available.x() + (available.width() - width) // 2,
                         available.y() + max(0, (available.height() - height - FRAME[1]) // 2), width, height)

    def first_look(self, look: Glance) -> ArmView:
        """Make the first look of ``look`` (the module :mod:`designer.gui.view3d` imported by now), hidden: its
        3D view drawn off screen first (:func:`designer.gui.app.open_window`), then :meth:`show_first_look`."""
        from .view3d import ArmView
        from ..glance import TABLE_COLUMNS
        table = QTableWidget(len(look.rows), len(TABLE_COLUMNS), self)
        table.setHorizontalHeaderLabels(list(TABLE_COLUMNS))
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setToolTip("the project's DH table as its file writes it: it can be edited once the window has loaded")
        for row, cells in enumerate(look.rows):
            for column, text in enumerate(cells):
                table.setItem(row, column, QTableWidgetItem(text))
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        arm_view = ArmView(self)
        arm_view.in_native_window()   # as the main window's view
        arm_view.set_arm(look.arm)
        for widget in (table, arm_view):
            widget.hide()
        self.table, self.arm_view = table, arm_view
        return arm_view

    def show_first_look(self) -> None:
        """The first look in the window's columns: the table, the arm's place (its view a turn later:
        :meth:`show_first_look_arm`), then the name and the step as before."""
        if self.table is None or self.arm_view is None:
            return
        policy = self.arm_view.sizePolicy()
        policy.setRetainSizeWhenHidden(True)   # its place kept: nothing moves when it comes
        self.arm_view.setSizePolicy(policy)
        self.columns.insertWidget(0, self.table, COLUMNS[0])
        self.columns.insertWidget(1, self.arm_view, COLUMNS[1])
        self.columns.setStretch(2, COLUMNS[2])
        self.arm_view.hide()
        self.table.show()

    def show_first_look_arm(self) -> None:
        """The first look's 3D view shown in its place: its first frame on screen in a block of its own (as the
        main window's, designer.gui.app._show_3d)."""
        if self.arm_view is None:
            return
        self.arm_view.show()
        self.looked.emit(self.arm_view)

    def say(self, text: str) -> None:
        """Show the step that runs now (painted at once: the steps block the event loop)."""
        self.step.setText(text)
        self.step.repaint()
        QApplication.processEvents()

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
        self.hide()
        if self.arm_view is not None:   # the first look's GL resources go with it
            self.arm_view.deleteLater()
            self.arm_view = None
        self.opened.emit(window)
