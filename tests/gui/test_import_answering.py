"""An import reads its file off the GUI thread (issue 29): the window answers meanwhile, and Cancel in the busy
box keeps the project on screen and drops the late result."""

from __future__ import annotations

import threading

from designer.gui import urdf_dialogs
from tests.support.busy_box import cancel_while


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

    result, seen = cancel_while(window, read_started, lambda: urdf_dialogs.import_file(
        window, "URDF", urdf_dialogs.URDF_FILTER, slow_read, make, path, {}))
    assert result is None and seen["boxes"] == 1 and seen["ticks"] >= 2
    assert window.document.model is before and not boxes.shown
    release.set()   # the read ends after the cancel: its result is dropped
    qtbot.waitUntil(lambda: not urdf_dialogs._ABANDONED, timeout=60_000)
    assert window.document.model is before and not boxes.shown
