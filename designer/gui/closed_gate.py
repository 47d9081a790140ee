"""Result views that do not handle closed chains yet say so in one line (issue 22).

A view built on the serial engines (the coupling plots and Explore read the project's links as
one chain) would show a closed-chain project's results as if its passive joints were
motors on a serial arm: silently wrong numbers. :class:`ClosedChainGate` stands in the view's tab:
for a serial project it shows the view; for a closed chain one line saying what this view does
not do yet and where the core does it (the CLI's closed-chain commands).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget

from ..model.manipulator import Manipulator
from ..model.mechanism import uses_closed_chain_fields

__all__ = ["ClosedChainGate", "REFUSALS", "refusal"]

#: per view, what it says for a closed-chain project
REFUSALS = {
    # the exports below would write the links read as a serial chain
    "URDF export": "A closed chain has no URDF export yet (URDF has no loops; the mimic-joint form is to come): "
                   "nothing was written.",
    "MJCF export": "A closed chain has no MJCF export yet (its loops would be MuJoCo equality constraints): "
                   "nothing was written.",
    "Design report": "The design report does not handle closed chains yet (its figures read the links as a "
                     "serial chain): nothing was written; File > Export's equation reports and code do.",
    "Identification": "The window's identification does not handle closed chains yet: "
                      "`python -m designer regressor --base` gives a closed chain's base parameters.",
}


def refusal(model: Manipulator | None, view: str) -> str | None:
    """``REFUSALS[view]`` for a closed-chain ``model``, None for a serial one."""
    return REFUSALS[view] if model is not None and uses_closed_chain_fields(model) else None


class ClosedChainGate(QStackedWidget):
    """``view`` for a serial project, the one-line refusal ``text`` for a closed-chain one."""

    def __init__(self, view: QWidget, text: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = view
        self.notice = QLabel(text, self)
        self.notice.setWordWrap(True)
        self.notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice.setStyleSheet("QLabel { color: #8a2a00; padding: 12px; }")
        self.addWidget(view)
        self.addWidget(self.notice)

    @property
    def refused(self) -> bool:
        return self.currentWidget() is self.notice

    def set_model(self, model: Manipulator | None) -> None:
        closed = model is not None and uses_closed_chain_fields(model)
        self.setCurrentWidget(self.notice if closed else self.view)
