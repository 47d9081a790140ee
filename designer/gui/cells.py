"""Editable cells that take numbers or expressions.

A bad entry stays visible in red with its message (tooltip and status bar)
while the model keeps its last good value; the entry is dropped once that
value changes by another route (undo, another editor) or a good entry replaces it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import sympy as sp
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLineEdit

from ..model import ExpressionError, format_expr, parse_expr

__all__ = ["BAD_COLOR", "MISSING_COLOR", "CellError", "ExprLineEdit", "ExprTableModel", "expr_text",
           "parse_number", "short_number"]

BAD_COLOR = QColor(255, 190, 190)
MISSING_COLOR = QColor(255, 236, 170)
TEXT_ON_LIGHT = QColor(20, 20, 20)   # the text on those backgrounds, dark in a dark palette too
BAD_STYLE = "QLineEdit { background: #ffbebe; color: #141414; }"


def expr_text(expr: sp.Expr) -> str:
    """Text for a cell: a plain number or the expression our parser reads back."""
    return str(format_expr(expr))


def short_number(value: float) -> str:
    return f"{value:.6g}"


def reading(value: float, digits: int = 4, resolution: float = 1e-6) -> str:
    """A pose value as a person reads it: ``digits`` significant figures of ``value`` rounded to ``resolution``
    (a micro-degree or micrometre), so round-off reads 0 ("q6 = 0", not "q6 = -9.231e-11")."""
    return f"{round(value / resolution) * resolution + 0.0:.{digits}g}" if math.isfinite(value) else f"{value}"


def parse_number(text: str, where: str = "") -> float:
    """A float from text that may be an expression without symbols (``pi/2``)."""
    expr = parse_expr(text, where)
    if expr.free_symbols:
        names = ", ".join(sorted(s.name for s in expr.free_symbols))
        raise ExpressionError(f"needs a number here, not symbols ({names})", where)
    value = complex(expr.evalf())
    if abs(value.imag) > 1e-12:
        raise ExpressionError("not a real number", where)
    return float(value.real)


@dataclass
class CellError:
    text: str      # what the user typed
    message: str   # why it was refused
    good: Any      # the model's value when it was refused


class ExprTableModel(QAbstractTableModel):
    """A table of model fields; subclasses say what each cell holds and how to write it back.

    Subclasses implement ``rowCount``, ``columns``, :meth:`cell_value` (the
    model's value: a sympy expression, a string or a float), :meth:`parse`
    (text to value, raising ``ExpressionError``) and :meth:`commit` (apply the
    value to the document). ``message`` carries an error for the status bar.
    """

    message = Signal(str)
    errorsChanged = Signal()   # a bad entry appeared or went: the Problems list counts them
    columns: list[str] = []
    units: list[str] = []   # per column, shown in the header ("mass (kg)"); "" for none
    typed = ""  # the text of the entry being committed, for the undo label

    def __init__(self, document, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.errors: dict[tuple[int, int], CellError] = {}
        document.modelChanged.connect(self._model_changed)
        document.structureChanged.connect(self._structure_changed)

    # -- to implement ----------------------------------------------------------
    def cell_value(self, row: int, col: int) -> Any:
        raise NotImplementedError

    def parse(self, row: int, col: int, text: str) -> Any:
        return parse_expr(text, self.where(row, col))

    def commit(self, row: int, col: int, value: Any) -> None:
        raise NotImplementedError

    def where(self, row: int, col: int) -> str:
        return f"row {row + 1}, {self.columns[col]}"

    def editable(self, row: int, col: int) -> bool:
        return True

    def extra_background(self, row: int, col: int) -> QColor | None:
        return None

    def extra_tooltip(self, row: int, col: int) -> str | None:
        return None

    def display(self, row: int, col: int, value: Any) -> str:
        if isinstance(value, sp.Basic):
            return expr_text(value)
        if isinstance(value, float):
            return short_number(value)
        return "" if value is None else str(value)

    # -- Qt model --------------------------------------------------------------
    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                unit = self.units[section] if section < len(self.units) else ""
                return f"{self.columns[section]} ({unit})" if unit else self.columns[section]
            return str(section + 1)
        return None

    def flags(self, index):
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if self.editable(index.row(), index.column()):
            base |= Qt.ItemFlag.ItemIsEditable
        return base

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        err = self.errors.get((row, col))
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if err is not None:
                return err.text
            return self.display(row, col, self.cell_value(row, col))
        if role == Qt.ItemDataRole.BackgroundRole:
            if err is not None:
                return QBrush(BAD_COLOR)
            extra = self.extra_background(row, col)
            return QBrush(extra) if extra is not None else None
        if role == Qt.ItemDataRole.ForegroundRole:
            # a light background keeps dark text whatever the palette (light-on-pink is unreadable)
            if err is not None or self.extra_background(row, col) is not None:
                return QBrush(TEXT_ON_LIGHT)
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            if err is not None:
                return f"{err.message}\n(the model keeps {self.display(row, col, err.good) or 'no value'})"
            return self.extra_tooltip(row, col)
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        return self.set_text(index.row(), index.column(), str(value))

    def set_text(self, row: int, col: int, text: str) -> bool:
        """Take what the user typed into a cell (also the entry point for tests)."""
        try:
            value = self.parse(row, col, text)
        except ExpressionError as exc:
            self.errors[(row, col)] = CellError(text, str(exc), self.cell_value(row, col))
            self._cell_changed(row, col)
            self.message.emit(str(exc))
            self.errorsChanged.emit()
            return True
        if self.errors.pop((row, col), None) is not None:
            self.errorsChanged.emit()
        self.typed = text.strip()
        self.commit(row, col, value)
        self._cell_changed(row, col)
        return True

    def error_at(self, row: int, col: int) -> CellError | None:
        return self.errors.get((row, col))

    def refused(self) -> list[str]:
        """One line per bad entry on display: where, why, and the value the model keeps."""
        return [f"{err.message} (the model keeps {self.display(row, col, err.good) or 'no value'})"
                for (row, col), err in sorted(self.errors.items())]

    # -- keeping up with the document -------------------------------------------
    def _cell_changed(self, row: int, col: int) -> None:
        idx = self.index(row, col)
        self.dataChanged.emit(idx, idx)

    def _model_changed(self, _model) -> None:
        before = len(self.errors)
        for (row, col), err in list(self.errors.items()):
            if row >= self.rowCount() or self.cell_value(row, col) != err.good:
                del self.errors[(row, col)]
        self.refresh()
        if len(self.errors) != before:
            self.errorsChanged.emit()

    def _structure_changed(self) -> None:
        if self.errors:
            self.errors.clear()
            self.refresh()
            self.errorsChanged.emit()

    def refresh(self) -> None:
        """Re-read everything; a reset only when the row count changed (keeps the selection)."""
        rows = self.rowCount()
        if rows != getattr(self, "_rows", None):
            self._rows = rows
            self.beginResetModel()
            self.endResetModel()
        elif rows and self.columnCount():
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, self.columnCount() - 1))


class ExprLineEdit(QLineEdit):
    """A line edit for one expression field; ``committed(value)`` fires on a good entry.

    ``parser`` turns text into a value or raises ``ExpressionError``.
    """

    committed = Signal(object, str)   # value, the text typed (for undo labels)
    failed = Signal(str)
    errorChanged = Signal()           # a bad entry appeared or went (the Problems list counts them)

    def __init__(self, where: str = "", parser: Callable[[str, str], Any] | None = None, parent=None):
        super().__init__(parent)
        self.where = where
        self.parser = parser or (lambda text, where: parse_expr(text, where))
        self._good: Any = None
        self._error: str | None = None
        self.editingFinished.connect(self._finish)

    @property
    def error(self) -> str | None:
        return self._error

    def set_value(self, value: Any) -> None:
        """Show the model's value, unless a bad entry for the same model value is on display."""
        if self._error is not None and value == self._good:
            return
        self._good = value
        self._set_error(None)
        text = expr_text(value) if isinstance(value, sp.Basic) else (
            short_number(value) if isinstance(value, float) else str(value))
        if text != self.text():
            self.setText(text)
            self.setCursorPosition(0)

    def submit(self, text: str) -> None:
        """Act as if the user typed ``text`` and pressed Enter."""
        self.setText(text)
        self._finish()

    def _finish(self) -> None:
        text = self.text()
        try:
            value = self.parser(text, self.where)
        except ExpressionError as exc:
            self._set_error(str(exc))
            self.failed.emit(str(exc))
            return
        self._set_error(None)
        if value != self._good:
            self.committed.emit(value, text.strip())

    def refused(self) -> list[str]:
        """The bad entry on display, as :meth:`ExprTableModel.refused` words it (none: [])."""
        if self._error is None:
            return []
        kept = expr_text(self._good) if isinstance(self._good, sp.Basic) else str(self._good or "")
        return [f"{self._error} (the model keeps {kept or 'no value'})"]

    def _set_error(self, message: str | None) -> None:
        changed = message != self._error
        self._error = message
        self.setStyleSheet(BAD_STYLE if message else "")
        self.setToolTip(message or "")
        if changed:
            self.errorChanged.emit()
