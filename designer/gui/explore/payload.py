"""The Explore panel's payload field (issue 23): the mass (kg) at the tool that the metrics taking a payload
read, ``deflection`` (the tool's sag under gravity and the payload, gearboxes and links) and
``deflection_links`` (the links' share), as ``explore --payload KG`` does on the command line. The core
(:class:`designer.explore.metrics.Ratings`) places the payload at the tool point, so there is no offset to
give. The field keeps its value for the window's session, across projects, like the rated fields."""

from __future__ import annotations

import math

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget

from ..cells import BAD_STYLE

__all__ = ["PayloadField", "PAYLOAD_METRICS"]

#: the metrics whose values depend on the payload (designer/explore/metrics.py, metrics.py)
PAYLOAD_METRICS = ("deflection", "deflection_links")


class PayloadField(QWidget):
    """``payload [    ] kg``: empty is 0; a bad entry turns red and says why (tool tip and :meth:`problem`)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("0 kg")
        self.edit.setToolTip(self._tip())
        self.edit.textChanged.connect(self._check)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("payload", self))
        row.addWidget(self.edit, 1)
        self._problem = ""

    @staticmethod
    def _tip() -> str:
        return ("Payload at the tool in kg (empty: none), for the metrics that take one: "
                + ", ".join(PAYLOAD_METRICS) + " (the tool's sag under gravity and the payload)")

    def problem(self) -> str:
        """'' or the one-line message about the entry on display."""
        return self._problem

    def value(self) -> float:
        """The payload in kg; ValueError with the message when the entry is not a number >= 0."""
        if self._problem:
            raise ValueError(self._problem)
        text = self.edit.text().strip()
        return float(text) if text else 0.0

    def set_value(self, kg: float) -> None:
        self.edit.setText(f"{kg:g}")

    def _check(self, text: str) -> None:
        text = text.strip()
        problem = ""
        if text:
            try:
                kg = float(text)
            except ValueError:
                problem = f"payload: '{text}' is not a number (kg)"
            else:
                if not math.isfinite(kg) or kg < 0:
                    problem = f"payload: {text} kg, must be a finite number >= 0"
        self._problem = problem
        self.edit.setStyleSheet(BAD_STYLE if problem else "")
        self.edit.setToolTip(problem or self._tip())
        self.changed.emit()
