"""The problems panel: what :func:`designer.model.validate` finds, listed, never blocking."""

from __future__ import annotations

import re

from PySide6.QtCore import Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from ..model import Severity, validate

__all__ = ["ProblemsPanel"]

_COLORS = {Severity.ERROR: QColor(170, 0, 0), Severity.WARNING: QColor(140, 95, 0)}


class ProblemsPanel(QListWidget):
    """Lists the model's problems; ``countChanged(errors, warnings)`` for a tab title."""

    countChanged = Signal(int, int)
    linkChosen = Signal(int)   # 0-based link of a clicked problem, to select it in the editors

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.problems = []
        document.modelChanged.connect(self.refresh)
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        self.refresh(document.model)

    def refresh(self, model) -> None:
        self.problems = validate(model)
        self.clear()
        for p in self.problems:
            item = QListWidgetItem(f"{p.severity.value}: {p}")
            item.setForeground(QBrush(_COLORS[p.severity]))
            self.addItem(item)
        if not self.problems:
            self.addItem(QListWidgetItem("No problems found."))
        errors = sum(p.severity is Severity.ERROR for p in self.problems)
        self.countChanged.emit(errors, len(self.problems) - errors)

    def _activated(self, item: QListWidgetItem) -> None:
        match = re.match(r"links\[(\d+)\]", item.text().split(": ", 1)[-1])
        if match:
            self.linkChosen.emit(int(match.group(1)) - 1)
