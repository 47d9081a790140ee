"""File > Import MJCF… and File > Export MJCF… (docs/mjcf.md): the URDF import's dialog and
report (gui/urdf_dialogs.py) for MuJoCo's format. A refusal is a message box with the core's
one-line message, and the project on screen is kept until an import succeeds."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from ..mjcf import MjcfError, read_mjcf
from ..mjcf.exporter import mjcf_text
from ..mjcf.importer import import_read
from ..urdf.importer import ImportReport
from .urdf_dialogs import ImportDialog, _refuse

__all__ = ["MJCF_FILTER", "build_menu", "export_mjcf_file", "import_mjcf_file"]

MJCF_FILTER = "MJCF (*.xml *.mjcf);;All files (*)"


def import_mjcf_file(window, path=None, options: dict | None = None) -> ImportReport | None:
    """Import an MJCF file as a new unsaved project; None when cancelled or refused.
    ``options`` (as :meth:`ImportDialog.options`) skip the dialog."""
    if not window.maybe_save():
        return None
    if path is None:
        folder = window.document.path.parent if window.document.path else Path.cwd()
        path, _ = QFileDialog.getOpenFileName(window, "Import MJCF", str(folder), MJCF_FILTER)
        if not path:
            return None
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)   # MuJoCo compiles the model: well under a second
    try:
        tree, mj = read_mjcf(path)
    except MjcfError as exc:
        QApplication.restoreOverrideCursor()
        _refuse(window, "Cannot import MJCF", str(exc))
        return None
    QApplication.restoreOverrideCursor()
    while True:
        if options is None:
            dialog = ImportDialog(tree, str(path), window, kind="MJCF")
            if not dialog.exec():
                return None
            chosen = dialog.options()
        else:
            chosen = options
        try:
            report = import_read(tree, mj, str(path), **chosen)
            break
        except MjcfError as exc:
            _refuse(window, "Cannot import MJCF", str(exc))
            if options is not None:
                return None   # no dialog to go back to
    window.document.reset(report.model, None, origin=f"MJCF {Path(path).name}", dirty=True)
    window.recovery.discard()
    QMessageBox.information(window, "MJCF imported", report.text())
    window.show_message(report.text().splitlines()[0])
    return report


def export_mjcf_file(window, path=None) -> bool:
    """Write the project as MJCF; errors (a symbol without a value) go to a message box."""
    model = window.document.model
    try:
        text = mjcf_text(model)
    except MjcfError as exc:
        _refuse(window, "Cannot export MJCF", str(exc))
        return False
    if path is None:
        doc = window.document
        stem = doc.path.stem if doc.path else (model.name or "arm").replace(" ", "_")
        suggested = (doc.path.parent if doc.path else Path.cwd()) / (stem + ".xml")
        path, _ = QFileDialog.getSaveFileName(window, "Export MJCF", str(suggested), MJCF_FILTER)
        if not path:
            return False
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(".xml")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        _refuse(window, "Cannot export MJCF", f"{path}: cannot write: {exc.strerror or exc}")
        return False
    notes = [line.strip()[4:-3].strip() for line in text.splitlines()[1:4] if line.strip().startswith("<!--")]
    window.show_message(f"Exported {path}" + (f" ({'; '.join(notes)})" if notes else ""))
    window.exported.emit(str(path))
    return True


def build_menu(window, menu) -> None:
    """The two File menu entries."""
    window._action(menu, "Import &MJCF…", lambda: import_mjcf_file(window))
    window._action(menu, "Export MJCF…", lambda: export_mjcf_file(window))
