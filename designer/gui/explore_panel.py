"""The Explore area: dynamic metrics over the workspace, design sweeps, Pareto fronts, A/B comparison,
design conditions, term significance and motor sizing, each computed in a worker thread with progress
and Cancel (one shared :class:`~designer.gui.job_runner.JobRunner`). The views get an
:class:`~designer.gui.explore.context.ExploreContext`, not the panel.

The lead's window embeds :class:`ExplorePanel` and wires three things::

    panel.set_model(model)            # on every model change
    panel.set_joint_values(q)         # from the joint sliders (rad, m)
    panel.loadDesignRequested.connect(lambda m: document.apply(m, "Load design"))  # a picked design, undoable

The views live in :mod:`designer.gui.explore`; the numbers come from :mod:`designer.explore`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QLineEdit, QTabWidget, QVBoxLayout, QWidget

from ..explore.metrics import drive_ratings
from ..explore.joints import explore_joints
from ..explore.metrics import MetricError, Ratings
from ..jobs import CancelToken, Job
from ..kinematics import NumericArm
from ..model import Manipulator
from .explore import drive_defaults
from .explore.compare_view import CompareView
from .explore.conditions_view import ConditionsView
from .explore.context import ExploreContext, ExploreInputError
from .explore.controls import parse_values
from .explore.map_view import MapView
from .explore.payload import PayloadField
from .explore.picker import MetricPicker
from .explore.significance_view import SignificanceView
from .explore.sizing_view import SizingView
from .explore.sweep_view import ParetoView, SweepView
from .explore.workspace_view import WorkspaceView
from .job_runner import JobRunner, plain_message
from .tab_titles import TabTitles
from .worker import JobWorker, ProcessJobWorker

__all__ = ["ExplorePanel", "ExploreInputError", "plain_message"]


RATING_UNITS = {"torque": "N m or N", "speed": "rad/s or m/s", "acceleration": "rad/s² or m/s²"}


class ExplorePanel(QWidget):
    """Metric picker, joint ratings, the Map / Sweep / Pareto / A/B / Conditions views, and one job
    line (progress, stage, Cancel) with an error line above it.

    Signals
    -------
    loadDesignRequested(Manipulator)
        The user picked a design (a Pareto point, or an applied design condition) to load.
    workspaceMapped(positions, values, label)
        A workspace map is ready: tool positions (N, 3) in the base frame and the metric there (N,),
        for a 3D view that colours points by value.
    """

    loadDesignRequested = Signal(object)
    metricHelpRequested = Signal()   # the picker's "?": show the metric definitions
    poseRequested = Signal(object)   # joint values (rad, m): a click on a map asks the arm to take this pose
    workspaceMapped = Signal(object, object, str)   # tool positions (N, 3), metric values (N,), metric label
    jobFinished = Signal(str)      # the job's title, after its result is shown
    jobEnded = Signal(str, str)    # title, how: "finished", "failed" or "cancelled"
    jobProgress = Signal(object)   # the running job's Progress

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model: Manipulator | None = None
        self.q = np.zeros(0)        # the metrics' pose: a closed chain's actuated joints
        self.q_tree = np.zeros(0)   # every joint's, as the sliders hold it
        self.runner = JobRunner(self)   # a closing window stops its computation (the runner does)
        self.runner.progressed.connect(self.jobProgress)
        self.runner.ended.connect(self._job_ended)
        self.error_label, self.status_label = self.runner.error, self.runner.status
        self.progress, self.cancel_button = self.runner.progress, self.runner.cancel_button

        self.picker = MetricPicker(self)
        self.picker.helpRequested.connect(self.metricHelpRequested)
        self.ratings_edits: dict[str, QLineEdit] = {}
        ratings_row = QGridLayout()
        for k, (what, unit) in enumerate(RATING_UNITS.items()):
            edit = QLineEdit(self)
            edit.setPlaceholderText(unit)
            edit.setToolTip(f"Rated joint {what} in {unit}: one value for every joint or one per joint, "
                            "separated by commas. Needed by coriolis, gravity_ratio and dyn_manipulability.")
            ratings_row.addWidget(QLabel(f"rated {what}" if what == "torque" else what, self), k // 2, 2 * (k % 2))
            ratings_row.addWidget(edit, k // 2, 2 * (k % 2) + 1)
            self.ratings_edits[what] = edit
        self.payload = PayloadField(self)   # kg at the tool: deflection, deflection_links (explore/payload.py)
        self.payload.changed.connect(self._payload_changed)
        ratings_row.addWidget(self.payload, 1, 2, 1, 2)
        ratings_row.setColumnStretch(1, 1)
        ratings_row.setColumnStretch(3, 1)

        self.context = ExploreContext(self.runner, model=lambda: self.model, pose=lambda: self.q,
                                      metric=self.picker.text, ratings=self.ratings,
                                      pose_arm=self._pose_arm, load_design=self.loadDesignRequested.emit)
        context = self.context
        self.tabs = QTabWidget(self)
        self.map_view = MapView(context, self)
        self.workspace_view = WorkspaceView(context, self)
        self.sweep_view = SweepView(context, self)
        self.pareto_view = ParetoView(context, self)
        self.compare_view = CompareView(context, self)
        self.conditions_view = ConditionsView(context, self)
        self.significance_view = SignificanceView(context, self)
        self.sizing_view = SizingView(context, self)
        # (full, short, what it holds): the short titles where the full ones do not fit the column (at 1366 px
        # "Sizing" was behind scroll arrows); each tab's tooltip names it in full
        titles = (("Map", "Map", "a metric over two joints, with its statistics"),
                  ("Workspace", "Workspace", "the tool's reachable points coloured by the metric, in the 3D view"),
                  ("Sweep", "Sweep", "a metric over one or two parameters or materials"),
                  ("Pareto", "Pareto", "the sweep's designs that no other beats on both objectives"),
                  ("A/B", "A/B", "two designs side by side"),
                  ("Conditions", "Cond.", "where the metric meets a bound, over the design space"),
                  ("Significance", "Signif.", "which parameters move the metric most"),
                  ("Sizing", "Sizing", "the drives' torque and speed needs against their ratings"))
        for view, (title, _short, _tip) in zip(self.views(), titles):
            self.tabs.addTab(view, title)
        self.tab_titles = TabTitles(self.tabs, dict(zip(self.views(), titles)), hold=False)
        self.sweep_view.finished.connect(lambda r: self.pareto_view.set_result(r, self.sweep_view.result_model))
        # tool positions coloured by the metric, for a 3D view to show: (positions (N, 3), values (N,), label)
        self.workspace_view.mapped.connect(lambda r: self.workspaceMapped.emit(r.positions, r.values, r.label))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picker)
        layout.addLayout(ratings_row)
        self.tabs.setUsesScrollButtons(True)
        # combo boxes as wide as their longest entry made the panel wider than its column
        for combo in self.findChildren(QComboBox):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
        for combo in (self.map_view.joint_x, self.map_view.joint_y):
            combo.setMinimumContentsLength(11)   # "q2 (shoulder)" whole: the row has room at 1366 x 768
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.runner)

    # -- the window's calls -------------------------------------------------------------
    def set_model(self, model: Manipulator) -> None:
        """Show ``model``; results computed for an earlier model stay on display, marked in their captions."""
        self.model = model
        joints = explore_joints(model)   # a closed chain: its actuated joints
        if self.q_tree.shape != (model.n,):
            self.q_tree = np.zeros(model.n)
        if self.q.shape != (joints.n,):
            self.q = np.zeros(joints.n)
        self.picker.set_joints(joints.numbers)   # metric texts name them as the core does
        drive_defaults.show(self.ratings_edits, model, RATING_UNITS)
        for view in self.views():
            view.set_model(model)

    def forget_project(self) -> None:
        """Another project replaced the open one: the job line and messages about the old one go (a design
        loaded from a sweep, a pose taken from a map), and every view's result with its plots and tables
        (issue 29: A/B and Pareto results carried over). The typed ratings and payload were what-ifs of
        that project's joints: the new one starts from its own drive data."""
        self.runner.forget()
        for edit in (*self.ratings_edits.values(), self.payload.edit):
            edit.clear()
        for view in self.views():
            view.forget_project()

    def set_joint_values(self, q) -> None:
        """The current pose (rad, m), e.g. from the joint sliders; marked on the map."""
        q = np.asarray(q, float).ravel()
        if self.model is not None and q.shape != (self.model.n,):
            return  # a stale pose from before a change in the number of links
        self.q_tree = q
        self.q = explore_joints(self.model).pose(q) if self.model is not None else q
        self.map_view.set_joint_values(self.q)

    def _pose_arm(self, q) -> None:
        """A view's pose (the metrics' joints) for the sliders: a closed chain's passive joints follow
        through the window's loop closure."""
        if self.model is not None:
            q = explore_joints(self.model).tree_pose(q, self.q_tree)
        self.poseRequested.emit(q)

    def views(self):
        return (self.map_view, self.workspace_view, self.sweep_view, self.pareto_view, self.compare_view,
                self.conditions_view, self.significance_view, self.sizing_view)

    # -- inputs the views share ---------------------------------------------------------
    def metric_text(self) -> str:
        return self.picker.text()

    def require_model(self) -> Manipulator:
        return self.context.require_model()

    def arm(self, model: Manipulator | None = None) -> NumericArm:
        return self.context.arm(model)

    def ratings(self, n: int | None = None) -> Ratings:
        """The typed joint ratings, the project's drive data where a field is empty."""
        model = self.require_model()
        joints = explore_joints(model)
        n = n or joints.n
        try:
            values = {what: parse_values(edit.text(), n, f"rated {what}") for what, edit in self.ratings_edits.items()}
            values = drive_defaults.fill(values, self.model)   # empty fields: the project's drive data
            payload = self.payload.value()   # kg at the tool (explore/payload.py)
            elastic = {k: joints.per_joint(v) for k, v in drive_ratings(model).items()}   # a closed chain's actuated
            # elastic joints: the project's drive data; payload named, so **values (arrays or None) fill the rest
            return Ratings.of(n, **values, **elastic, payload=payload)
        except (ValueError, MetricError) as exc:
            raise ExploreInputError(str(exc)) from None

    def _payload_changed(self) -> None:
        """A bad payload says so on the error line at once; correcting it takes its message away."""
        problem = self.payload.problem()
        if problem:
            self.show_error(problem)
        elif "payload: " in self.error_label.text():   # also "Map: payload: ..." from a refused job
            self.clear_error()

    # -- jobs (on the shared runner) --------------------------------------------------------------
    @property
    def worker(self) -> JobWorker | ProcessJobWorker | None:
        return self.runner.worker

    @property
    def job_title(self) -> str:
        return self.runner.title

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def run_job(self, title: str, make_job: Callable[[CancelToken], Job], on_result: Callable[[Any], None],
                owner=None):
        return self.context.run_job(title, make_job, on_result, owner)

    def guarded(self, title: str, action: Callable[[], object]):
        return self.context.guarded(title, action)

    def cancel(self) -> None:
        self.runner.cancel()

    def _job_ended(self, title: str, how: str) -> None:
        if how == "finished":
            self.jobFinished.emit(title)
        self.jobEnded.emit(title, how)

    # -- messages ------------------------------------------------------------------------------
    def show_error(self, message: str, details: str = "") -> None:
        self.runner.show_error(message, details)

    def clear_error(self) -> None:
        self.runner.clear_error()

    def show_status(self, text: str) -> None:
        self.runner.show_status(text)
