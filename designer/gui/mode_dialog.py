"""Arm > Animate mode shape…: the choice of a mode to animate, the model (motors locked, or free with the rotor
inertias) and the mode from the list of its frequencies at the slider pose. The modes come from a callable
(:func:`designer.gui.modes.modes_at` in the window), so that this module does not import that one."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QListWidget, QVBoxLayout, QWidget

from ..numeric.modes import Modes

__all__ = ["ModeDialog", "choose_mode", "MOTORS"]

MOTORS = {"locked": "motors locked", "free": "motors free (rotor inertias)"}


class ModeDialog(QDialog):
    """Motors locked/free and the list of modes ("mode 1: 49.5 Hz"); OK animates the selected one."""

    def __init__(self, modes_of: Callable[[str], Modes | str], parent: QWidget | None = None, motors: str = "locked",
                 note: str = ""):
        """``modes_of(motors)``: the modes at the pose, or a one-line message saying why there are none;
        ``note``: which model the list is when the read-out's frequency is another one's (links that bend)."""
        super().__init__(parent)
        self.setWindowTitle("Animate a mode")
        self.modes_of = modes_of
        self.motors = QComboBox(self)
        for key, text in MOTORS.items():
            self.motors.addItem(text, key)
        self.motors.setToolTip("Locked: rigid links on the joint springs, K v = w² M(q) v. Free: the elastic-joint "
                               "model with the rotor inertias (the links and the motors swing against each other; "
                               "the 3D view draws the links, the motor angles are shown as numbers)")
        self.modes = QListWidget(self)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        parent=self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.modes.itemDoubleClicked.connect(lambda _item: self.accept())
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Natural frequencies at the slider pose:", self))
        layout.addWidget(self.motors)
        layout.addWidget(self.modes, 1)
        self.note = QLabel(note, self)
        self.note.setWordWrap(True)
        self.note.setVisible(bool(note))
        layout.addWidget(self.note)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.motors.currentIndexChanged.connect(self._fill)
        self.motors.setCurrentIndex(max(self.motors.findData(motors), 0))
        self._fill()

    def _fill(self) -> None:
        self.modes.clear()
        modes = self.modes_of(self.motors.currentData())
        ok = not isinstance(modes, str)
        self.message.setText(modes if isinstance(modes, str) else "")
        self.message.setVisible(not ok)
        if not isinstance(modes, str):
            for k, f in enumerate(modes.frequency, start=1):
                self.modes.addItem(f"mode {k}: {f:.4g} Hz")
            self.modes.setCurrentRow(0)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok and self.modes.count() > 0)

    def choice(self) -> tuple[int, str]:
        """(k, motors): the selected mode (1 = lowest) and "locked" or "free"."""
        return self.modes.currentRow() + 1, self.motors.currentData()


def choose_mode(window, modes_of: Callable[[str], Modes | str], motors: str,
                note: str = "") -> tuple[int, str] | None:
    """Ask for the mode (modal); None when cancelled. Starts on ``motors``, the model animated last."""
    dialog = ModeDialog(modes_of, window, motors, note)
    return dialog.choice() if dialog.exec() == QDialog.DialogCode.Accepted else None
