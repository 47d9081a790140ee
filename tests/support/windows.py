"""A shown main window for pytest-qt tests, with its derivations on the thread pool (imports Qt)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from designer.gui.main_window import MainWindow
from designer.jobs import Progress
from designer.project import load_project


def thread_derive(model, method, simplify, token):
    """The real derivation as a thread-pool job with one progress step (no worker process)."""
    yield Progress("fake", 0.5)
    from designer.dynamics import derive as real
    return real(model, method, simplify)


def open_window(qtbot, tmp_path: Path, project: Path) -> MainWindow:
    """``project`` in a main window with private settings and recovery folder, shown and exposed."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(load_project(project), settings=settings, recovery_dir=tmp_path / "recovery",
                   derive=thread_derive)
    qtbot.addWidget(w, before_close_func=lambda w: w.document.undo_stack.setClean())
    w.show()
    qtbot.waitExposed(w)
    return w


def click_answers(qtbot, button, signal) -> tuple[bool, tuple]:
    """(answered at once, arguments): click ``button`` in the event loop as a user does, and say whether
    ``signal`` came before a marker queued right after the click (the window answered on the event loop's
    next turn, without waiting on a worker) and what it carried. How long the answer takes in milliseconds
    is a benchmark's business (benchmarks/bench_cancel.py), not a test's."""
    from PySide6.QtCore import QObject, Qt, QTimer, Signal

    class Marker(QObject):
        posted = Signal()

    marker = Marker()
    seen: dict = {}
    marker.posted.connect(lambda: seen.setdefault("marker", True), Qt.ConnectionType.QueuedConnection)

    def record(*args):
        seen.setdefault("signal", ("marker" not in seen, args))

    def press():
        button.click()
        marker.posted.emit()   # queued: delivered after everything the click queued
    signal.connect(record)
    try:
        with qtbot.waitSignal(signal, timeout=120_000):
            QTimer.singleShot(0, press)
    finally:
        signal.disconnect(record)
    return seen["signal"]
