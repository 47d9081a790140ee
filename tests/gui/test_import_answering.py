"""An import reads its file off the GUI thread (issue 29): the window answers meanwhile, and Cancel in the busy
box keeps the project on screen and drops the late result."""

from __future__ import annotations

import threading

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressDialog, QPushButton

from designer.gui import urdf_dialogs


def test_a_slow_read_leaves_the_window_answering_and_cancel_keeps_the_project(window, boxes, qtbot, tmp_path):
    before = window.document.model
    release, read_started = threading.Event(), threading.Event()
    path = tmp_path / "slow.urdf"
    path.write_text("<robot name='slow'/>")

    def slow_read(_path):   # stands for a parser loading for seconds
        read_started.set()
        release.wait(30)
        return "a tree that comes too late"

    def make(*_args):
        raise AssertionError("an abandoned read must not be imported")

    seen = {"ticks": 0, "boxes": 0}

    def tick():   # runs only while the GUI thread answers during the read
        seen["ticks"] += 1
        shown = [d for d in window.findChildren(QProgressDialog) if d.isVisible()]
        if shown and read_started.is_set():
            seen["boxes"] = len(shown)
            shown[0].findChild(QPushButton).click()   # the box's Cancel button

    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(tick)
    timer.start()
    try:
        result = urdf_dialogs.import_file(window, "URDF", urdf_dialogs.URDF_FILTER, slow_read, make, path, {})
    finally:
        timer.stop()
    assert result is None and seen["boxes"] == 1 and seen["ticks"] >= 2
    assert window.document.model is before and not boxes.shown
    release.set()   # the read ends after the cancel: its result is dropped
    qtbot.waitUntil(lambda: not urdf_dialogs._ABANDONED, timeout=60_000)
    assert window.document.model is before and not boxes.shown
