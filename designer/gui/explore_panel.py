"""The Explore area: dynamic metrics over the workspace, design sweeps, Pareto fronts, A/B comparison,
design conditions, term significance and motor sizing, each computed in a worker thread with progress
and Cancel.

The lead's window embeds :class:`ExplorePanel` and wires three things::

    panel.set_model(model)            # on every model change
    panel.set_joint_values(q)         # from the joint sliders (rad, m)
    panel.loadDesignRequested.connect(lambda m: document.apply(m, "Load design"))  # a picked design, undoable

The views live in :mod:`designer.gui.explore`; the numbers come from :mod:`designer.explore`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QProgressBar, QPushButton,
                               QTabWidget, QVBoxLayout, QWidget)

from ..errors import DesignerError
from ..explore.metrics import MetricError, Ratings
from ..jobs import CancelToken, Job, Progress
from ..kinematics import NumericArm
from ..model import Manipulator, MissingParameterError
from .explore import drive_defaults
from .explore.compare_view import CompareView
from .explore.conditions_view import ConditionsView
from .explore.controls import parse_values
from .explore.map_view import MapView
from .explore.picker import MetricPicker
from .explore.significance_view import SignificanceView
from .explore.sizing_view import SizingView
from .explore.sweep_view import ParetoView, SweepView
from .explore.workspace_view import WorkspaceView
from .worker import JobWorker, start_job

__all__ = ["ExplorePanel", "ExploreInputError", "plain_message"]


_USER_ERRORS = ("ValueError", "DesignerError", "MetricError", "ConditionError", "MissingParameterError",
                "ExploreInputError", "ProjectError", "ExpressionError", "IKError", "SingularConfigurationError",
                "TrajectoryError", "SizingError", "ComputeError")


def plain_message(message: str) -> str:
    """A job's failure message without the Python exception name of an input mistake
    ("ValueError: entry 3 ..." -> "entry 3 ...")."""
    kind, sep, rest = message.partition(": ")
    return rest if sep and kind in _USER_ERRORS else message

RATING_UNITS = {"torque": "N m or N", "speed": "rad/s or m/s", "acceleration": "rad/s² or m/s²"}


class ExploreInputError(DesignerError):
    """A user mistake in the panel's inputs (shown as one line, never raised to Qt)."""


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
        self.q = np.zeros(0)
        self.worker: JobWorker | None = None
        self._job_title = ""
        # a closing window stops its computation (a holder, not self: the slot runs during destruction)
        self._running: list[JobWorker | None] = [None]
        running = self._running
        self.destroyed.connect(lambda *_: running[0] is not None and running[0].cancel())

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
        ratings_row.setColumnStretch(1, 1)
        ratings_row.setColumnStretch(3, 1)

        self.tabs = QTabWidget(self)
        self.map_view = MapView(self)
        self.workspace_view = WorkspaceView(self)
        self.sweep_view = SweepView(self)
        self.pareto_view = ParetoView(self)
        self.compare_view = CompareView(self)
        self.conditions_view = ConditionsView(self)
        self.significance_view = SignificanceView(self)
        self.sizing_view = SizingView(self)
        titles = ("Map", "Workspace", "Sweep", "Pareto", "A/B", "Conditions", "Significance", "Sizing")
        for view, title in zip(self.views(), titles):
            self.tabs.addTab(view, title)
        self.sweep_view.finished.connect(self.pareto_view.set_result)
        # tool positions coloured by the metric, for a 3D view to show: (positions (N, 3), values (N,), label)
        self.workspace_view.mapped.connect(lambda r: self.workspaceMapped.emit(r.positions, r.values, r.label))

        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.hide()
        self.status_label = QLabel("Ready", self)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setMaximumWidth(260)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        job_row = QHBoxLayout()
        job_row.addWidget(self.status_label, 1)
        job_row.addWidget(self.progress)
        job_row.addWidget(self.cancel_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picker)
        layout.addLayout(ratings_row)
        self.tabs.setUsesScrollButtons(True)
        # combo boxes as wide as their longest entry made the panel wider than its column
        for combo in self.findChildren(QComboBox):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error_label)
        layout.addLayout(job_row)

    # -- the window's calls -------------------------------------------------------------
    def set_model(self, model: Manipulator) -> None:
        """Show ``model``; results computed for an earlier model stay on display, marked in their captions."""
        self.model = model
        if self.q.shape != (model.n,):
            self.q = np.zeros(model.n)
        self.picker.set_joint_count(model.n)
        drive_defaults.show(self.ratings_edits, model, RATING_UNITS)
        for view in self.views():
            view.set_model(model)

    def set_joint_values(self, q) -> None:
        """The current pose (rad, m), e.g. from the joint sliders; marked on the map."""
        q = np.asarray(q, float).ravel()
        if self.model is not None and q.shape != (self.model.n,):
            return  # a stale pose from before a change in the number of links
        self.q = q
        self.map_view.set_joint_values(q)

    def views(self):
        return (self.map_view, self.workspace_view, self.sweep_view, self.pareto_view, self.compare_view,
                self.conditions_view, self.significance_view, self.sizing_view)

    # -- inputs the views share ---------------------------------------------------------
    def metric_text(self) -> str:
        return self.picker.text()

    def require_model(self) -> Manipulator:
        if self.model is None:
            raise ExploreInputError("no model loaded")
        return self.model

    def arm(self, model: Manipulator | None = None) -> NumericArm:
        """The numeric arm of ``model`` (the current one by default); a one-line error when a symbol has
        no value."""
        model = model or self.require_model()
        try:
            return NumericArm.from_model(model)
        except MissingParameterError as exc:
            raise ExploreInputError(f"{model.name or 'model'}: {exc}") from None
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            raise ExploreInputError(f"{model.name or 'model'} has no numeric form: {exc}") from None

    def ratings(self, n: int | None = None) -> Ratings:
        n = n or self.require_model().n
        try:
            values = {what: parse_values(edit.text(), n, f"rated {what}") for what, edit in self.ratings_edits.items()}
            values = drive_defaults.fill(values, self.model)   # empty fields: the project's drive data
            return Ratings.of(n, **values)
        except (ValueError, MetricError) as exc:
            raise ExploreInputError(str(exc)) from None

    # -- jobs -----------------------------------------------------------------------------
    @property
    def job_title(self) -> str:
        return self._job_title

    @property
    def busy(self) -> bool:
        return self.worker is not None and not self.worker.done

    def run_job(self, title: str, make_job: Callable[[CancelToken], Job], on_result: Callable[[object], None],
                owner=None):
        """Start ``make_job(token)`` in the worker pool (cancelling a running job first); ``on_result``
        gets its result in the GUI thread, then ``owner`` (the view showing it) learns the model it was
        computed for (see :class:`~designer.gui.explore.base.ExploreView`). Returns the worker."""
        self.clear_error()
        model = self.model
        if self.busy:
            self.cancel()
        self._job_title = title
        worker = None
        alive = lambda: shiboken6.isValid(self) and worker is self.worker  # noqa: E731 - panel may be gone

        def finished(result):
            if not alive():
                return  # a cancelled job that finished anyway
            self._end_job(f"{title}: done")
            try:
                on_result(result)
            except (ValueError, KeyError, IndexError) as exc:
                self.show_error(f"{title}: {exc}")
            else:
                if owner is not None:
                    owner.mark_fresh(model)
            self.jobFinished.emit(title)
            self.jobEnded.emit(title, "finished")

        def failed(message, details):
            if not alive():
                return
            self._end_job(f"{title}: failed")
            self.show_error(f"{title}: {plain_message(message)}", details)
            self.jobEnded.emit(title, "failed")

        def cancelled():
            if not alive():
                return
            self._end_job(f"{title}: cancelled")
            self.jobEnded.emit(title, "cancelled")

        def progress(step):
            if alive():
                self._progress(step)
                self.jobProgress.emit(step)

        self.progress.setValue(0)
        self.status_label.setText(f"{title}: starting…")
        self.cancel_button.setEnabled(True)
        worker = start_job(make_job, progress=progress, finished=finished, failed=failed,
                           cancelled=cancelled)
        self.worker = worker
        self._running[0] = worker
        return worker

    def guarded(self, title: str, action: Callable[[], object]):
        """Run ``action`` (which builds inputs and starts a job), showing input errors in the panel."""
        try:
            return action()
        except (ExploreInputError, MetricError, MissingParameterError, ValueError, KeyError, OSError) as exc:
            self.show_error(f"{title}: {exc}")
            return None

    def cancel(self) -> None:
        if self.worker is not None and not self.worker.done:
            self.worker.cancel()
            self.status_label.setText(f"{self._job_title}: cancelling…")
        self.cancel_button.setEnabled(False)

    def _progress(self, step: Progress) -> None:
        if step.fraction is None:
            self.progress.setRange(0, 0)   # busy indicator
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * step.fraction))
        self.status_label.setText(f"{self._job_title}: {step.stage}" + (f" — {step.detail}" if step.detail else ""))

    def _end_job(self, text: str) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(1000 if text.endswith("done") else 0)
        self.status_label.setText(text)
        self.cancel_button.setEnabled(False)

    # -- messages ------------------------------------------------------------------------------
    def show_error(self, message: str, details: str = "") -> None:
        self.error_label.setText(message.splitlines()[0] if message else "error")
        self.error_label.setToolTip(details or message)
        self.error_label.show()

    def clear_error(self) -> None:
        self.error_label.clear()
        self.error_label.hide()

    def show_status(self, text: str) -> None:
        self.status_label.setText(text)
