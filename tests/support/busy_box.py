"""Cancel the window's busy box while a slow step runs off the GUI thread (tests/gui/test_*_answering.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressDialog, QPushButton


def cancel_while(window, read_started: threading.Event, action: Callable[[], object],
                 meanwhile: Callable[[dict], None] | None = None) -> tuple[object, dict]:
    """``action()``'s result, and what a 20 ms timer saw while it ran: ``ticks`` (the GUI thread answered) and
    ``boxes`` (busy boxes shown once the read had started; the first one's Cancel is clicked). ``meanwhile(seen)``
    runs on every tick after the read has started, before the box is looked at."""
    seen: dict = {"ticks": 0, "boxes": 0}

    def tick():   # runs only while the GUI thread answers during the read
        seen["ticks"] += 1
        shown = [d for d in window.findChildren(QProgressDialog) if d.isVisible()]
        if meanwhile is not None and read_started.is_set():
            meanwhile(seen)
        if shown and read_started.is_set():
            seen["boxes"] = len(shown)
            shown[0].findChild(QPushButton).click()   # the box's Cancel button

    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(tick)
    timer.start()
    try:
        result = action()
    finally:
        timer.stop()
    return result, seen
