"""The main window: editors on the left, the arm in the middle, equations, plots and problems in tabs.

Its menus are in :mod:`designer.gui.window_menus`, its project files and recovery in
:mod:`designer.gui.window_files` (mixins of :class:`MainWindow`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QEvent, QRect, QSettings, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter, QTabWidget, QUndoView, QVBoxLayout, QWidget

from ..design_state import OpenDesign
from ..model import Manipulator
from .derivation import DerivationPanel
from .dh_table import DHTable
from .drives_frames import DrivesPanel
from .document import Document
from .inspector import LinkInspector
from .job_runner import JobRunner
from .params import LoadsPanel, ParametersPanel
from .prepared import PreparedDesign
from .problems import ProblemsPanel
from .readout import KinematicsReadout
from .tab_titles import TabTitles
from .projects import RecentFiles, Recovery
from .view3d import ArmView
from .loop_pose import LoopPose
from .joint_sliders import JointSliders
from .mechanism_panel import MechanismPanel
from .window_files import FILE_FILTER, WindowFiles, new_model
from .window_menus import WindowMenus

if TYPE_CHECKING:
    from . import help as help_windows
    from .coupling_plots import CouplingPanel
    from .explore_panel import ExplorePanel
    from .requirements import RequirementsPanel
    from .simulate import SimulatePanel

__all__ = ["MainWindow", "new_model", "AUTOSAVE_MS", "BURST_MS", "FILE_FILTER"]

DEFAULT_SIZE = (1880, 1040)   # nearly all of a 1920 x 1080 screen; smaller screens get what they have
FRAME = (16, 48)              # room for the window manager's frame and title bar (pixels)
AUTOSAVE_MS = 30_000   # periodic recovery write while there are unsaved edits
BURST_MS = 1_500       # and this long after the last edit of a burst
# The result tabs not shown at start, built when first shown or first used (issue 29: the window opens in a
# second), in their order after Equations: (attribute, tab title, the module that holds the panel)
LATER_TABS = (("coupling", "Coupling", "coupling_plots"), ("explore", "Explore", "explore_panel"),
              ("simulate", "Simulate", "simulate"), ("requirements", "Requirements", "requirements"))
LATER_MODULES = tuple(f"designer.gui.{module}" for _name, _title, module in LATER_TABS)


class MainWindow(WindowMenus, WindowFiles, QMainWindow):
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
    stepwise:
        Build only the panels; the caller calls :meth:`build_next` until it returns False, each call in a turn
        of the event loop of its own (the start: no block over 100 ms, issue 29), and then opens a project
        (``document.reset``) or calls :meth:`show_model`: the views are not filled with the new arm a project
        replaces at once (20 ms of the start). Whole at once, the new arm shown, by default.
    """

    exported = Signal(str)   # path of a file the Export menu wrote

    def __init__(self, model: Manipulator | None = None, path=None, *, settings: QSettings | None = None,
                 recovery_dir: Path | None = None, derive=None, parent=None, stepwise: bool = False):
        super().__init__(parent)
        self.resize(*DEFAULT_SIZE)
        self.document = Document(model or new_model(), path, self)
        self.design = OpenDesign(self.document.model)   # the pose and the arm the views share
        self.closed = LoopPose(self)   # a closed chain's loop closure between the sliders and the design
        self._opening_pose: np.ndarray | None = None   # a new project's home pose, for the sliders
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
        self.drives = DrivesPanel(doc, self)
        self._derive = derive
        self._panels: dict[str, QWidget] = {}   # the later result tabs' panels, once built (LATER_TABS)
        self._pages: dict[str, QWidget] = {}   # and the pages they stand in (Explore's scrolls)
        self._later_pages: dict[str, QWidget] = {}   # the empty page holding each one's tab until then
        self._build_rest = [self._make_views, self._lay_out, self._wire]
        if not stepwise:
            while self.build_next():
                pass
            self.show_model()

    def build_next(self) -> bool:
        """Build the next part of the window (``stepwise``: one a turn of the event loop, issue 29); False
        once the window is whole."""
        if self._build_rest:
            self._build_rest.pop(0)()
        return bool(self._build_rest)

    def _make_views(self) -> None:
        """The result panels, the history and the 3D view with its sliders: a step of their own (stepwise, the
        panels above and these were one block of 55-65 ms on a quiet machine, issue 29)."""
        doc = self.document
        self.problems = ProblemsPanel(doc, self)
        self.derivation = DerivationPanel(doc, self._derive, self)
        self.history = QUndoView(doc.undo_group, self)   # the open project's edits
        self.history.setEmptyLabel("<opened>")
        self.arm_view, self.sliders = ArmView(self), JointSliders(self)
        self.arm_view.in_native_window()

    def _lay_out(self) -> None:
        """The editors' tabs, the centre and the result tabs, in their splitters."""
        doc = self.document
        self.editor_tabs = QTabWidget(self)
        self.mechanism = MechanismPanel(doc, self)   # closed chains: the tree and the loops
        # short titles, so that every tab shows in the left column at 1366 px (issue 29 item 10); the tooltip
        # gives what each holds
        for panel, title, tip in ((self.inspector, "Link", "the selected link: its joint, mass, centre of mass, "
                                   "inertia or part and material, joint limits"),
                                  (self.parameters, "Parameters", "the named symbols and their values"),
                                  (self.loads, "Loads", "the arm's name and description, gravity and point masses"),
                                  (self.drives, "Drives", "each joint's drive (gearbox, motor, friction, stiffness) "
                                   "and the base and tool frames"),
                                  (self.mechanism, "Loops", "a closed chain's tree (each link's parent) and loops")):
            self.editor_tabs.setTabToolTip(self.editor_tabs.addTab(panel, title), tip)
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
        # narrow (1024 px): every result tab's title shown, shortened ("Simul…"), rather than History behind scroll
        # arrows (item 15); the editor tabs' titles are short, Loops the one that may scroll
        self.result_tabs.setUsesScrollButtons(False)
        self.result_tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.result_tabs.addTab(self.derivation, "Equations")
        for name, title, _module in LATER_TABS:   # built when first shown: _later_panel
            self._later_pages[name] = QWidget(self.result_tabs)
            self.result_tabs.addTab(self._later_pages[name], title)
        self.result_tabs.currentChanged.connect(self._tab_shown)
        self.result_tabs.addTab(self.problems, "Problems")
        self.result_tabs.addTab(self.history, "History")
        # titles read whole: short ones ("Eqs") when the full ones do not fit, the full name in the tooltip
        later = self._later_pages   # each later tab's page until it is built (then TabTitles.replace)
        self.tab_titles = TabTitles(self.result_tabs, {
            self.derivation: ("Equations", "Eqs", "derive the dynamics, the equations' entries, export"),
            later["coupling"]: ("Coupling", "Coupling", "an inertia-matrix entry and its coefficients over a sweep"),
            later["explore"]: ("Explore", "Explore", "maps, sweeps, Pareto fronts, sizing over the design space"),
            later["simulate"]: ("Simulate", "Sim", "a fall or a move in time, played back in the 3D view"),
            later["requirements"]: ("Requirements", "Reqs", "the project's requirements, reviewed live"),
            self.problems: ("Problems", "Problems", "what is wrong with the model, and where"),
            self.history: ("History", "History", "every edit, for undo and redo")})

        main = QSplitter(Qt.Orientation.Horizontal, self)
        main.addWidget(left)
        main.addWidget(centre)
        main.addWidget(self.result_tabs)
        # a larger (maximised) window grows every column, the arm's most: 1 : 2 : 2
        for k, stretch in enumerate((1, 2, 2)):
            main.setStretchFactor(k, stretch)
        left.setStretchFactor(0, 0)
        left.setStretchFactor(1, 1)
        self.setCentralWidget(main)
        self.splitters = {"main": main, "left": left}
        # File > Export's job line: progress and Cancel in the status bar while a file is written
        self.export_jobs = JobRunner(self, status_line=False, show_errors=False, hide_when_idle=True)
        self.export_jobs.progress.setMaximumWidth(220)
        self.statusBar().addPermanentWidget(self.export_jobs)
        self.export_jobs.hide()
        self.fit_to_screen()
        self._restore_layout()

    def _wire(self) -> None:
        """The panels' signals, the menus, the autosave."""
        doc = self.document
        for source in (self.dh_table.table_model, self.inspector, self.parameters, self.loads, self.drives,
                       self.derivation, self.mechanism):
            source.message.connect(self.show_message)
        self.dh_table.currentLinkChanged.connect(self.inspector.set_link)
        self._table_room = QTimer(self)   # once per burst of column resizes (one per column)
        self._table_room.setSingleShot(True)
        self._table_room.setInterval(0)
        self._table_room.timeout.connect(self._give_table_room)
        self.dh_table.view.horizontalHeader().sectionResized.connect(lambda *_: self._table_room.start())
        self.problems.countChanged.connect(self._problem_count)
        # every refused entry is listed under Problems: the tables' red cells and the editors' red fields
        for source in (self.dh_table.table_model, *self.drives.sources(), *self.mechanism.sources(),
                       *self.inspector.edits(), *self.loads.gravity):
            self.problems.watch(source)
        self.problems.linkChosen.connect(self.dh_table.select_link)
        self.arm_view.meshes.problemsChanged.connect(self.problems.set_extra)
        self._observe_design()
        # what belongs to a project goes with it (issue 29): the views that keep results forget them
        # when the document replaces its ProjectState, before the new model is announced
        for view in (self.derivation, self.arm_view, self):   # and each later tab's panel when it is built
            doc.add_project_view(view)
        doc.stateReplaced.connect(self._project_replaced)
        doc.modelChanged.connect(self.design.set_model)
        doc.modelChanged.connect(self._review_requirements)
        doc.dirtyChanged.connect(self._update_title)
        doc.pathChanged.connect(self._update_title)
        self.sliders.valuesChanged.connect(self.closed.sliders_moved)   # a closed chain's loops closed first
        doc.undo_group.indexChanged.connect(self._edited)

        self._watching_expose = False
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

    def show_model(self) -> None:
        """The views show the document's model (what opening a project does through ``document.reset``)."""
        doc = self.document
        self.design.set_model(doc.model)
        self.problems.refresh(doc.model)

    # -- keeping the window in step with the model ---------------------------------------
    def _observe_design(self) -> None:
        """The views follow :attr:`design` (the model, its arm built once, the pose); the sliders set
        the pose and follow the model."""
        design = self.design
        design.observe(model=self._sliders_follow)   # first: a closed chain's loops close from their values
        design.observe(model=self.closed.model_changed)   # then the mechanism, before the views: the pose is closed
        design.observe(model=lambda d: self.arm_view.set_model(d.model, d.arm),
                       pose=lambda d: self.arm_view.set_joint_values(d.q))
        design.observe(model=lambda d: self.readout.set_model(d.model),
                       pose=lambda d: self.readout.update_pose(*self.closed.readout(d)))
        # (the later result tabs' panels observe it once built: _later_panel)
        # the sliders keep their values (clamped) or start at zero: the pose is theirs after a model change
        design.observe(model=lambda d: self._sync_pose())
        design.observe(model=lambda d: self._update_title())
        design.observe(model=self.closed.after_model)   # last: over the views' own drawing and messages

    # -- the result tabs built when first shown (issue 29) -----------------------------------
    @property
    def coupling(self) -> CouplingPanel:
        return self._later_panel("coupling")   # type: ignore[return-value]

    @property
    def explore(self) -> ExplorePanel:
        return self._later_panel("explore")   # type: ignore[return-value]

    @property
    def simulate(self) -> SimulatePanel:
        return self._later_panel("simulate")   # type: ignore[return-value]

    @property
    def requirements(self) -> RequirementsPanel:
        return self._later_panel("requirements")   # type: ignore[return-value]

    @property
    def explore_scroll(self) -> QWidget:
        """The Explore tab's page: the panel in a scroll area."""
        self._later_panel("explore")
        return self._pages["explore"]

    def built_panels(self) -> list[QWidget]:
        """The later result tabs' panels built so far (each built when its tab is first shown or used)."""
        return list(self._panels.values())

    def _review_requirements(self, *_args) -> None:
        """A project with requirements is reviewed in the background whether or not its tab was shown (the design
        report takes the outcomes): the Requirements tab is built for it, once the window shows."""
        if "requirements" in self._panels or not self.document.model.requirements.items:
            return
        if self.isVisible():
            QTimer.singleShot(0, lambda: self._later_panel("requirements"))
        # else showEvent calls here again

    def _tab_shown(self, index: int) -> None:
        page = self.result_tabs.widget(index)
        for name, waiting in list(self._later_pages.items()):
            if waiting is page:
                self._later_panel(name)

    def _later_panel(self, name: str) -> QWidget:
        """The panel of the later result tab ``name``, built now if it is the first time: it takes its tab's
        place, follows the design from now on (drawn at once for the open project and pose) and goes with the
        project like the views built with the window."""
        panel = self._panels.get(name)
        if panel is not None:
            return panel
        page = self._later_pages.pop(name)
        panel, content = getattr(self, f"_build_{name}")()   # the panel, and the page it stands in
        self._panels[name], self._pages[name] = panel, content
        tabs = self.result_tabs
        with QSignalBlocker(tabs):
            index, current = tabs.indexOf(page), tabs.currentIndex()
            title, geometry = tabs.tabText(index), tabs.currentWidget().geometry()   # a shown page's
            tabs.removeTab(index)
            tabs.insertTab(index, content, title)
            tabs.setCurrentIndex(current)
        content.setGeometry(geometry)   # its page's size at once (a report grabs a tab never shown)
        self.tab_titles.replace(page, content)
        page.deleteLater()
        self.document.add_project_view(panel)
        return panel

    def _follow(self, model, pose) -> None:
        """A view built after the window follows the design from now on, drawn for its model and pose now."""
        self.design.observe(model=model, pose=pose)
        model(self.design)
        pose(self.design)

    def _build_coupling(self) -> tuple[QWidget, QWidget]:
        from .coupling_plots import CouplingPanel
        coupling = CouplingPanel(self)
        self._follow(lambda d: coupling.set_model(d.model, d.arm), lambda d: coupling.set_joint_values(d.q))
        return coupling, coupling

    def _build_explore(self) -> tuple[QWidget, QWidget]:
        from .explore_panel import ExplorePanel
        from .scroll_column import ScrollColumn
        explore = ExplorePanel(self)
        # the explore controls are many: below their minimum size they scroll rather than widen the column
        scroll = ScrollColumn(explore, self)
        self._follow(lambda d: explore.set_model(d.model), lambda d: explore.set_joint_values(d.q))
        explore.workspaceMapped.connect(self.arm_view.set_workspace_points)
        explore.loadDesignRequested.connect(self._load_design)
        explore.poseRequested.connect(self.sliders.set_values)
        explore.metricHelpRequested.connect(lambda: self.show_user_guide("metrics.md"))
        return explore, scroll

    def _build_simulate(self) -> tuple[QWidget, QWidget]:
        from .simulate import SimulatePanel
        simulate = SimulatePanel(self)   # every mechanism's simulation: gui/simulate.py
        self._follow(lambda d: simulate.set_model(d.model, d.arm), lambda d: simulate.set_joint_values(d.q))
        # playback shows what was simulated, outside the limits too (the sliders say so in red)
        simulate.poseRequested.connect(lambda q: self.sliders.set_values(q, clamp=False))
        return simulate, simulate

    def _build_requirements(self) -> tuple[QWidget, QWidget]:
        from .requirements import RequirementsPanel
        requirements = RequirementsPanel(self)   # the project's requirements, reviewed live (gui/requirements.py)
        requirements.poseRequested.connect(lambda q: self.sliders.set_values(q, clamp=False))
        return requirements, requirements

    def _sliders_follow(self, design) -> None:
        # quietly: their valuesChanged here (n changed, or values clamped) would pose the views that have
        # not heard of the new model yet (issue 29 item 2: IndexError in the read-out, the 3D view);
        # _sync_pose takes their values once every view has the model
        home, self._opening_pose = self._opening_pose, None
        with QSignalBlocker(self.sliders):
            self.sliders.set_model(design.model, design.arm, values=home)

    def forget_project(self) -> None:
        """Another project replaces the open one: no message about the old one stays in the status bar, and
        a Linearize or Identification dialog of the old model closes (its job was cancelled with it)."""
        self.statusBar().clearMessage()
        dialog = getattr(self, "control_dialog", None)   # set by control_dialogs while one is open
        if dialog is not None:
            dialog.close()
            self.control_dialog = None

    def _project_replaced(self, state) -> None:
        """A new project opens at its home pose, whatever pose the previous one was left in (issue 29 item 3):
        the sliders take it when the design announces the model (a closed chain closes its loops from it)."""
        self._opening_pose = state.home
        self.design.q = np.array(state.home, float)

    def adopt(self, prepared: PreparedDesign) -> None:
        """What :func:`~designer.gui.prepared.prepare_design` computed off the GUI thread for a model about to be
        shown (an opened file, an import): the design, the Problems panel and the Explore map take it when the
        document announces that very model, instead of computing it on the GUI thread."""
        self.design.adopt(prepared.model, prepared.arm, prepared.arm_error)
        self.problems.adopt(prepared.model, prepared.problems)

    def _sync_pose(self) -> None:
        q = self.sliders.values()
        if self.closed.mechanism is not None:
            return   # loop_pose.LoopPose.model_changed gave the design its closed pose
        if len(q) == self.design.model.n:
            self.design.q = np.asarray(q, float)

    def _edited(self, _index: int) -> None:
        self.burst_timer.start()  # a recovery write once the burst of edits pauses

    def _load_design(self, model: Manipulator) -> None:
        self.document.apply(model, f"Load design {model.name}" if model.name else "Load design")

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if hasattr(self, "_table_room"):   # the table's room, now that the columns have their real widths
            self._table_room.start()
        self._review_requirements()
        handle = self.windowHandle()
        if handle is not None and not self._watching_expose:
            handle.installEventFilter(self)
            self._watching_expose = True

    def eventFilter(self, watched, event) -> bool:
        # With the GL view in a native window, Qt flushed nothing when a pop-up, a dialog or another
        # window uncovered part of this one: their pixels stayed ("cy4", a strip of the user guide).
        # Repainting the window on an expose is one paint of the widgets (no GL), on a rare event.
        if event.type() == QEvent.Type.Expose and watched is self.windowHandle():
            self.update()
        return super().eventFilter(watched, event)

    def _update_title(self, *_args) -> None:
        doc = self.document
        name = doc.model.name or "Unnamed arm"
        self.setWindowTitle(f"{name} — {doc.display_name()}[*]")
        self.setWindowModified(doc.dirty)

    def _problem_count(self, errors: int, warnings: int) -> None:
        self.tab_titles.set_count(self.problems, errors + warnings)

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 10_000)

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
        self.share_columns(width, height)

    def share_columns(self, width: int, height: int) -> None:
        """Share ``width`` between the columns and the left column's ``height`` between the DH table and
        the editors: the table gets its whole width and every row (up to 45 % of the height), the
        result tabs every tab title (History was behind scroll arrows), the arm the rest."""
        left = max(int(0.27 * width), self.dh_table.full_width(), self.editor_tabs.tabBar().sizeHint().width() + 8)
        # every full title ("Requirements", not "Reqs") where the arm keeps 30 % with them, else the short ones
        full = self.tab_titles.needed(False) + 8
        right = max(int(0.33 * width), min(full, width - left - int(0.3 * width)),
                    self.tab_titles.needed(True) + 8)
        # what is left for the arm; on a narrow screen (1024) the table's width and the short titles come first, the
        # arm keeping at least a fifth (more asked than there is would shrink every column, the table's names too)
        centre = max(width - left - right, int(0.2 * width))
        self.splitters["main"].setSizes([left, centre, right])
        table = min(self.dh_table.full_height(), int(0.45 * height))
        self.splitters["left"].setSizes([table, max(height - table, 1)])

    def _give_table_room(self) -> None:
        """The table's columns sized themselves (on first show, or a longer number typed or imported):
        the left column takes the width from the arm's, as long as the arm keeps 30 % of the window,
        and the table the height of every row, rather than scrolling (a layout saved by an older
        version left five of the PUMA's six rows)."""
        if not self.isVisible():
            # not laid out yet: the splitters' sizes are placeholders (about 30 px each), and setting sizes from
            # them replaced the columns share_columns asked for (the arm had 21 % of the window, not 40 %); the
            # first show starts this again
            return
        main = self.splitters["main"]
        sizes = main.sizes()
        need = self.dh_table.full_width() - sizes[0]
        extra = min(need, sizes[1] - int(0.3 * sum(sizes)))
        if need > 0 and extra > 0:
            main.setSizes([sizes[0] + extra, sizes[1] - extra, sizes[2]])
        left = self.splitters["left"]   # and every row, up to 45 % of the column's height
        top, bottom = left.sizes()
        rows = min(self.dh_table.full_height(), int(0.45 * (top + bottom))) - top
        if rows > 0:
            left.setSizes([top + rows, bottom - rows])

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

    def closeEvent(self, event) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.derivation.cancel()
        for name in ("explore", "simulate"):
            if name in self._panels:
                self._panels[name].cancel()   # type: ignore[attr-defined]
        self.export_jobs.cancel()
        self.autosave_timer.stop()
        self.burst_timer.stop()
        self.recovery.discard()
        self._save_layout()
        event.accept()
