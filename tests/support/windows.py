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


def time_click(qtbot, button, signal) -> tuple[float, tuple]:
    """(seconds, arguments): from a click on ``button``, made in the event loop as a user's is, to the
    first emission of ``signal``, and what that emission carried."""
    import time

    from PySide6.QtCore import QTimer
    seen: dict = {}

    def record(*args):
        seen.setdefault("signal", (time.monotonic(), args))

    def press():
        seen["pressed"] = time.monotonic()
        button.click()
    signal.connect(record)
    try:
        with qtbot.waitSignal(signal, timeout=120_000):
            QTimer.singleShot(0, press)
    finally:
        signal.disconnect(record)
    at, args = seen["signal"]
    return at - seen["pressed"], args
