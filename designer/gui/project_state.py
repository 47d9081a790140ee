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

__all__ = ["ProjectState", "ProjectSlot", "UNDO_LIMIT", "state_of"]

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
    results:
        What the views computed for it (their :class:`ProjectSlot` attributes), by view.
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
        self.results: dict[int, dict[str, Any]] = {}   # each view's results (ProjectSlot), by the view's id
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


def state_of(widget: Any) -> ProjectState | None:
    """The state of the project open in ``widget``'s window: the first ancestor (or the widget) with a
    ``document`` holding one; None outside such a window (a panel on its own)."""
    while widget is not None:
        state = getattr(getattr(widget, "document", None), "state", None)
        if isinstance(state, ProjectState):
            return state
        widget = widget.parentWidget()
    return None


class ProjectSlot:
    """A view's attribute that belongs to the open project (a simulation, an Explore result): its value
    lives in the window's current :class:`ProjectState` (``state.results``), so that another project
    opened takes it away with the old state and the view reads ``default`` (None) from then on, before
    it has even redrawn. Outside a window the view keeps the value itself.

        >>> class SimulatePanel(QWidget):
        ...     result = ProjectSlot()
    """

    def __init__(self, default: Any = None, factory: Callable[[], Any] | None = None):
        self.default = default
        self.factory = factory   # a fresh value for each project (a cache a view fills in place)
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @staticmethod
    def _store(view: Any) -> dict[str, Any]:
        state = state_of(view)
        if state is None:
            return view.__dict__.setdefault("_project_slots", {})
        return state.results.setdefault(id(view), {})

    def __get__(self, view: Any, owner: type | None = None) -> Any:
        if view is None:
            return self
        store = self._store(view)
        if self.factory is not None and self.name not in store:
            store[self.name] = self.factory()
        return store.get(self.name, self.default)

    def __set__(self, view: Any, value: Any) -> None:
        self._store(view)[self.name] = value
