"""Small control builders shared by the Explore views."""

from __future__ import annotations

from typing import Iterable

from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QWidget

__all__ = ["labelled_row", "value_box"]


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
