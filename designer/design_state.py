"""The design open in a window, without Qt: the model, the current pose, and the numeric arm built
once per model for everything that draws or plots at that pose.

Views observe it (:meth:`OpenDesign.observe`) instead of each building its own
:class:`~designer.kinematics.NumericArm` and catching the same errors:

    >>> design = OpenDesign(model)
    >>> design.observe(model=lambda d: view.set_model(d.model, d.arm), pose=lambda d: view.set_pose(d.q))
    >>> design.set_pose([0.1, 0.2])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .kinematics import NumericArm, display_arm
from .model import Manipulator

__all__ = ["OpenDesign", "Listener", "build_arm"]

Listener = Callable[["OpenDesign"], None]


def build_arm(model: Manipulator) -> tuple[NumericArm | None, str]:
    """``model``'s display arm, or None and why it cannot be built."""
    try:
        return display_arm(model), ""
    except (ValueError, TypeError, ZeroDivisionError) as exc:   # MissingParameterError is a ValueError
        return None, str(exc)


class OpenDesign:
    """The open model, its pose (rad, m) and its arm at the default parameter values.

    Attributes
    ----------
    model:
        The model on display.
    q:
        The current joint values, shape (n,).
    arm:
        The model's numeric arm, or None when it cannot be built; ``arm_error`` then says why.
    arm_builds:
        How many arms were built (one per distinct model set).
    """

    def __init__(self, model: Manipulator):
        self._model_listeners: list[Listener] = []
        self._pose_listeners: list[Listener] = []
        self.arm_builds = 0
        self._ready: tuple = (None, None, "")   # (model, arm, error) built elsewhere, e.g. off the GUI thread
        self.model = model
        self.q = np.zeros(model.n)
        self.arm, self.arm_error = self._build(model)

    def _build(self, model: Manipulator) -> tuple[NumericArm | None, str]:
        ready, self._ready = self._ready, (None, None, "")
        if ready[0] is model:
            return ready[1], ready[2]
        self.arm_builds += 1
        return build_arm(model)

    def adopt(self, model: Manipulator, arm: NumericArm | None, error: str = "") -> None:
        """``arm`` (or ``error``: why there is none) is :func:`build_arm` of ``model``, built elsewhere (off the
        GUI thread): the next :meth:`set_model` with this very model takes it instead of building it."""
        self._ready = (model, arm, error)

    def observe(self, model: Listener | None = None, pose: Listener | None = None) -> None:
        """Call ``model(design)`` after each model change, ``pose(design)`` after each pose change."""
        if model is not None:
            self._model_listeners.append(model)
        if pose is not None:
            self._pose_listeners.append(pose)

    def set_model(self, model: Manipulator) -> None:
        """Show ``model``: the arm is rebuilt when the model differs; the pose is kept when n is unchanged
        (zeros otherwise). Model observers are told first, then pose observers."""
        if model != self.model:
            self.arm, self.arm_error = self._build(model)
        self.model = model
        if self.q.shape != (model.n,):
            self.q = np.zeros(model.n)
        for listener in list(self._model_listeners):
            listener(self)
        self._tell_pose()

    def set_pose(self, q: Sequence[float]) -> None:
        """Move to ``q`` (one value per joint, SI) and tell the pose observers."""
        values = np.asarray(q, float).ravel()
        if values.shape != (self.model.n,):
            raise ValueError(f"the pose needs {self.model.n} joint values, got {values.size}")
        self.q = values
        self._tell_pose()

    def _tell_pose(self) -> None:
        for listener in list(self._pose_listeners):
            listener(self)
