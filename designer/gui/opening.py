"""What the user sees while the window loads: a light window, shown at once, until the main window and its
project are ready (issue 29).

The main window's modules bring sympy, numpy's and pyqtgraph's plots and a few hundred widgets: about two
seconds before anything would show. :class:`Opening` needs only Qt's widgets, so it paints sooner than a
bare Qt window with a GL view (``benchmarks/bench_startup.py``); :func:`designer.gui.app.start` builds the main
window after its first paint, takes its place, and then :attr:`Opening.opened` carries the window (its
project loaded) - the state a caller or a test waits for.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QProgressBar, QVBoxLayout, QWidget

__all__ = ["Opening", "SIZE"]

SIZE = (1880, 1040)   # main_window.DEFAULT_SIZE: the placeholder stands where the window will
FRAME = (16, 48)     # main_window.FRAME: the window manager's frame and title bar


class Opening(QWidget):
    """A placeholder window: the name of what is opening, a line saying which step runs, a busy bar.

    ``opened(window)`` is emitted once the main window is on screen with its project loaded; ``main_window`` is
    None until then. ``after_first_paint(callback)`` runs ``callback`` once, after this window's first
    paint has reached the screen's buffer.
    """

    opened = Signal(object)

    def __init__(self, what: str, settings: QSettings | None = None):
        super().__init__()
        self.main_window: QWidget | None = None
        self.closed = False
        self._painted: list = []
        self.setWindowTitle(f"Manipulator Designer — opening {what}")
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        title = QLabel(f"Opening {what}", self)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        title.setFont(font)
        self.step = QLabel("Loading the window…", self)
        self.bar = QProgressBar(self)
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
        self.opened.emit(window)
