"""A scroll area for a panel in a column: the panel gets the viewport's size and scrolls only below
its minimum size.

A QScrollArea asks a panel whose layout has height-for-width (any word-wrapped label) for its
*preferred* height at the viewport's width: at 1366 x 768 the Explore panel was 757 px tall in a
616 px viewport, so its statistics and buttons sat below a vertical scroll bar although it fits in
545. The panel is held in a plain widget that reports no height-for-width and lays it out itself.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QAbstractButton, QComboBox, QScrollArea, QWidget

__all__ = ["ScrollColumn", "narrow_combo", "narrow_buttons"]


def narrow_combo(combo: QComboBox, chars: int) -> QComboBox:
    """``combo`` asks for room for ``chars`` characters, not for its longest entry (which it shows when wider):
    a combo box as wide as "Lagrange-Euler (M, B, C, G)" or "Limits: end stops at the limits" kept the window
    from narrowing to 1024 px."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    return combo


def narrow_buttons(*buttons: QAbstractButton) -> None:
    """Push buttons as narrow as their text (the style's minimum of about 80 px made a row of short buttons
    ("PNG…", "Copy text") the widest thing in its column)."""
    for button in buttons:
        button.setMinimumWidth(button.fontMetrics().horizontalAdvance(button.text()) + 18)


class _Holder(QWidget):
    def __init__(self, panel: QWidget, parent: QWidget | None = None):
        super().__init__(parent)
        self.panel = panel
        panel.setParent(self)

    def minimumSizeHint(self) -> QSize:
        return self.panel.minimumSizeHint()

    def sizeHint(self) -> QSize:
        return self.panel.minimumSizeHint()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.panel.setGeometry(self.rect())


class ScrollColumn(QScrollArea):
    """``ScrollColumn(panel)``: ``panel`` fills the viewport; scroll bars appear only when the viewport
    is smaller than the panel's minimum size."""

    def __init__(self, panel: QWidget, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.holder = _Holder(panel, self)
        self.setWidget(self.holder)
        panel.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == event.Type.LayoutRequest:   # the panel's minimum changed (a banner shown)
            self.holder.updateGeometry()
        return super().eventFilter(watched, event)
