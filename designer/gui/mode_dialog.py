"""Arm > Animate mode shape…: the choice of a mode to animate, the model (motors locked, or free with the rotor
inertias, or with the links' bending where links are made as parts) and the mode from the list of its frequencies
at the slider pose. The modes come from a callable
(:func:`designer.gui.modes.modes_at` in the window), so that this module does not import that one."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QListWidget, QVBoxLayout, QWidget

from ..numeric.flex_modes import FlexField
from ..numeric.modes import Modes

__all__ = ["ModeDialog", "choose_mode", "mode_text", "MOTORS"]

MOTORS = {"locked": "motors locked", "free": "motors free (rotor inertias)",
          "bending": "links bending, motors locked"}


def _share(group: str) -> str:
    return "gearboxes" if group == "joints" else group


def mode_text(k: int, frequency: float, energy=None, groups: tuple[str, ...] = ()) -> str:
    """"mode 1: 30.07 Hz", with the links' bending the largest shares of its strain energy:
    "mode 1: 30.07 Hz (link 2 53 %, gearboxes 37 %)"."""
    text = f"mode {k}: {frequency:.4g} Hz"
    if energy is None:
        return text
    top = sorted(zip(energy, groups), reverse=True)[:2]
    return text + " (" + ", ".join(f"{_share(g)} {100 * e:.0f} %" for e, g in top if e >= 0.005) + ")"


class ModeDialog(QDialog):
    """Motors locked/free (links bending) and the list of modes ("mode 1: 49.5 Hz"); OK animates the selected one."""

    def __init__(self, modes_of: Callable[[str], Modes | FlexField | str], parent: QWidget | None = None,
                 motors: str = "locked", bending: bool = False):
        """``modes_of(motors)``: the modes at the pose, or a one-line message saying why there are none;
        ``bending``: offer the model with the links' bending (links made as parts), the read-out's frequency."""
        super().__init__(parent)
        self.setWindowTitle("Animate a mode")
        self.modes_of = modes_of
        self.motors = QComboBox(self)
        for key, text in MOTORS.items():
            if key != "bending" or bending:
                self.motors.addItem(text, key)
        self.motors.setToolTip("Locked: rigid links on the joint springs, K v = w² M(q) v. Free: the elastic-joint "
                               "model with the rotor inertias (the links and the motors swing against each other; "
                               "the 3D view draws the links, the motor angles are shown as numbers)"
                               + (". Links bending: the links made as parts bend too, motors locked (the read-out's "
                                  "lowest frequency); the 3D view draws their bent centre lines" if bending else ""))
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
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.motors.setCurrentIndex(max(self.motors.findData(motors), 0))
        self.motors.currentIndexChanged.connect(self._fill)
        self._fill()

    def _fill(self) -> None:
        self.modes.clear()
        modes = self.modes_of(self.motors.currentData())
        ok = not isinstance(modes, str)
        self.message.setText(modes if isinstance(modes, str) else "")
        self.message.setVisible(not ok)
        if not isinstance(modes, str):
            energy = getattr(modes, "energy", None)
            for k, f in enumerate(modes.frequency, start=1):
                text = mode_text(k, f, None if energy is None else energy[k - 1], getattr(modes, "groups", ()))
                self.modes.addItem(text)
                self.modes.item(k - 1).setToolTip(text)
            self.modes.setCurrentRow(0)
            self._fit_lines()
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok and self.modes.count() > 0)

    def _fit_lines(self) -> None:
        """Widen the list so that each line reads whole ("mode 1: 30.07 Hz (link 2 53 %, gearboxes 37 %)"), within
        the screen: the dialog's default width cut the strain-energy shares."""
        bar = self.modes.verticalScrollBar().sizeHint().width()
        wanted = self.modes.sizeHintForColumn(0) + 2 * self.modes.frameWidth() + bar + 8
        screen = self.screen().availableGeometry().width() if self.screen() is not None else 1024
        self.modes.setMinimumWidth(min(wanted, int(0.8 * screen)))

    def choice(self) -> tuple[int, str]:
        """(k, motors): the selected mode (1 = lowest) and "locked", "free" or "bending"."""
        return self.modes.currentRow() + 1, self.motors.currentData()


def choose_mode(window, modes_of: Callable[[str], Modes | FlexField | str], motors: str,
                bending: bool = False) -> tuple[int, str] | None:
    """Ask for the mode (modal); None when cancelled. Starts on ``motors``, the model animated last."""
    dialog = ModeDialog(modes_of, window, motors, bending)
    return dialog.choice() if dialog.exec() == QDialog.DialogCode.Accepted else None
