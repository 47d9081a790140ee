"""Preferences: the memory limit of the worker processes that run derivations.

Stored in the application's QSettings (``jobs/memory_limit_mb``; 0 means no
limit). A job that needs more stops with "out of memory" instead of taking the
machine, and the window, down with it.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox

from ..jobs.process import default_memory_limit_mb
from .worker import MEMORY_KEY, memory_limit_mb, process_runner

__all__ = ["MEMORY_KEY", "memory_limit_mb", "set_memory_limit_mb", "MemoryLimitDialog", "edit_memory_limit",
           "build_menu"]

def set_memory_limit_mb(mb: int, settings: QSettings | None = None) -> None:
    """Store the limit and apply it to the jobs started from now on."""
    (settings or QSettings()).setValue(MEMORY_KEY, int(mb))
    process_runner().memory_limit_mb = int(mb)


class MemoryLimitDialog(QDialog):
    """One spin box: the worker processes' memory limit in MB."""

    def __init__(self, current: int, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Worker memory limit")
        self.spin = QSpinBox(self)
        self.spin.setRange(0, 1 << 20)
        self.spin.setSingleStep(512)
        self.spin.setSuffix(" MB")
        self.spin.setSpecialValueText("no limit")
        self.spin.setValue(current)
        note = QLabel(f"Derivations run in a separate process. One that needs more memory than this stops "
                      f"with a message; the window and your edits stay. Default: {default_memory_limit_mb()} MB "
                      f"(half of this computer's memory).", self)
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Memory limit", self.spin)
        form.addRow(note)
        form.addRow(buttons)


def edit_memory_limit(window) -> None:
    settings = getattr(window, "settings", None)
    dialog = MemoryLimitDialog(memory_limit_mb(settings), window)
    if dialog.exec() == QDialog.DialogCode.Accepted:
        set_memory_limit_mb(dialog.spin.value(), settings)
        if hasattr(window, "show_message"):
            window.show_message(f"Worker memory limit: {dialog.spin.text()}")


def build_menu(window, menu) -> None:
    """Add the preference to ``menu`` and apply the window's stored limit."""
    process_runner().memory_limit_mb = memory_limit_mb(getattr(window, "settings", None))
    window._action(menu, "Worker &memory limit…", lambda: edit_memory_limit(window),
                   tip="The most memory a derivation may take before it is stopped")
