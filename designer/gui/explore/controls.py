"""Small control builders and input parsers shared by the Explore views."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QSpinBox, QWidget

__all__ = ["labelled_row", "parse_values", "spin_box", "value_box"]


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


def spin_box(parent: QWidget, lo, hi, value, *, decimals: int | None = None, step=None, suffix: str = "",
             tip: str = "") -> QSpinBox | QDoubleSpinBox:
    """A spin box on [lo, hi] showing ``value``: whole numbers when all three are ints, else decimals."""
    whole = all(isinstance(v, int) for v in (lo, hi, value))
    spin = QSpinBox(parent) if whole else QDoubleSpinBox(parent)
    if decimals is not None:
        spin.setDecimals(decimals)
    spin.setRange(lo, hi)
    if step is not None:
        spin.setSingleStep(step)
    spin.setValue(value)
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
