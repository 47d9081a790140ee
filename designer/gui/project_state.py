"""One open project's state (issue 29): what opening, importing or New replaces whole.

A :class:`ProjectState` holds everything that belongs to the project on screen and to no other: its
model, file and origin, its undo history with the unsaved mark, the pose it opens at (home), and the
jobs started for it. The window's :class:`~designer.gui.document.Document` holds the current state and
replaces it on New, Open, an example, an import or a recovery; the old state is then closed: its jobs
are cancelled and a result that still arrives for it is dropped (a :class:`~designer.gui.job_runner.JobRunner`
remembers the state each job was started for and drops the ends of a closed state's jobs). Views that keep results of
their own (plots, tables, caches) register with the document (:meth:`Document.add_project_view`)
and forget them when the state is replaced, so nothing of one project is drawn over the next.

A fresh undo stack for each project is what keeps the unsaved mark honest: an imported project is
unsaved with nothing to undo (``resetClean``), and clearing that stack kept the mark into the next
project opened (the title's "*" with Undo greyed, issue 29 item 4).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoStack

from ..model import Manipulator

__all__ = ["ProjectState", "UNDO_LIMIT"]

UNDO_LIMIT = 500
_serials = itertools.count(1)


class ProjectState(QObject):
    """The state of one open project.

    Attributes
    ----------
    serial:
        Its identity: a number no other state of this process has.
    model, path, origin:
        The current model, its file (None when untitled) and where an untitled project came from
        (``"example puma560.json"``).
    undo_stack:
        Its edits; its clean index is the unsaved mark.
    home:
        The pose it opens at: every joint at zero (the sliders clamp it into the limits).
    closed:
        True once another project replaced it: its jobs were cancelled, their results are dropped.
    """

    def __init__(self, model: Manipulator, path: str | Path | None = None, origin: str = "", *,
                 dirty: bool = False, parent: QObject | None = None):
        super().__init__(parent)
        self.serial = next(_serials)
        self.model = model
        self.path = Path(path) if path else None
        self.origin = origin
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        if dirty:
            self.undo_stack.resetClean()   # no state of the history is saved (an import, a recovered session)
        self.home = np.zeros(model.n)
        self.closed = False
        self._jobs: list[tuple[Any, Callable[[Any], None] | None]] = []   # workers started for it, their owners' hooks

    def __repr__(self) -> str:
        return f"<ProjectState {self.serial} {self.model.name!r}{' closed' if self.closed else ''}>"

    # -- jobs ---------------------------------------------------------------------------------
    def adopt(self, worker: Any, on_close: Callable[[Any], None] | None = None) -> None:
        """Remember a job started for this project: when the project is replaced it is cancelled and
        ``on_close(worker)`` is called (a job runner lets go of it there)."""
        self._jobs = [(w, f) for w, f in self._jobs if not w.done]
        self._jobs.append((worker, on_close))

    @property
    def running(self) -> list[Any]:
        """Its jobs that have not ended."""
        return [w for w, _f in self._jobs if not w.done]

    def close(self) -> None:
        """Another project replaced this one: cancel its jobs; their late results will be dropped."""
        self.closed = True
        jobs, self._jobs = self._jobs, []
        for worker, on_close in jobs:
            if not worker.done:
                worker.cancel()
            if on_close is not None:
                on_close(worker)   # also for a pool job done in its thread whose result is still queued
