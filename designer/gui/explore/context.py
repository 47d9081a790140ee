"""What an Explore view needs from around it, as one small object instead of calls into its parent panel.

A view reads the open model and the pose, builds a numeric arm and the joint ratings, starts its
job on the shared :class:`~designer.gui.job_runner.JobRunner`, reports errors and status, and asks
for the arm to take a pose or for a design to be loaded. :class:`ExploreContext` gives exactly
that; the Explore panel makes one for its views, and a test can make one around a fixed model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import DesignerError
from ...explore.joints import ExploreJoints, explore_arm, explore_joints
from ...explore.metrics import MetricError, Ratings
from ...jobs import CancelToken, Job
from ...kinematics import NumericArm
from ...kinematics.closure import ClosureError
from ...model import Manipulator, MissingParameterError
from ..job_runner import JobRunner

__all__ = ["ExploreContext", "ExploreInputError"]


class ExploreInputError(DesignerError):
    """A user mistake in the Explore inputs (shown as one line, never raised to Qt)."""


def _no_ratings(n: int | None) -> Ratings:
    raise ExploreInputError("no joint ratings here")


class ExploreContext:
    """The open model and pose, the job runner, messages, and the requests a view makes.

    Parameters
    ----------
    runner:
        Where the views' jobs run (one job at a time, shared by the views).
    model, pose, metric:
        Callables giving the open model (or None), the pose (rad, m) and the picked metric's text.
    ratings:
        ``ratings(n)``: the joint ratings typed in the panel (ExploreInputError naming a bad entry).
    pose_arm:
        Ask the arm (the sliders, the 3D view) to take a pose.
    load_design:
        Load a model as the open design (undoable in the window).
    """

    def __init__(self, runner: JobRunner, *, model: Callable[[], Manipulator | None],
                 pose: Callable[[], np.ndarray], metric: Callable[[], str] = lambda: "",
                 ratings: Callable[[int | None], Ratings] = _no_ratings,
                 pose_arm: Callable[[np.ndarray], None] = lambda q: None,
                 load_design: Callable[[Manipulator], None] = lambda m: None):
        self.runner = runner
        self._model, self._pose, self._metric, self._ratings = model, pose, metric, ratings
        self.pose_arm = pose_arm
        self.load_design = load_design

    # -- what the views read --------------------------------------------------------------------
    @property
    def model(self) -> Manipulator | None:
        return self._model()

    @property
    def q(self) -> np.ndarray:
        """The current pose (rad, m) of the joints the metrics number (a closed chain's actuated ones)."""
        return self._pose()

    def joints(self, model: Manipulator | None = None) -> ExploreJoints:
        """The joints the metrics number, their names and types: every joint of a serial arm, the
        actuated ones of a closed chain (named by their links: q1, q2, q4, q6 for the palletizer)."""
        return explore_joints(model or self.require_model())

    def metric_text(self) -> str:
        return self._metric()

    def require_model(self) -> Manipulator:
        model = self.model
        if model is None:
            raise ExploreInputError("no model loaded")
        return model

    def arm(self, model: Manipulator | None = None) -> NumericArm:
        """The numeric arm of ``model`` (the open one by default), a closed chain's
        :class:`~designer.numeric.actuated_arm.ActuatedArm`; a one-line error when a symbol has no value or a
        loop cannot close."""
        model = model or self.require_model()
        try:
            return explore_arm(model)
        except (MissingParameterError, ClosureError) as exc:
            raise ExploreInputError(f"{model.name or 'model'}: {exc}") from None
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            raise ExploreInputError(f"{model.name or 'model'} has no numeric form: {exc}") from None

    def ratings(self, n: int | None = None) -> Ratings:
        return self._ratings(n or self.require_model().n)

    # -- jobs --------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.runner.busy

    @property
    def job_title(self) -> str:
        return self.runner.title

    def run_job(self, title: str, make_job: Callable[[CancelToken], Job], on_result: Callable[[Any], None],
                owner=None):
        """Start ``make_job`` on the runner (replacing a running job); ``on_result`` gets its result in
        the GUI thread, then ``owner`` (the view showing it) learns the model it was computed for."""
        model = self.model

        def show(result) -> None:
            on_result(result)
            if owner is not None:
                owner.mark_fresh(model)

        return self.runner.start(title, make_job, show)

    def guarded(self, title: str, action: Callable[[], object]):
        """Run ``action`` (which reads inputs and starts a job), showing an input mistake as one line."""
        try:
            return action()
        except (ExploreInputError, MetricError, MissingParameterError, ValueError, KeyError, OSError) as exc:
            self.show_error(f"{title}: {exc}")
            return None

    # -- messages -----------------------------------------------------------------------------------
    def show_error(self, message: str, details: str = "") -> None:
        self.runner.show_error(message, details)

    def show_status(self, text: str) -> None:
        self.runner.show_status(text)
