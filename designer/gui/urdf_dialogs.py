"""File > Import URDF… and File > Export URDF… (docs/urdf.md).

Import reads the file, asks for the chain (base and tip links, the ends of the tree as the
core lists them) and the options, and opens the arm as a new unsaved project; the import
report (locked, lumped, dropped links) is shown to the user. Every refusal is a message box
with the core's one-line message naming the joint or link, and the project on screen is
kept. Export writes the project as URDF; a symbol without a value is named in the message.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QLabel, QMessageBox, QVBoxLayout, QWidget)

from ..errors import DesignerError
from ..model import Convention
from ..urdf import UrdfError, chain_ends, default_tip, import_tree, read_urdf, urdf_text
from ..urdf.importer import ImportReport
from ..urdf.source import UrdfTree

__all__ = ["ImportDialog", "build_menu", "export_file", "import_file", "import_urdf_file", "export_urdf_file",
           "URDF_FILTER"]

URDF_FILTER = "URDF (*.urdf *.xml);;All files (*)"


class ImportDialog(QDialog):
    """The chain (base and tip links) and the options of one import."""

    def __init__(self, tree: UrdfTree, source: str, parent: QWidget | None = None, kind: str = "URDF"):
        super().__init__(parent)
        self.tree = tree
        self.setWindowTitle(f"Import {kind} — {Path(source).name}")
        form = QFormLayout()
        links = list(tree.inertials)
        self.base = QComboBox(self)
        self.base.addItems(links)
        self.base.setCurrentText(tree.root)
        self.tip = QComboBox(self)
        self.tip.setEditable(True)   # any link may be the tip (panda_link8 before the hand); ends come first
        self.tip.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.ends = QLabel(self)
        self.ends.setWordWrap(True)
        self.convention = QComboBox(self)
        self.convention.addItems([c.value for c in Convention])
        part = "body" if kind == "MJCF" else "link"   # MJCF's bodies are URDF's links
        self.drop_rest = QCheckBox(f"Leave out {part.replace('y', 'ie')}s behind movable joints off the chain "
                                   "(default: lock at zero and lump them in)", self)
        self.massless = QCheckBox("Import a moving link without <inertial> as massless (default: refuse)", self)
        form.addRow(f"Base {part}", self.base)
        form.addRow(f"Tip {part}", self.tip)
        form.addRow("", self.ends)
        form.addRow("DH convention", self.convention)
        form.addRow("", self.drop_rest)
        form.addRow("", self.massless)
        self.massless.setVisible(kind == "URDF")   # every MJCF body has a mass (MuJoCo's)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.base.currentTextChanged.connect(self._fill_tips)
        self._fill_tips(self.base.currentText())

    def _fill_tips(self, base: str) -> None:
        ends = chain_ends(self.tree, base) if base in self.tree.inertials else []
        tip = default_tip(self.tree, base) if base in self.tree.inertials else None
        below = [l for l in self.tree.subtree(base) if l != base] if base in self.tree.inertials else []
        first = ([tip] if tip else []) + [e for e in ends if e != tip]
        self.tip.clear()
        self.tip.addItems(first + [l for l in below if l not in first])
        self.tip.setCurrentText(tip or "")
        if len(ends) > 1:
            self.ends.setText(f"The tree below {base} has {len(ends)} ends: {', '.join(ends)}"
                              + (f"; proposed: {tip}, where the moving branches part." if tip and tip not in ends
                                 else "." if tip else ". Pick the tip link."))
        else:
            self.ends.setText("")

    def options(self) -> dict:
        """Keyword arguments of :func:`designer.urdf.import_tree`."""
        return {"base": self.base.currentText() or None, "tip": self.tip.currentText().strip() or None,
                "convention": self.convention.currentText(), "drop_rest": self.drop_rest.isChecked(),
                "massless": self.massless.isChecked()}


def _refuse(window, title: str, message: str) -> None:
    QMessageBox.critical(window, title, message)
    window.show_message(message)


def import_file(window, kind: str, file_filter: str, read, make, path=None, options: dict | None = None):
    """Ask for a file of ``kind`` (URDF, MJCF), ``read(path)`` it (a tree, or (tree, compiled model)),
    ask for the chain and ``make(read, path, options)`` the report; open the arm as a new unsaved
    project. None when cancelled or refused (message box, project on screen kept)."""
    if not window.maybe_save():
        return None
    if path is None:
        folder = window.document.path.parent if window.document.path else Path.cwd()
        path, _ = QFileDialog.getOpenFileName(window, f"Import {kind}", str(folder), file_filter)
        if not path:
            return None
    # the first read loads the parser (about 2 s for URDF); later imports take tens of milliseconds
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        data = read(path)
    except DesignerError as exc:
        QApplication.restoreOverrideCursor()
        _refuse(window, f"Cannot import {kind}", str(exc))
        return None
    QApplication.restoreOverrideCursor()
    tree = data[0] if isinstance(data, tuple) else data
    while True:
        if options is None:
            dialog = ImportDialog(tree, str(path), window, kind=kind)
            if not dialog.exec():
                return None
            chosen = dialog.options()
        else:
            chosen = options
        try:
            report = make(data, str(path), chosen)
            break
        except DesignerError as exc:
            _refuse(window, f"Cannot import {kind}", str(exc))
            if options is not None:
                return None   # no dialog to go back to
    window.document.reset(report.model, None, origin=f"{kind} {Path(path).name}", dirty=True)
    window.recovery.discard()
    QMessageBox.information(window, f"{kind} imported", report.text())
    window.show_message(report.text().splitlines()[0])
    return report


def _make_urdf(tree: UrdfTree, path: str, chosen: dict) -> ImportReport:
    try:
        return import_tree(tree, source=path, **chosen)
    except UrdfError as exc:
        raise UrdfError(f"{path}: {exc}") from None


def import_urdf_file(window, path=None, options: dict | None = None) -> ImportReport | None:
    """Import a URDF file as a new unsaved project; None when cancelled or refused.

    ``options`` (as :meth:`ImportDialog.options`) skip the dialog.
    """
    return import_file(window, "URDF", URDF_FILTER, read_urdf, _make_urdf, path, options)


def export_file(window, kind: str, file_filter: str, suffix: str, text_of, path=None) -> bool:
    """Write the project as ``kind`` (``text_of(model)``); errors (a symbol without a value) go to a
    message box. What the export had to change (comments at the top of the text) is in the status."""
    model = window.document.model
    try:
        text = text_of(model)
    except DesignerError as exc:
        _refuse(window, f"Cannot export {kind}", str(exc))
        return False
    if path is None:
        doc = window.document
        stem = doc.path.stem if doc.path else (model.name or "arm").replace(" ", "_")
        suggested = (doc.path.parent if doc.path else Path.cwd()) / (stem + suffix)
        path, _ = QFileDialog.getSaveFileName(window, f"Export {kind}", str(suggested), file_filter)
        if not path:
            return False
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(suffix)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        _refuse(window, f"Cannot export {kind}", f"{path}: cannot write: {exc.strerror or exc}")
        return False
    notes = [line.strip()[4:-3].strip() for line in text.splitlines()[1:4] if line.strip().startswith("<!--")]
    window.show_message(f"Exported {path}" + (f" ({'; '.join(notes)})" if notes else ""))
    window.exported.emit(str(path))
    return True


def export_urdf_file(window, path=None) -> bool:
    """Write the project as URDF; errors (a symbol without a value) go to a message box."""
    return export_file(window, "URDF", URDF_FILTER, ".urdf", urdf_text, path)


def build_menu(window, menu) -> None:
    """The two File menu entries."""
    window._action(menu, "&Import URDF…", lambda: import_urdf_file(window))
    window._action(menu, "Export &URDF…", lambda: export_urdf_file(window))
