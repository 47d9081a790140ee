"""Opening a project reads it and derives what showing it takes (its display arm, its problems) off the GUI thread
(issue 29: opening the tube arm stopped the window for 0.4 to 0.7 s); the views take
those results instead of computing them again, and Cancel in the busy box keeps the project on screen."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from PySide6.QtWidgets import QApplication

from designer.explore.coupling import default_map_joints
from designer.explore.joints import explore_arm
from designer.gui import off_thread, window_files
from designer.kinematics import display_arm
from designer.numeric.checks import check_model
from designer.project import load_project
from tests.support.busy_box import cancel_while

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def test_opening_derives_the_arm_and_problems_off_the_gui_thread_once(window, monkeypatch):
    threads = []
    real = window_files.prepare_design

    def recorded(model):
        threads.append(threading.current_thread())
        return real(model)

    monkeypatch.setattr(window_files, "prepare_design", recorded)
    builds = window.design.arm_builds
    assert window.open_file(ROBOTS / "tube_arm.json")
    model = window.document.model
    assert model.name == load_project(ROBOTS / "tube_arm.json").name
    assert len(threads) == 1 and threads[0] is not threading.main_thread()
    assert window.design.arm_builds == builds   # the window took the worker's arm: none built on the GUI thread
    expected = display_arm(model)   # built here, independently of the worker's
    arm = window.design.arm
    for field in ("dh", "mass", "com", "inertia", "gravity"):
        np.testing.assert_allclose(getattr(arm, field), getattr(expected, field), rtol=1e-12, err_msg=field)
    assert len(arm.beams) == len(expected.beams) == 3   # the tube arm's part-made links bend
    assert [str(p) for p in window.problems.problems] == [str(p) for p in check_model(model)]
    pair = (window.explore.map_view.joint_x.currentData(), window.explore.map_view.joint_y.currentData())
    assert pair == default_map_joints(explore_arm(model))


def test_a_slow_open_leaves_the_window_answering_and_cancel_keeps_the_project(window, boxes, qtbot, monkeypatch):
    before, title = window.document.model, window.windowTitle()
    release, read_started = threading.Event(), threading.Event()

    def slow_load(path):   # stands for a large project on a slow disk
        read_started.set()
        release.wait(30)
        return load_project(path)

    monkeypatch.setattr(window_files, "load_project", slow_load)
    window.recent.add(ROBOTS / "tube_arm.json")
    def another_open(seen):   # another open meanwhile: refused, said why
        if "second" not in seen:
            seen["second"] = window.open_file(ROBOTS / "puma560.json")
            seen["message"] = window.statusBar().currentMessage()
    opened, seen = cancel_while(window, read_started, lambda: window.open_file(ROBOTS / "tube_arm.json"), another_open)
    assert not opened and seen["boxes"] == 1 and seen["ticks"] >= 2 and not boxes.shown
    assert seen["second"] is False and seen["message"].startswith("Still opening tube_arm.json")
    assert window.document.model is before and window.windowTitle() == title
    assert str(ROBOTS / "tube_arm.json") in window.recent.paths()   # cancelled, not refused: still a recent file
    release.set()   # the read ends after the cancel: its result is dropped
    qtbot.waitUntil(lambda: not off_thread.ABANDONED, timeout=60_000)
    assert window.document.model is before and window.windowTitle() == title


def test_a_refused_file_is_said_once_and_keeps_the_project(window, boxes, tmp_path):
    before = window.document.model
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "manipulator-designer", "links": [{"a": "__import__(\'os\')"}]}')
    window.recent.add(bad)
    assert not window.open_file(bad)
    assert window.document.model is before
    assert len(boxes.shown) == 1 and "bad.json" not in " ".join(window.recent.paths())


def test_every_hostile_project_file_is_one_box_naming_it_and_keeps_the_project(window, boxes, tmp_path):
    """The command line's corpus of broken project files (tests/cli/test_hostile_files.py), opened in the window:
    each refused in one message box of one line that names the file; the project, its title and the recent
    files stay as they were."""
    from tests.cli.test_hostile_files import _common, _json_corpus, _place
    before, title = window.document.model, window.windowTitle()
    for case, content in {**_common(), **_json_corpus()}.items():
        folder = tmp_path / case.replace("/", "_").replace(" ", "_")
        folder.mkdir()
        path = _place(folder, "arm.json", case, content)
        boxes.shown.clear()
        assert not window.open_file(path), case
        texts = boxes.of("critical")
        assert len(boxes.shown) == 1 and len(texts) == 1, (case, boxes.shown)
        assert str(path) in texts[0] and "\n" not in texts[0], (case, texts[0][:300])
        assert window.document.model is before and window.windowTitle() == title, case
        assert str(path) not in window.recent.paths(), case


def test_opening_another_arm_lays_the_3d_view_out_once(window, qtbot):
    """The joint sliders for another number of joints come as one widget: added row by row to the shown window,
    each label, slider and spin box laid the window out again, and the 3D view above resized and drew itself each
    time (27 times opening the tube arm after the PUMA 560; issue 29: blocks of 80-140 ms)."""
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_file(ROBOTS / "puma560.json")
    view = window.arm_view.view
    qtbot.waitUntil(lambda: len(window.sliders.values()) == 6 and window.sliders.isVisible())
    for _ in range(5):   # whatever the open left queued, laid out and painted
        QApplication.processEvents()
    sizes: list[tuple[int, int]] = []
    resize = view.resizeGL
    view.resizeGL = lambda w, h: (sizes.append((w, h)), resize(w, h))[1]
    before = (view.width(), view.height())
    window.document.undo_stack.setClean()
    assert window.open_file(ROBOTS / "tube_arm.json")
    qtbot.waitUntil(lambda: len(window.sliders.values()) == 3 and all(s.isVisible() for s in window.sliders.sliders))
    qtbot.waitUntil(lambda: (view.width(), view.height()) != before)   # three rows fewer: the view grows
    for _ in range(5):   # whatever the open left queued, laid out and painted
        QApplication.processEvents()
    assert len(sizes) == 1 and sizes[0][1] > before[1], (before, sizes)
