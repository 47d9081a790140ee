"""The main window's project files: new, open (also by drag and drop), examples, save, save as,
asking before unsaved work is lost, and the recovery file of a session that did not close cleanly.

:class:`WindowFiles` is a mixin of :class:`~designer.gui.main_window.MainWindow`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..model import Link, Manipulator
from ..project import ProjectError, load_project, save_project
from ..project.io import written_version
from .folders import KEY as FOLDER_KEY
from .folders import last_folder, remember_folder, safe_file_name
from .off_thread import Abandoned, off_gui_thread
from .prepared import PreparedDesign, prepare_design
from .version_notice import upgrade_notice

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMainWindow

    from .derivation import DerivationPanel
    from .dh_table import DHTable
    from .document import Document
    from .help import DocsWindow
    from .joint_sliders import JointSliders
    from .projects import RecentFiles, Recovery
    from .view3d import ArmView

    class _MainWindowParts(QMainWindow):
        """What the mixins use of :class:`~designer.gui.main_window.MainWindow` (for the type
        checker only: at run time the mixins derive from ``object`` and the window sets these)."""

        document: Document
        settings: QSettings
        recent: RecentFiles
        recovery: Recovery
        docs_window: DocsWindow | None
        view_actions: dict[str, QAction]
        dh_table: DHTable
        arm_view: ArmView
        sliders: JointSliders
        derivation: DerivationPanel

        def show_message(self, text: str) -> None: ...

        def adopt(self, prepared: PreparedDesign) -> None: ...
else:
    _MainWindowParts = object

__all__ = ["WindowFiles", "FILE_FILTER", "new_model"]

FILE_FILTER = "Manipulator projects (*.json);;All files (*)"


def new_model() -> Manipulator:
    """The arm of File > New: two revolute links in a vertical plane."""
    links = (Link(name="link1", a="L1", mass="m1", com=("-L1/2", 0, 0)),
             Link(name="link2", a="L2", mass="m2", com=("-L2/2", 0, 0)))
    return Manipulator(links=links, name="New arm", gravity=(0, "-g", 0),
                       parameters=(("L1", 0.5), ("L2", 0.4), ("m1", 2.0), ("m2", 1.0), ("g", 9.81)))


class WindowFiles(_MainWindowParts):
    """Project files and recovery of the main window (mixed into it)."""

    _opening = ""   # the file being read off the GUI thread, while it is

    def maybe_save(self) -> bool:
        """Ask before unsaved work is lost; False when the user cancels."""
        if not self.document.dirty:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", f"Save the changes to {self.document.display_name()}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_project(self) -> None:
        if self.maybe_save():
            self.document.reset(new_model())
            self.recovery.discard()

    def _load(self, path, forget_refused: bool = False) -> Manipulator | None:
        """The project in ``path`` with what showing it takes, read and computed off the GUI thread (issue 29:
        opening the tube arm stopped the window for 0.4 to 0.7 s) and handed to the views; None when the file
        is refused (said in a message box, and the file left out of the recent files with ``forget_refused``)
        or the user cancelled the busy box. While one is being read the window answers: another open waits
        for none and is refused with a message (the last one chosen would otherwise be shown first)."""
        if self._opening:
            self.show_message(f"Still opening {self._opening}: open {Path(path).name} once it is shown")
            return None
        self._opening = Path(path).name
        try:
            prepared = off_gui_thread(self, f"Opening {Path(path).name}", lambda: prepare_design(load_project(path)))
        except Abandoned:
            return None
        except ProjectError as exc:
            QMessageBox.critical(self, "Cannot open project", str(exc))
            self.show_message(str(exc))
            if forget_refused:
                self.recent.remove(path)
            return None
        finally:
            self._opening = ""
        self.adopt(prepared)
        return prepared.model

    def open_file(self, path=None) -> bool:
        if not self.maybe_save():
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open project", str(self._folder()), FILE_FILTER)
            if not path:
                return False
            remember_folder(path, self.settings)
        model = self._load(path, forget_refused=True)
        if model is None:
            return False
        self.document.reset(model, path)
        self.recovery.discard()
        self.recent.add(path)
        self.show_message(f"Opened {path}")
        return True

    def open_example(self, path) -> bool:
        """Open an example as an untitled copy, so Save never overwrites the bundled file."""
        if not self.maybe_save():
            return False
        model = self._load(path)
        if model is None:
            return False
        self.document.reset(model, None, origin=f"example {Path(path).name}")
        self.recovery.discard()
        self.show_message(f"Opened the example {Path(path).name} as an untitled copy")
        return True

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self._write(self.document.path)

    def save_as(self, path=None) -> bool:
        if path is None:
            suggested = self._folder() / (safe_file_name(self.document.model.name or "arm") + ".json")
            path, _ = QFileDialog.getSaveFileName(self, "Save project as", str(suggested), FILE_FILTER)
            if not path:
                return False
            remember_folder(path, self.settings)
        path = Path(path)
        if not path.suffix:
            path = path.with_suffix(".json")
        return self._write(path)

    def _write(self, path: Path) -> bool:
        notice = upgrade_notice(self.document.path, path, written_version(self.document.model))
        try:
            save_project(self.document.model, path)
        except OSError as exc:
            QMessageBox.critical(self, "Cannot save project", f"{path}: {exc.strerror or exc}")
            return False
        except ProjectError as exc:
            QMessageBox.critical(self, "Cannot save project", f"{path}: {exc}")
            return False
        self.document.mark_saved(path)
        self.recovery.discard()
        self.recent.add(path)
        self.show_message(notice or f"Saved {path}")
        return True

    def _folder(self) -> Path:
        """Where a file dialog starts: the last folder used (any dialog), else the project's own."""
        used = self.settings.value(FOLDER_KEY)
        if used and Path(str(used)).is_dir():
            return Path(str(used))
        return self.document.path.parent if self.document.path else last_folder(self.settings)

    # -- recovery ----------------------------------------------------------------------
    def autosave(self) -> None:
        """Write the recovery file when there are unsaved edits not yet written."""
        doc = self.document
        if not doc.dirty:
            self.recovery.discard()
            self._autosaved_model = None
            return
        if doc.model is self._autosaved_model:
            return
        try:
            self.recovery.write(doc.model, doc.path, doc.origin)
            self._autosaved_model = doc.model
        except OSError as exc:
            self.show_message(f"Could not write the recovery file: {exc.strerror or exc}")

    def offer_recovery(self) -> bool:
        """Offer unsaved work left by a crashed session; True when it was restored."""
        sessions = self.recovery.orphans()
        if not sessions:
            return False
        latest = sessions[0]
        where = str(latest.path) if latest.path else (latest.origin or "an untitled project")
        answer = QMessageBox.question(
            self, "Recover unsaved work",
            f"Manipulator Designer did not close cleanly. Recover the unsaved changes to {where}?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes)
        for s in sessions:
            if s.file != self.recovery.file:
                s.file.unlink(missing_ok=True)
        if answer != QMessageBox.StandardButton.Yes:
            self.recovery.discard()
            return False
        # the recovered edits are one undoable step on top of the saved file (or of what the window showed for
        # an untitled project): Undo goes back there, Redo returns to the recovered work
        base, saved = self.document.model, False
        if latest.path is not None:
            try:
                base, saved = load_project(latest.path), True
            except (ProjectError, OSError):
                pass
        self.document.reset(base, latest.path, origin=latest.origin, dirty=latest.path is not None and not saved)
        self.document.apply(latest.model, "Recover unsaved changes")   # nothing to push when it is the same
        self.autosave()
        self.show_message("Recovered unsaved changes")
        return True

    @staticmethod
    def _dropped_project(event) -> str | None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
        return paths[0] if len(paths) == 1 and paths[0].lower().endswith(".json") else None

    def dragEnterEvent(self, event) -> None:
        if self._dropped_project(event):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        path = self._dropped_project(event)
        if path:
            event.acceptProposedAction()
            self.open_file(path)
