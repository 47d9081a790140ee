"""What does not handle closed chains yet says so in one line (issue 22).

A view or an export built on the serial engines would read a closed-chain project's links as one
chain: its passive joints as motors on a serial arm, silently wrong numbers or files. :func:`refusal`
gives the one line such an action shows instead (the URDF and MJCF exports today); a view would
stand behind a :class:`ClosedChainGate`, which shows the view for a serial project and the line for
a closed chain. The Coupling and Explore tabs, the design report and the identification take closed
chains through the core's ClosedArm, ClosedDynamics and closed-loop regressor and need no gate.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget

from ..model.manipulator import Manipulator
from ..model.mechanism import uses_closed_chain_fields

__all__ = ["ClosedChainGate", "REFUSALS", "refusal"]

#: per view, what it says for a closed-chain project
REFUSALS: dict[str, str] = {
    # every view takes a closed chain now (the exports write its tree with mimic joints or MuJoCo
    # equality constraints); a view that cannot would name itself here
}


def refusal(model: Manipulator | None, view: str) -> str | None:
    """``REFUSALS[view]`` for a closed-chain ``model``, None for a serial one or a view that takes it."""
    return REFUSALS.get(view) if model is not None and uses_closed_chain_fields(model) else None


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
