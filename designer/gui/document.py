"""The open project: the current model, its file, and the undo stack of edits.

Models are immutable, so an edit is a :class:`ModelEdit` holding the model
before and after; undo and redo swap them. The document is a small QObject
only so widgets can subscribe to ``modelChanged``; it never looks at widgets.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from ..model import Manipulator

__all__ = ["Document", "ModelEdit"]


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
    """

    modelChanged = Signal(object)
    structureChanged = Signal()
    pathChanged = Signal(object)
    dirtyChanged = Signal(bool)
    reset_done = Signal()

    def __init__(self, model: Manipulator, path: str | Path | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._model = model
        self._path = Path(path) if path else None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(500)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self.origin = ""  # e.g. "example: puma560.json" for an untitled copy of an example

    def _clean_changed(self, clean: bool) -> None:
        self.dirtyChanged.emit(not clean)

    # -- state ---------------------------------------------------------------
    @property
    def model(self) -> Manipulator:
        return self._model

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def dirty(self) -> bool:
        return not self.undo_stack.isClean()

    def display_name(self) -> str:
        """The file name for the title bar."""
        if self._path is not None:
            return self._path.name
        return f"untitled ({self.origin})" if self.origin else "untitled"

    # -- edits ---------------------------------------------------------------
    def apply(self, model: Manipulator, label: str) -> bool:
        """Push an undoable edit to ``model``; False (and no command) if nothing changes."""
        if model == self._model:
            return False
        self.undo_stack.push(ModelEdit(self, self._model, model, label))
        return True

    def _set_model(self, model: Manipulator) -> None:
        structural = model.n != self._model.n
        self._model = model
        if structural:
            self.structureChanged.emit()
        self.modelChanged.emit(model)

    def reset(self, model: Manipulator, path: str | Path | None = None, *, origin: str = "",
              dirty: bool = False) -> None:
        """Replace the whole document (New, Open, recovery): the undo history starts afresh.

        ``dirty`` marks the content as not saved (a recovered session).
        """
        self.undo_stack.clear()
        self.origin = origin
        self._path = Path(path) if path else None
        self.pathChanged.emit(self._path)
        self._set_model(model)
        self.structureChanged.emit()
        if dirty:
            self.undo_stack.resetClean()  # no state of the history is saved
        self.dirtyChanged.emit(self.dirty)
        self.reset_done.emit()

    def mark_saved(self, path: str | Path) -> None:
        self._path = Path(path)
        self.origin = ""
        self.undo_stack.setClean()
        self.pathChanged.emit(self._path)
        self.dirtyChanged.emit(False)
