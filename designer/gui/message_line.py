"""A line of text that never widens its panel: the one label class for every message and read-out line.

A plain QLabel asks for the width of its whole text: one long message ("Pose from the map: q1 = ...",
a file path) made the Explore column wider than the window, with a horizontal scroll bar that cut off
the colour bar and pushed buttons off screen. :class:`MessageLine` asks for no width at all (an
Ignored horizontal policy), paints each of its lines elided to the width it gets, and keeps the full
text in ``text()`` and, when something is cut, in its tooltip. Its height is fixed to its number of
lines, so a new text every slider step never re-lays out the window.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

__all__ = ["MessageLine", "shown_lines"]


def shown_lines(label: QLabel) -> list[str]:
    """The lines a :class:`MessageLine` paints at its present width (each elided to fit)."""
    width = max(label.contentsRect().width(), 0)
    metrics = label.fontMetrics()
    lines = label.text().split("\n")
    rows = getattr(label, "rows", len(lines))
    return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in lines[:rows]]


class MessageLine(QLabel):
    """A label of ``rows`` lines (``\\n`` separates them) that fits any width: each line elided on the
    right, the full text in the tooltip when cut. ``tip`` is a tooltip shown when nothing is cut."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *, rows: int = 1, tip: str = ""):
        super().__init__(text, parent)
        self.rows = rows
        self.tip = tip
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._fix_height()

    def _fix_height(self) -> None:
        margins = self.contentsMargins()
        self.setFixedHeight(self.rows * self.fontMetrics().lineSpacing() + margins.top() + margins.bottom() + 4)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (event.Type.FontChange, event.Type.StyleChange):
            self._fix_height()   # a style sheet's bold font is wider, not taller, but a larger one is

    def setText(self, text: str) -> None:
        super().setText(text)
        self._update_tip()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_tip()

    def _update_tip(self) -> None:
        lines = self.text().split("\n")
        cut = shown_lines(self) != lines[:self.rows] or len(lines) > self.rows
        full = self.text().replace("\n", " ")
        self.setToolTip(f"{full}\n\n{self.tip}" if cut and self.tip else full if cut else self.tip)

    def sizeHint(self) -> QSize:
        return QSize(40, self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.height())

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.setFont(self.font())
        rect = self.contentsRect()
        step = self.fontMetrics().lineSpacing()
        top = rect.top() + max(0, (rect.height() - step * self.rows) // 2)
        for k, line in enumerate(shown_lines(self)):
            painter.drawText(rect.left(), top + k * step, rect.width(), step,
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), line)
        painter.end()
