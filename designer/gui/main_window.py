"""The main window: editors on the left, the arm in the middle, equations, plots and problems in tabs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QRect, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (QFileDialog, QMainWindow, QMessageBox, QScrollArea, QSplitter, QTabWidget, QUndoView,
                               QVBoxLayout, QWidget)

from ..design_state import OpenDesign
from ..model import Link, Manipulator
from ..project import ProjectError, load_project, save_project
from . import design_export, export, preferences, urdf_dialogs
from . import help as help_windows
from .derivation import DerivationPanel
from .dh_table import DHTable
from .explore_panel import ExplorePanel
from .folders import KEY as FOLDER_KEY
from .folders import last_folder, remember_folder, safe_file_name
from .document import Document
from .inspector import LinkInspector
from .job_runner import JobRunner
from .params import LoadsPanel, ParametersPanel
from .problems import ProblemsPanel
from .readout import KinematicsReadout
from .simulate import SimulatePanel
from .projects import RecentFiles, Recovery, examples
from .version_notice import upgrade_notice
from .view3d import ArmView
from .joint_sliders import JointSliders
from .coupling_plots import CouplingPanel

__all__ = ["MainWindow", "new_model", "AUTOSAVE_MS", "BURST_MS"]

DEFAULT_SIZE = (1560, 960)   # on a screen with room for it; smaller screens get what they have
FRAME = (16, 48)              # room for the window manager's frame and title bar (pixels)
AUTOSAVE_MS = 30_000   # periodic recovery write while there are unsaved edits
BURST_MS = 1_500       # and this long after the last edit of a burst
FILE_FILTER = "Manipulator projects (*.json);;All files (*)"


def new_model() -> Manipulator:
    """The arm of File > New: two revolute links in a vertical plane."""
    links = (Link(name="link1", a="L1", mass="m1", com=("-L1/2", 0, 0)),
             Link(name="link2", a="L2", mass="m2", com=("-L2/2", 0, 0)))
    return Manipulator(links=links, name="New arm", gravity=(0, "-g", 0),
                       parameters=(("L1", 0.5), ("L2", 0.4), ("m1", 2.0), ("m2", 1.0), ("g", 9.81)))


class MainWindow(QMainWindow):
    """The designer window.

    Parameters
    ----------
    model, path:
        The project to show first (a new arm when omitted).
    settings:
        Where recent files are kept (the application's QSettings by default).
    recovery_dir:
        Folder of recovery files (AppDataLocation/recovery by default).
    derive:
        The derivation job factory (the core's ``derive_job`` by default).
    """

    exported = Signal(str)   # path of a file the Export menu wrote

    def __init__(self, model: Manipulator | None = None, path=None, *, settings: QSettings | None = None,
                 recovery_dir: Path | None = None, derive=None, parent=None):
        super().__init__(parent)
        self.resize(*DEFAULT_SIZE)
        self.document = Document(model or new_model(), path, self)
        self.design = OpenDesign(self.document.model)   # the pose and the arm the views share
        self.settings = settings or QSettings()
        self.recent = RecentFiles(self.settings)
        self.recovery = Recovery(recovery_dir)
        self.docs_window: help_windows.DocsWindow | None = None
        self.view_actions: dict[str, QAction] = {}

        doc = self.document
        self.dh_table = DHTable(doc, self)
        self.inspector = LinkInspector(doc, self)
        self.parameters = ParametersPanel(doc, self)
        self.loads = LoadsPanel(doc, self)
        self.problems = ProblemsPanel(doc, self)
        self.derivation = DerivationPanel(doc, derive, self)
        self.history = QUndoView(doc.undo_stack, self)
        self.history.setEmptyLabel("<opened>")
        self.arm_view, self.sliders, self.coupling = ArmView(self), JointSliders(self), CouplingPanel(self)
        self.explore = ExplorePanel(self)
        self.simulate = SimulatePanel(self)
        # A GL widget in a window makes Qt composite the whole window with OpenGL on every
        # repaint (over 100 ms a frame with software GL); in its own native window it does not.
        # The GL widget itself, not the ArmView: with the view's tool bar in the same native
        # window the slider drag fell from about 30 to 15 frames/s (benchmarks/bench_gui.py).
        self.arm_view.view.setAttribute(Qt.WidgetAttribute.WA_DontCreateNativeAncestors)
        self.arm_view.view.setAttribute(Qt.WidgetAttribute.WA_NativeWindow)

        self.editor_tabs = QTabWidget(self)
        self.editor_tabs.addTab(self.inspector, "Link")
        self.editor_tabs.addTab(self.parameters, "Parameters")
        self.editor_tabs.addTab(self.loads, "Arm, gravity && loads")
        left = QSplitter(Qt.Orientation.Vertical, self)
        left.addWidget(self.dh_table)
        left.addWidget(self.editor_tabs)
        left.setSizes([215, 700])

        centre = QWidget(self)
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        centre_layout.addWidget(self.arm_view, 1)
        centre_layout.addWidget(self.sliders)
        self.readout = KinematicsReadout(self)
        centre_layout.addWidget(self.readout)

        self.result_tabs = QTabWidget(self)
        self.result_tabs.addTab(self.derivation, "Equations")
        self.result_tabs.addTab(self.coupling, "Coupling plots")
        # the explore controls are wide; scrolling keeps them from widening the whole column
        explore_scroll = QScrollArea(self)
        explore_scroll.setWidgetResizable(True)
        explore_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        explore_scroll.setWidget(self.explore)
        self.result_tabs.addTab(explore_scroll, "Explore")
        self.result_tabs.addTab(self.simulate, "Simulate")
        self.result_tabs.addTab(self.problems, "Problems")
        self.result_tabs.addTab(self.history, "History")

        main = QSplitter(Qt.Orientation.Horizontal, self)
        main.addWidget(left)
        main.addWidget(centre)
        main.addWidget(self.result_tabs)
        main.setStretchFactor(1, 1)
        self.setCentralWidget(main)
        self.splitters = {"main": main, "left": left}
        # File > Export's job line: progress and Cancel in the status bar while a file is written
        self.export_jobs = JobRunner(self, status_line=False, show_errors=False, hide_when_idle=True)
        self.export_jobs.progress.setMaximumWidth(220)
        self.statusBar().addPermanentWidget(self.export_jobs)
        self.export_jobs.hide()
        self.fit_to_screen()
        self._restore_layout()

        for source in (self.dh_table.table_model, self.inspector, self.parameters, self.loads,
                       self.derivation):
            source.message.connect(self.show_message)
        self.dh_table.currentLinkChanged.connect(self.inspector.set_link)
        self.problems.countChanged.connect(self._problem_count)
        self.problems.linkChosen.connect(self.dh_table.select_link)
        self._observe_design()
        doc.modelChanged.connect(self.design.set_model)
        self.explore.workspaceMapped.connect(self.arm_view.set_workspace_points)
        doc.dirtyChanged.connect(self._update_title)
        doc.pathChanged.connect(self._update_title)
        doc.reset_done.connect(self.derivation.clear)
        self.sliders.valuesChanged.connect(self.design.set_pose)
        doc.undo_stack.indexChanged.connect(self._edited)
        self.explore.loadDesignRequested.connect(self._load_design)
        self.explore.poseRequested.connect(self.sliders.set_values)
        self.simulate.poseRequested.connect(self.sliders.set_values)
        self.explore.metricHelpRequested.connect(lambda: self.show_user_guide("metrics.md"))

        self._build_menus()
        self.setAcceptDrops(True)
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()
        self.burst_timer = QTimer(self)
        self.burst_timer.setSingleShot(True)
        self.burst_timer.setInterval(BURST_MS)
        self.burst_timer.timeout.connect(self.autosave)
        self._autosaved_model = None
        self.design.set_model(doc.model)
        self.problems.refresh(doc.model)

    # -- menus -----------------------------------------------------------------------
    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        """One method a menu, so that a new command is one line in its menu's method."""
        bar = self.menuBar()
        self._build_file_menu(bar.addMenu("&File"))
        self._build_edit_menu(bar.addMenu("&Edit"))
        self._build_view_menu(bar.addMenu("&View"))
        self._build_arm_menu(bar.addMenu("&Arm"))
        self._build_help_menu(bar.addMenu("&Help"))

    def _build_file_menu(self, file_menu) -> None:
        self._action(file_menu, "&New", self.new_project, QKeySequence.StandardKey.New)
        self._action(file_menu, "&Open…", self.open_file, QKeySequence.StandardKey.Open)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = file_menu.addMenu("&Examples")
        for name, path in examples():
            self._action(self.examples_menu, f"{name}  ({path.name})", lambda p=path: self.open_example(p))
        file_menu.addSeparator()
        self._action(file_menu, "&Save", self.save, QKeySequence.StandardKey.Save)
        self._action(file_menu, "Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file_menu.addSeparator()
        export_menu = file_menu.addMenu("&Export")
        export.build_menu(self, export_menu)
        export_menu.addSeparator()
        design_export.build_menu(self, export_menu)
        urdf_dialogs.build_menu(self, file_menu)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

    def _build_edit_menu(self, edit_menu) -> None:
        self.undo_action = self.document.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.document.undo_stack.createRedoAction(self, "&Redo")
        # Ctrl+Shift+Z (the platform's key) and Ctrl+Y, which many users reach for
        redo_keys = [k for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)]
        for extra in (QKeySequence("Ctrl+Y"), QKeySequence("Ctrl+Shift+Z")):
            if extra not in redo_keys:
                redo_keys.append(extra)
        self.redo_action.setShortcuts(redo_keys)
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        self._action(edit_menu, "Add link", self.dh_table.add_link)
        self._action(edit_menu, "Remove link", self.dh_table.remove_link)
        edit_menu.addSeparator()
        preferences.build_menu(self, edit_menu)

    def _build_view_menu(self, view_menu) -> None:
        view = self.arm_view
        self._action(view_menu, "&Fit the arm in the 3D view", view.fit_camera, "Ctrl+Shift+F")
        self._action(view_menu, "&Reset the 3D view", view.reset_camera, "Ctrl+0")
        for k, name in enumerate(("front", "side", "top", "iso"), start=1):
            self._action(view_menu, f"{name.capitalize()} view", lambda n=name: view.set_view(n), f"Ctrl+{k}")
        view_menu.addSeparator()
        for name, action in view.toolbar.option_actions.items():
            view_menu.addAction(action)   # the same checkable actions as the view's Show menu
            self.view_actions[name] = action

    def _build_arm_menu(self, arm_menu) -> None:
        self._action(arm_menu, "&Home pose", self.sliders.home, "Ctrl+H")
        self._action(arm_menu, "&Derive equations", self.derivation.start, "Ctrl+D")
        self._action(arm_menu, "&Cancel derivation", self.derivation.cancel)
        from . import control_dialogs
        control_dialogs.build_menu(self, arm_menu)

    def _build_help_menu(self, help_menu) -> None:
        self._action(help_menu, "&User guide", self.show_user_guide, QKeySequence.StandardKey.HelpContents)
        self._action(help_menu, "&Metric definitions", lambda: self.show_user_guide("metrics.md"))
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts)
        help_menu.addSeparator()
        self._action(help_menu, "&About Manipulator Designer", lambda: help_windows.show_about(self))

    def menu_actions(self) -> list[tuple[str, QAction]]:
        """(menu title, action) of every command in the menu bar, sub-menus included."""
        out = []

        def walk(menu, title):
            for action in menu.actions():
                if action.menu() is not None:
                    walk(action.menu(), title)
                elif not action.isSeparator():
                    out.append((title, action))
        for top in self.menuBar().actions():
            if top.menu() is not None:
                walk(top.menu(), top.text().replace("&", ""))
        return out

    def show_user_guide(self, page: str | None = None) -> help_windows.DocsWindow:
        """Open the user guide (README and docs/*.md) in a window, at ``page`` (a file name) if given."""
        if self.docs_window is None:
            self.docs_window = help_windows.DocsWindow(self)
        if page:
            self.docs_window.show_page(page)
        self.docs_window.show()
        self.docs_window.raise_()
        return self.docs_window

    def show_shortcuts(self) -> help_windows.ShortcutsDialog:
        dialog = help_windows.ShortcutsDialog(self.menu_actions(), self)
        dialog.show()
        return dialog

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        if not paths:
            self.recent_menu.addAction("(none)").setEnabled(False)
        for p in paths:
            self._action(self.recent_menu, p, lambda p=p: self.open_file(p))

    # -- keeping the window in step with the model ---------------------------------------
    def _observe_design(self) -> None:
        """The views follow :attr:`design` (the model, its arm built once, the pose); the sliders set
        the pose and follow the model."""
        design = self.design
        design.observe(model=lambda d: self.sliders.set_model(d.model, d.arm))
        design.observe(model=lambda d: self.arm_view.set_model(d.model, d.arm),
                       pose=lambda d: self.arm_view.set_joint_values(d.q))
        design.observe(pose=lambda d: self.readout.update_pose(d.arm, d.q))
        design.observe(model=lambda d: self.coupling.set_model(d.model, d.arm),
                       pose=lambda d: self.coupling.set_joint_values(d.q))
        design.observe(model=lambda d: self.explore.set_model(d.model),
                       pose=lambda d: self.explore.set_joint_values(d.q))
        design.observe(model=lambda d: self.simulate.set_model(d.model, d.arm),
                       pose=lambda d: self.simulate.set_joint_values(d.q))
        # the sliders keep their values (clamped) or start at zero: the pose is theirs after a model change
        design.observe(model=lambda d: self._sync_pose())
        design.observe(model=lambda d: self._update_title())

    def _sync_pose(self) -> None:
        q = self.sliders.values()
        if len(q) == self.design.model.n:
            self.design.q = np.asarray(q, float)

    def _edited(self, _index: int) -> None:
        self.burst_timer.start()  # a recovery write once the burst of edits pauses

    def _load_design(self, model: Manipulator) -> None:
        self.document.apply(model, f"Load design {model.name}" if model.name else "Load design")

    def _update_title(self, *_args) -> None:
        doc = self.document
        name = doc.model.name or "Unnamed arm"
        self.setWindowTitle(f"{name} — {doc.display_name()}[*]")
        self.setWindowModified(doc.dirty)

    def _problem_count(self, errors: int, warnings: int) -> None:
        total = errors + warnings
        index = self.result_tabs.indexOf(self.problems)
        self.result_tabs.setTabText(index, f"Problems ({total})" if total else "Problems")

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 10_000)

    # -- projects ----------------------------------------------------------------------
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

    def _load(self, path) -> Manipulator | None:
        try:
            return load_project(path)
        except ProjectError as exc:
            QMessageBox.critical(self, "Cannot open project", str(exc))
            self.show_message(str(exc))
            return None

    def open_file(self, path=None) -> bool:
        if not self.maybe_save():
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open project", str(self._folder()), FILE_FILTER)
            if not path:
                return False
            remember_folder(path, self.settings)
        model = self._load(path)
        if model is None:
            self.recent.remove(path)
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
        notice = upgrade_notice(self.document.path, path)
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
        self.document.reset(latest.model, latest.path, origin=latest.origin, dirty=True)
        self.autosave()
        self.show_message("Recovered unsaved changes")
        return True

    # -- layout ------------------------------------------------------------------------
    def fit_to_screen(self, available: QRect | None = None) -> None:
        """Size the window to fit ``available`` (the screen's free area by default), centred in it, and
        share its width between the three columns (editors, arm, results)."""
        if available is None:
            screen = self.screen() or QGuiApplication.primaryScreen()
            available = screen.availableGeometry() if screen is not None else QRect(0, 0, *DEFAULT_SIZE)
        width = max(640, min(DEFAULT_SIZE[0], available.width() - FRAME[0]))
        height = max(480, min(DEFAULT_SIZE[1], available.height() - FRAME[1]))
        self.resize(width, height)
        self.move(available.x() + (available.width() - width) // 2,
                  available.y() + max(0, (available.height() - height - FRAME[1]) // 2))
        left, right = int(0.27 * width), int(0.33 * width)
        self.splitters["main"].setSizes([left, width - left - right, right])
        self.splitters["left"].setSizes([int(0.25 * height), int(0.75 * height)])

    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
            screen = self.screen() or QGuiApplication.primaryScreen()
            if screen is not None and not screen.availableGeometry().contains(self.frameGeometry()):
                self.fit_to_screen()   # saved on a larger screen
                return
        for name, splitter in self.splitters.items():
            state = self.settings.value(f"window/{name}")
            if state is not None:
                splitter.restoreState(state)

    def _save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        for name, splitter in self.splitters.items():
            self.settings.setValue(f"window/{name}", splitter.saveState())
        self.settings.sync()

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

    def closeEvent(self, event) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.derivation.cancel()
        self.explore.cancel()
        self.simulate.cancel()
        self.export_jobs.cancel()
        self.autosave_timer.stop()
        self.burst_timer.stop()
        self.recovery.discard()
        self._save_layout()
        event.accept()
