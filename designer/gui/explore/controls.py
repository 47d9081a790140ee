"""Small control builders and input parsers shared by the Explore views."""

from __future__ import annotations

from collections.abc import Iterable
from typing import overload

import numpy as np
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QSpinBox, QTableWidget, QWidget

__all__ = ["labelled_row", "parse_values", "spin_box", "value_box", "header_tips"]


def header_tips(table: QTableWidget, tips: Iterable[tuple[int, str]]) -> None:
    """Tool tips on the column headers (column, text) of a table whose header labels are set."""
    for column, tip in tips:
        item = table.horizontalHeaderItem(column)
        if item is not None:
            item.setToolTip(tip)


def labelled_row(parent: QWidget, pairs: Iterable[tuple[str, QWidget]]) -> QHBoxLayout:
    """A row of ``label widget`` pairs (an empty label puts the widget alone)."""
    row = QHBoxLayout()
    for label, widget in pairs:
        if label:
            row.addWidget(QLabel(label, parent))
        row.addWidget(widget)
    return row


def value_box(parent: QWidget) -> QDoubleSpinBox:
    """A spin box for any parameter value (wide range, six decimals, not too wide on screen)."""
    spin = QDoubleSpinBox(parent)
    spin.setDecimals(6)
    spin.setRange(-1e9, 1e9)
    spin.setKeyboardTracking(False)
    spin.setMinimumWidth(80)   # the 1e9 range would otherwise make it very wide
    return spin


@overload
def spin_box(parent: QWidget, lo: int, hi: int, value: int, *, decimals: None = None, step: int | None = None,
             suffix: str = "", tip: str = "") -> QSpinBox: ...


@overload
def spin_box(parent: QWidget, lo: float, hi: float, value: float, *, decimals: int | None = None,
             step: float | None = None, suffix: str = "", tip: str = "") -> QDoubleSpinBox: ...


def spin_box(parent: QWidget, lo: float, hi: float, value: float, *, decimals: int | None = None,
             step: float | None = None, suffix: str = "", tip: str = "") -> QSpinBox | QDoubleSpinBox:
    """A spin box on [lo, hi] showing ``value``: whole numbers when all three are ints, else decimals."""
    spin: QSpinBox | QDoubleSpinBox
    if all(isinstance(v, int) for v in (lo, hi, value)):
        whole = QSpinBox(parent)
        whole.setRange(int(lo), int(hi))
        if step is not None:
            whole.setSingleStep(int(step))
        whole.setValue(int(value))
        spin = whole
    else:
        decimal = QDoubleSpinBox(parent)
        if decimals is not None:
            decimal.setDecimals(decimals)
        decimal.setRange(lo, hi)
        if step is not None:
            decimal.setSingleStep(step)
        decimal.setValue(value)
        spin = decimal
    if suffix:
        spin.setSuffix(suffix)
    if tip:
        spin.setToolTip(tip)
    return spin


def parse_values(text: str, n: int, what: str, default=None) -> np.ndarray | None:
    """One number or ``n`` numbers separated by commas, semicolons or spaces; ``default`` when empty.

    A ValueError names ``what`` and the text."""
    parts = [p for p in text.replace(",", " ").replace(";", " ").split() if p]
    if not parts:
        return default
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"{what}: '{text}' is not a list of numbers") from None
    if len(values) not in (1, n):
        raise ValueError(f"{what}: give one value or {n}, got {len(values)}")
    return np.broadcast_to(np.array(values), (n,)).copy()
