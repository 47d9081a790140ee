"""File > Import URDF… and File > Export URDF… (docs/urdf.md).

Import reads the file, asks for the chain (base and tip links, the ends of the tree as the
core lists them) and the options, and opens the arm as a new unsaved project; the import
report (locked, lumped, dropped links) is shown to the user. Every refusal is a message box
with the core's one-line message naming the joint or link, and the project on screen is
kept. Export writes the project as URDF; a symbol without a value is named in the message.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QLabel, QLineEdit, QMessageBox, QVBoxLayout, QWidget)

from ..errors import DesignerError
from ..model import Convention
from .folders import remember_folder, safe_file_name
from .off_thread import ABANDONED as _ABANDONED  # noqa: F401 - the tests wait on it here
from .off_thread import Abandoned as _Abandoned
from .off_thread import off_gui_thread
from .prepared import PreparedDesign, prepare_design

if TYPE_CHECKING:
    from ..urdf.importer import ImportReport
    from ..urdf.pipeline import FileOptions
    from ..urdf.source import UrdfTree

# the URDF package is imported when a command runs (12 ms of the window's start, issue 29)

__all__ = ["ImportDialog", "allow_folder", "build_menu", "outside_folder", "export_file", "import_file",
           "import_urdf_file", "export_urdf_file", "URDF_FILTER"]

URDF_FILTER = "URDF or xacro (*.urdf *.xml *.xacro);;All files (*)"


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
        rounded = len(getattr(tree, "snaps", []))
        self.literal = QCheckBox("Take the file's numbers as written (default: an angle within 1e-5 rad of a "
                                 "multiple of pi/12, as 1.5708, is read as that exact angle" +
                                 (f"; this file writes {rounded} so)" if rounded else ")"), self)
        self.density = QLineEdit(self)
        self.density.setPlaceholderText("kg/m³, e.g. 2700 (aluminium): inertia of links without <inertial> from meshes")
        form.addRow(f"Base {part}", self.base)
        form.addRow(f"Tip {part}", self.tip)
        form.addRow("", self.ends)
        form.addRow("DH convention", self.convention)
        form.addRow("", self.drop_rest)
        form.addRow("", self.massless)
        form.addRow("", self.literal)
        form.addRow("Density", self.density)
        self.kind = kind
        self.massless.setVisible(kind == "URDF")   # every MJCF body has a mass (MuJoCo's)
        self.density.setVisible(kind == "URDF")
        label = form.labelForField(self.density)
        if label is not None:
            label.setVisible(kind == "URDF")
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
        from ..urdf import chain_ends
        from ..urdf.closed_model import proposed_tip
        ends = chain_ends(self.tree, base) if base in self.tree.inertials else []
        tip, closed = proposed_tip(self.tree, base) if base in self.tree.inertials else (None, False)
        below = [l for l in self.tree.subtree(base) if l != base] if base in self.tree.inertials else []
        first = ([tip] if tip else []) + [e for e in ends if e != tip]
        self.tip.clear()
        self.tip.addItems(first + [l for l in below if l not in first])
        self.tip.setCurrentText(tip or "")
        if len(ends) > 1:
            self.ends.setText(f"The tree below {base} has {len(ends)} ends: {', '.join(ends)}"
                              + (f"; proposed: {tip}, the arm's end (the file closes a loop through the other "
                                 "branches: imported as a closed chain)." if closed
                                 else f"; proposed: {tip}, where the moving branches part." if tip and tip not in ends
                                 else "." if tip else ". Pick the tip link."))
        else:
            self.ends.setText("")

    def density_value(self) -> float | None:
        """The density typed (None when empty); a :class:`UrdfError` for text that is not a number."""
        from ..urdf import UrdfError
        text = self.density.text().strip()
        if not text:
            return None
        try:
            return float(text)
        except ValueError:
            raise UrdfError(f"density {text!r}: not a number (kg/m^3, e.g. 2700)") from None

    def options(self) -> dict:
        """Keyword arguments of :func:`designer.urdf.import_tree`, and for a URDF the density typed
        (:meth:`density_value`, which refuses text that is not a number)."""
        chosen: dict[str, object] = {
            "base": self.base.currentText() or None, "tip": self.tip.currentText().strip() or None,
            "convention": self.convention.currentText(), "drop_rest": self.drop_rest.isChecked(),
            "massless": self.massless.isChecked(), "literal": self.literal.isChecked()}
        if self.kind == "URDF":
            chosen["density"] = self.density_value()
        return chosen


def _refuse(window, title: str, message: str) -> None:
    QMessageBox.critical(window, title, message)
    window.show_message(message)


#: how the xacro reader names an include outside the folders it may read (designer/urdf/xacro_worker.py)
_OUTSIDE = re.compile(r"(/[^:\n]*): outside the file's folder")


def outside_folder(message: str) -> Path | None:
    """The folder a refused include lies in, from a xacro refusal ("PATH: outside the file's folder ..."),
    else None."""
    match = _OUTSIDE.search(message)
    return Path(match.group(1)).resolve().parent if match else None


def allow_folder(window, message: str, folder: Path) -> bool:
    """Ask whether ``folder``, outside the file's own, may be read for this import (``--allow-root``)."""
    QApplication.setOverrideCursor(Qt.CursorShape.ArrowCursor)   # over the reading's wait cursor
    try:
        answer = QMessageBox.question(
            window, "Include outside the file's folder",
            f"{message}\n\nAllow reading files below {folder} for this import?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
    finally:
        QApplication.restoreOverrideCursor()
    return answer == QMessageBox.StandardButton.Yes


def ask_file_options(window, path, previous: FileOptions | None = None) -> FileOptions | None:
    """Package folders and xacro arguments for a ``.xacro`` file (one line each); None when cancelled."""
    from ..urdf.pipeline import FileOptions
    from ..urdf.xacro_run import parse_package_options, parse_xacro_args
    previous = previous or FileOptions()
    dialog = QDialog(window)
    dialog.setWindowTitle(f"Run xacro — {Path(path).name}")
    form = QFormLayout(dialog)
    # what the fields take, readable whole (their placeholders alone were cut at the dialog's width)
    about = QLabel("The file's own folder tree is searched for the packages its $(find PKG) names; give other "
                   "package folders here, ; between them (DIR, or PKG=DIR). Arguments as name:=value, a space "
                   "between them. Nothing in the file runs as Python.", dialog)
    about.setWordWrap(True)
    form.addRow(about)
    folders = QLineEdit("; ".join(previous.package_paths + [f"{k}={v}" for k, v in previous.packages.items()]), dialog)
    folders.setPlaceholderText("DIR; PKG=DIR")
    args = QLineEdit(" ".join(f"{k}:={v}" for k, v in previous.xacro_args.items()), dialog)
    args.setPlaceholderText("name:=value name2:=value2")
    folders.setMinimumWidth(folders.fontMetrics().horizontalAdvance("x" * 48))
    form.addRow("Package folders", folders)
    form.addRow("Arguments", args)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    form.addRow(buttons)
    setattr(dialog, "folders", folders)   # for tests  # noqa: B010
    setattr(dialog, "args", args)  # noqa: B010
    if not dialog.exec():
        return None
    paths, named = parse_package_options([p.strip() for p in folders.text().split(";") if p.strip()])
    return FileOptions(parse_xacro_args(args.text().split()), paths, named)


def _made(report: ImportReport) -> tuple[ImportReport, PreparedDesign]:
    return report, prepare_design(report.model)


def import_file(window, kind: str, file_filter: str, read, make, path=None, options: dict | None = None,
                ask=None):
    """Ask for a file of ``kind`` (URDF, MJCF), ``read(path)`` it (a tree, or (tree, compiled model)),
    ask for the chain and ``make(read, path, options)`` the report; open the arm as a new unsaved
    project. None when cancelled or refused (message box, project on screen kept). ``ask(path)``, when
    given, asks what reading the file takes first (a xacro file's packages and arguments): False cancels."""
    if not window.maybe_save():
        return None
    if path is None:
        path, _ = QFileDialog.getOpenFileName(window, f"Import {kind}", str(window._folder()), file_filter)
        if not path:
            return None
        remember_folder(path, window.settings)
    if ask is not None:
        try:
            if not ask(path):
                return None
        except DesignerError as exc:
            _refuse(window, f"Cannot import {kind}", str(exc))
            return None
    # the first read loads the parser (about 2 s for URDF); later imports take tens of milliseconds
    started = time.perf_counter()
    try:
        data = off_gui_thread(window, f"Reading {Path(path).name}", lambda: read(path))
    except _Abandoned:
        return None
    except DesignerError as exc:
        _refuse(window, f"Cannot import {kind}", str(exc))
        return None
    tree = data[0] if isinstance(data, tuple) else data
    read_seconds = time.perf_counter() - started
    while True:
        if options is None:
            dialog = ImportDialog(tree, str(path), window, kind=kind)
            if not dialog.exec():
                return None
        try:
            chosen = dialog.options() if options is None else options   # a bad density raises here
            # meshes may be read for the density; the model's expressions are parsed; then what showing the
            # arm takes (its display arm, its problems: gui/prepared.py), all off the GUI thread
            started = time.perf_counter()
            report, prepared = off_gui_thread(window, f"Importing {Path(path).name}",
                                              lambda chosen=chosen: _made(make(data, str(path), chosen)))
            # what the report says it took: reading and importing, not the time the dialog was open
            report.seconds = read_seconds + time.perf_counter() - started
            break
        except _Abandoned:
            return None
        except DesignerError as exc:
            _refuse(window, f"Cannot import {kind}", str(exc))
            if options is not None:
                return None   # no dialog to go back to
    window.adopt(prepared)
    window.document.reset(report.model, None, origin=f"{kind} {Path(path).name}", dirty=True)
    window.recovery.discard()
    QMessageBox.information(window, f"{kind} imported", report.text())
    window.show_message(report.text().splitlines()[0])
    return report


def import_urdf_file(window, path=None, options: dict | None = None,
                     file_options: FileOptions | None = None) -> ImportReport | None:
    """Import a URDF or xacro file as a new unsaved project; None when cancelled or refused.

    ``options`` (as :meth:`ImportDialog.options`) skip the dialog, ``file_options`` the xacro
    question (package folders, arguments) and give the density.
    """
    from ..urdf import UrdfError
    from ..urdf.pipeline import FileOptions, import_prepared, read_any
    from ..urdf.xacro_run import is_xacro
    given = file_options or FileOptions()

    def ask(chosen_path) -> bool:
        nonlocal given
        if file_options is None and is_xacro(chosen_path):
            asked = ask_file_options(window, chosen_path)
            if asked is None:
                return False
            given = asked
        return True

    def make(tree: UrdfTree, source: str, chosen: dict) -> ImportReport:
        nonlocal given
        chosen = dict(chosen)
        if "density" in chosen:   # typed in the dialog
            given = replace(given, density=chosen.pop("density"))
        try:
            return import_prepared(tree, source, given, **chosen)
        except UrdfError as exc:
            raise UrdfError(f"{source}: {exc}") from None

    def read(chosen_path) -> UrdfTree:
        nonlocal given
        while True:
            try:
                return read_any(chosen_path, given)
            except UrdfError as exc:   # a xacro include outside the folder: ask, then read again
                folder = outside_folder(str(exc))
                if folder is None or str(folder) in given.allow_roots or not allow_folder(window, str(exc), folder):
                    raise
                given = replace(given, allow_roots=[*given.allow_roots, str(folder)])

    return import_file(window, "URDF", URDF_FILTER, read, make, path, options, ask)


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
        # a safe file name: the PUMA's name has a slash, which made the proposal a path into no folder
        stem = doc.path.stem if doc.path else safe_file_name((model.name or "arm").split(" (")[0])
        # the last folder the user chose (any dialog), not the program's working folder
        suggested = window._folder() / (stem + suffix)
        path, _ = QFileDialog.getSaveFileName(window, f"Export {kind}", str(suggested), file_filter)
        if not path:
            return False
        remember_folder(path, window.settings)
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(suffix)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        _refuse(window, f"Cannot export {kind}", f"{path}: cannot write: {exc.strerror or exc}")
        return False
    from ..urdf.exporter import export_notes
    notes = export_notes(text)
    window.show_message(f"Exported {path}" + (f" ({'; '.join(notes)})" if notes else ""))
    if notes and not model.is_serial:   # what the file cannot say of the loops: worth more than a status line
        QMessageBox.information(window, f"Exported {kind}", f"Wrote {path}. How the {kind} file holds this "
                                "closed chain, and what it drops:\n\n" + "\n".join("- " + n for n in notes))
    window.exported.emit(str(path))
    return True


def export_urdf_file(window, path=None) -> bool:
    """Write the project as URDF; errors (a symbol without a value) go to a message box."""
    from ..urdf import urdf_text
    return export_file(window, "URDF", URDF_FILTER, ".urdf", urdf_text, path)


def build_menu(window, menu) -> None:
    """The two File menu entries."""
    window._action(menu, "&Import URDF…", lambda: import_urdf_file(window))
    window._action(menu, "Export &URDF…", lambda: export_urdf_file(window))
