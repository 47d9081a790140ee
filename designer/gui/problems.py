"""The problems panel: what :func:`designer.numeric.checks.check_model` finds, listed, never blocking."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from ..model import Severity
from ..model.validation import Problem
from .prepared import model_problems

__all__ = ["ProblemsPanel"]

_COLORS = {Severity.ERROR: QColor(170, 0, 0), Severity.WARNING: QColor(140, 95, 0)}
_DARK_COLORS = {Severity.ERROR: QColor(255, 120, 120), Severity.WARNING: QColor(240, 190, 90)}
_LINK = re.compile(r"links\[(\d+)\]\.?")
_LINK_WORDS = re.compile(r"(?:link|joint) (\d+)\b")   # joint i moves link i


def readable(text: str) -> str:
    """``links[2].mass: ...`` -> ``link 2, mass: ...`` (the numbers are already 1-based)."""
    return _LINK.sub(lambda m: f"link {m.group(1)}" + (", " if m.group(0).endswith(".") else ""), text)


class ProblemsPanel(QListWidget):
    """Lists the model's problems; ``countChanged(errors, warnings)`` for a tab title."""

    countChanged = Signal(int, int)
    linkChosen = Signal(int)   # 0-based link of a clicked problem, to select it in the editors

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.problems = []
        self.document = document
        self._sources: list = []   # editors whose refused entries are listed too (ExprTableModel)
        self._extra: list = []   # problems found outside validate (meshes that cannot be drawn: gui/meshes.py)
        self._checked: tuple = (None, [])   # (model, its problems): models are frozen, so checked once each
        document.modelChanged.connect(self.refresh)
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        self.refresh(document.model)

    def watch(self, source) -> None:
        """List ``source``'s refused entries as errors: a red cell is a problem the model does not show, since
        the model kept its last good value. ``source``: an ExprTableModel (``refused()``, ``errorsChanged``)
        or an ExprLineEdit (``refused()``, ``errorChanged``)."""
        self._sources.append(source)
        signal = source.errorsChanged if hasattr(source, "errorsChanged") else source.errorChanged
        signal.connect(lambda: self.refresh(self.document.model))
        if source.refused():   # an editor with nothing refused adds nothing: the start watches some twenty
            self.refresh(self.document.model)

    def set_extra(self, problems: list) -> None:
        """Problems the view found (a mesh that cannot be loaded), listed after the model's own."""
        self._extra = list(problems)
        self.refresh(self.document.model)

    def adopt(self, model, problems: list[Problem]) -> None:
        """``problems`` are :func:`~designer.gui.prepared.model_problems` of ``model``, found elsewhere (off the
        GUI thread): the next refresh for this very model lists them without checking again."""
        self._checked = (model, list(problems))

    def refresh(self, model) -> None:
        # + a closed chain's closure and mobility (the core's loop checks, which check_model leaves out);
        # a refresh for the same model (an editor's refused entry, the window's start: one per watched editor)
        # lists again without checking again
        if self._checked[0] is not model:
            self._checked = (model, model_problems(model))
        self.problems = self._checked[1] + self._extra
        self.clear()
        refused = [text for source in self._sources for text in source.refused()]
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        for p in self.problems:
            text = str(p)
            item = QListWidgetItem(f"{p.severity.value}: {readable(text)}")
            item.setForeground(QBrush((_DARK_COLORS if dark else _COLORS)[p.severity]))
            match = _LINK.match(text)
            item.setData(Qt.ItemDataRole.UserRole, int(match.group(1)) - 1 if match else None)
            self.addItem(item)
        for text in refused:
            item = QListWidgetItem(f"{Severity.ERROR.value}: entry refused, {text}")
            item.setForeground(QBrush((_DARK_COLORS if dark else _COLORS)[Severity.ERROR]))
            match = _LINK_WORDS.match(text)
            item.setData(Qt.ItemDataRole.UserRole, int(match.group(1)) - 1 if match else None)
            self.addItem(item)
        if not self.problems and not refused:
            self.addItem(QListWidgetItem("No problems found."))
        errors = sum(p.severity is Severity.ERROR for p in self.problems) + len(refused)
        self.countChanged.emit(errors, len(self.problems) + len(refused) - errors)

    def _activated(self, item: QListWidgetItem) -> None:
        link = item.data(Qt.ItemDataRole.UserRole)
        if link is not None:
            self.linkChosen.emit(int(link))
