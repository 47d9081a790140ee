"""The choices of Export > code that ``codegen`` takes as options: the inertial inputs (standard
parameters, or the base parameters of ``--parameters base``) and the drive terms (``--drives``).

Asked in a small dialog after the language and before the file; the last choice is remembered in
the window's settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QButtonGroup, QCheckBox, QDialog, QDialogButtonBox, QLabel, QRadioButton, QVBoxLayout

from ..model.drives import has_drive_terms
from ..model.manipulator import Manipulator

__all__ = ["CodeOptions", "CodeOptionsDialog", "ask_code_options"]

_KEY = "export/code_"


@dataclass(frozen=True)
class CodeOptions:
    """``parameters``: "standard" or "base" (:data:`designer.codegen.files.PARAMETER_SETS`);
    ``drives``: add the project's drive terms (and, in the regressor, the drive parameters' columns)."""

    parameters: str = "standard"
    drives: bool = False

    def describe(self) -> str:
        """What a status message adds: '' for the defaults."""
        parts = ["base parameters"] if self.parameters == "base" else []
        if self.drives:
            parts.append("drive terms")
        return f" ({', '.join(parts)})" if parts else ""


class CodeOptionsDialog(QDialog):
    """Standard or base parameters, and the drive terms (offered when the arm has drive data). Without equations
    derived (``derived`` False) the standard parameters are greyed with the reason and the base ones chosen: they
    need no derivation."""

    def __init__(self, model: Manipulator, language: str, initial: CodeOptions = CodeOptions(), parent=None,
                 derived: bool = True):
        super().__init__(parent)
        self.setWindowTitle(f"Export {language} code")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Inertial parameters as inputs of the generated functions:"))
        self.standard = QRadioButton("&Standard: mass, centre of mass and inertia of each link")
        self.base = QRadioButton("&Base parameters: the identifiable combinations (tau, M, G cheaper)")
        self.base.setToolTip("codegen --parameters base: the set Arm > Identification lists, with its "
                             "grouping formulas")
        group = QButtonGroup(self)
        for button in (self.standard, self.base):
            group.addButton(button)
            layout.addWidget(button)
        (self.base if initial.parameters == "base" or not derived else self.standard).setChecked(True)
        if not derived:   # said here, before the file dialog, not after it (issue 29 item 13)
            self.standard.setEnabled(False)
            self.standard.setToolTip("Writes the equations on display: derive them first (Equations tab, Derive)")
            self.standard.setText(self.standard.text() + " (derive the equations first)")
        self.drives = QCheckBox("Add the &drive terms: N^2 Jm and friction in tau, M and h; the drive "
                                "parameters' columns in the regressor")
        available = has_drive_terms(model)
        self.drives.setEnabled(available)
        self.drives.setChecked(available and initial.drives)
        if not available:
            self.drives.setToolTip("The arm has no drive data (gear ratio and motor inertia, friction) in its "
                                   "joints: give them in the Drives tab")
        layout.addWidget(self.drives)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def options(self) -> CodeOptions:
        return CodeOptions("base" if self.base.isChecked() else "standard",
                           self.drives.isEnabled() and self.drives.isChecked())


def _remembered(settings: QSettings) -> CodeOptions:
    parameters = str(settings.value(_KEY + "parameters", "standard"))
    drives = str(settings.value(_KEY + "drives", "false")).lower() == "true"
    return CodeOptions(parameters if parameters in ("standard", "base") else "standard", drives)


def ask_code_options(window, language: str, derived: bool = True) -> CodeOptions | None:
    """The user's choice for the arm on display (None: cancelled), remembered for the next export. ``derived``:
    whether there are equations on display (the standard parameters write them)."""
    dialog = CodeOptionsDialog(window.document.model, language, _remembered(window.settings), window,
                               derived=derived)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    chosen = dialog.options()
    window.settings.setValue(_KEY + "parameters", chosen.parameters)
    window.settings.setValue(_KEY + "drives", "true" if chosen.drives else "false")
    return chosen
