"""The document's per-project state (gui/project_state.py): replaced whole by a reset, with its undo
history, unsaved mark, results and jobs."""

from __future__ import annotations

import dataclasses
import threading

from PySide6.QtWidgets import QWidget

from designer.gui.document import Document
from designer.gui.job_runner import JobRunner
from designer.gui.project_state import ProjectSlot
from designer.gui.window_files import new_model
from designer.jobs import Progress


class View(QWidget):
    result = ProjectSlot()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.forgotten = 0

    def forget_project(self) -> None:
        self.forgotten += 1


class Window(QWidget):
    """What a view finds in its window: a ``document``."""

    def __init__(self):
        super().__init__()
        self.document = Document(new_model(), parent=self)
        self.view = View(self)
        self.document.add_project_view(self.view)


def test_an_unsaved_import_leaves_nothing_of_its_mark_to_the_next_project(qtbot):
    window = Window()
    qtbot.addWidget(window)
    doc = window.document
    dirty = []
    doc.dirtyChanged.connect(dirty.append)
    doc.reset(dataclasses.replace(new_model(), name="imported"), None, origin="MJCF two.xml", dirty=True)
    assert doc.dirty and doc.undo_stack.count() == 0 and not doc.undo_group.canUndo()
    first = doc.state
    doc.reset(new_model(), None, origin="example x.json")
    # before issue 29 the one stack kept the import's reset clean index: "*" with nothing to undo
    assert not doc.dirty and dirty[-1] is False and doc.state is not first and first.closed
    doc.apply(dataclasses.replace(doc.model, name="edited"), "Rename")
    assert doc.dirty and doc.undo_group.canUndo()
    doc.undo_group.undo()
    assert not doc.dirty and doc.model.name == "New arm"


def test_a_views_results_live_in_the_state_and_go_with_it(qtbot):
    window = Window()
    qtbot.addWidget(window)
    view, doc = window.view, window.document
    view.result = "the PUMA's fall"
    assert doc.state.results[id(view)] == {"result": "the PUMA's fall"}
    doc.reset(new_model())
    assert view.result is None and view.forgotten == 1
    alone = View()   # outside a window: the view keeps its own
    qtbot.addWidget(alone)
    alone.result = 3
    assert alone.result == 3 and View().result is None


def test_a_job_of_a_replaced_project_is_cancelled_and_its_end_dropped(qtbot):
    window = Window()
    qtbot.addWidget(window)
    runner = JobRunner(window.view)
    release = threading.Event()
    shown, ended = [], []

    def job(token):
        yield Progress("waiting", None)
        release.wait(60)   # it ends only when the test lets it: its result comes after the reset
        return "old project's result"

    worker = runner.start("Job", job, shown.append)
    worker.signals.finished.connect(lambda *_: ended.append("finished"))
    worker.signals.cancelled.connect(lambda *_: ended.append("cancelled"))
    assert runner.busy and window.document.state.running == [worker]
    window.document.reset(new_model())
    assert not runner.busy and worker.token.cancelled   # idle at once
    release.set()
    qtbot.waitUntil(lambda: bool(ended), timeout=60_000)
    assert shown == [] and runner.error_box.isHidden()
