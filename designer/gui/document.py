"""The open project: the current model, its file, and the undo stack of edits.

Models are immutable, so an edit is a :class:`ModelEdit` holding the model
before and after; undo and redo swap them. The document is a small QObject
only so widgets can subscribe to ``modelChanged``; it never looks at widgets.

What belongs to the project (model, file, undo history and unsaved mark, its jobs) is the
document's :attr:`~Document.state`, a :class:`~designer.gui.project_state.ProjectState` that
:meth:`~Document.reset` replaces whole; the undo and redo actions and the history view follow
the current state's stack through :attr:`~Document.undo_group`.
"""

from __future__ import annotations

from pathlib import Path

from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoGroup, QUndoStack

from ..model import Manipulator
from .project_state import ProjectState

__all__ = ["Document", "ModelEdit", "ProjectView"]


class ProjectView(Protocol):
    """A view that keeps something of the open project (a result, a table, a cache)."""

    def forget_project(self) -> None:
        """Another project replaced the open one: drop everything of the old one, draw empty."""


class ModelEdit(QUndoCommand):
    """One edit of the model: ``before`` -> ``after`` with a readable label."""

    def __init__(self, document: Document, before: Manipulator, after: Manipulator, label: str):
        super().__init__(label)
        self.document = document
        self.before = before
        self.after = after

    def redo(self) -> None:
        self.document._set_model(self.after)

    def undo(self) -> None:
        self.document._set_model(self.before)


class Document(QObject):
    """Current model, file path and undo stack.

    Signals
    -------
    modelChanged(object)
        The new :class:`Manipulator`, after every edit, undo, redo or reset.
    structureChanged()
        The new model has a different number of links (rows appear or vanish).
    pathChanged(object)
        The file path (``Path`` or None for an untitled project).
    dirtyChanged(bool)
        True when there are edits not saved.
    stateReplaced(object)
        A new :class:`ProjectState` (New, Open, import, recovery), before its model is announced; the
        project views have forgotten the old one by then.
    """

    modelChanged = Signal(object)
    structureChanged = Signal()
    pathChanged = Signal(object)
    dirtyChanged = Signal(bool)
    stateReplaced = Signal(object)
    reset_done = Signal()

    def __init__(self, model: Manipulator, path: str | Path | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.undo_group = QUndoGroup(self)   # the undo actions and the history view follow the active stack
        self.undo_group.cleanChanged.connect(self._clean_changed)
        self._views: list[ProjectView] = []
        self.state = self._new_state(model, path, "", False)

    def _new_state(self, model: Manipulator, path, origin: str, dirty: bool) -> ProjectState:
        state = ProjectState(model, path, origin, dirty=dirty, parent=self)
        self.undo_group.addStack(state.undo_stack)
        self.undo_group.setActiveStack(state.undo_stack)
        return state

    def _clean_changed(self, clean: bool) -> None:
        self.dirtyChanged.emit(not clean)

    def add_project_view(self, view: ProjectView) -> None:
        """``view.forget_project()`` is called whenever another project replaces the open one."""
        self._views.append(view)

    # -- state ---------------------------------------------------------------
    @property
    def model(self) -> Manipulator:
        return self.state.model

    @property
    def path(self) -> Path | None:
        return self.state.path

    @property
    def origin(self) -> str:
        """e.g. "example puma560.json" for an untitled copy of an example."""
        return self.state.origin

    @property
    def undo_stack(self) -> QUndoStack:
        """The open project's edits."""
        return self.state.undo_stack

    @property
    def dirty(self) -> bool:
        return not self.undo_stack.isClean()

    def display_name(self) -> str:
        """The file name for the title bar."""
        if self.path is not None:
            return self.path.name
        return f"untitled ({self.origin})" if self.origin else "untitled"

    # -- edits ---------------------------------------------------------------
    def apply(self, model: Manipulator, label: str) -> bool:
        """Push an undoable edit to ``model``; False (and no command) if nothing changes."""
        if model == self.model and model.requirements == self.model.requirements:   # requirements: no part of ==
            return False
        self.undo_stack.push(ModelEdit(self, self.model, model, label))
        return True

    def _set_model(self, model: Manipulator) -> None:
        structural = model.n != self.state.model.n
        self.state.model = model
        if structural:
            self.structureChanged.emit()
        self.modelChanged.emit(model)

    def reset(self, model: Manipulator, path: str | Path | None = None, *, origin: str = "",
              dirty: bool = False) -> None:
        """Replace the whole project (New, Open, import, recovery) with a new :class:`ProjectState`: the
        old one's jobs are cancelled (their late results dropped), every project view forgets it, and
        the undo history and unsaved mark start afresh.

        ``dirty`` marks the content as not saved (an import, a recovered session).
        """
        old, self.state = self.state, self._new_state(model, path, origin, dirty)
        old.close()
        self.undo_group.removeStack(old.undo_stack)
        old.deleteLater()   # its undo stack and commands go with it
        for view in list(self._views):
            view.forget_project()
        self.stateReplaced.emit(self.state)
        self.pathChanged.emit(self.path)
        if model.n != old.model.n:
            self.structureChanged.emit()
        self.modelChanged.emit(model)
        self.structureChanged.emit()
        self.dirtyChanged.emit(self.dirty)
        self.reset_done.emit()

    def mark_saved(self, path: str | Path) -> None:
        self.state.path = Path(path)
        self.state.origin = ""
        self.undo_stack.setClean()
        self.pathChanged.emit(self.path)
        self.dirtyChanged.emit(False)
