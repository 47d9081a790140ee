"""What showing a model computes before any widget changes, done off the GUI thread when a project opens or an
import ends (issue 29: opening the tube arm stopped the window for 0.4 to 0.7 s): the model read from its file,
its display arm (with its part-made links' beams), its problems and the Explore map's default joints.

:func:`prepare_design` runs in a worker thread (:func:`~designer.gui.off_thread.off_gui_thread`); the window then
swaps the result in whole on the GUI thread (:meth:`~designer.gui.main_window.MainWindow.adopt`), each view taking
its part instead of computing it. Nothing here touches a widget.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..design_state import build_arm
from ..kinematics import NumericArm
from ..model import Manipulator
from ..model.validation import Problem
from ..numeric.checks import check_model
from .explore.map_view import default_pair
from .loop_scene import loop_problems

__all__ = ["PreparedDesign", "prepare_design", "model_problems"]


def model_problems(model: Manipulator) -> list[Problem]:
    """What the Problems panel lists for ``model``: the core's checks and a closed chain's loops (closure,
    mobility), which ``check_model`` leaves out."""
    return check_model(model) + loop_problems(model)


@dataclass(frozen=True)
class PreparedDesign:
    """A model with what the window derives from it, computed for this very model object."""

    model: Manipulator
    arm: NumericArm | None
    arm_error: str   # why there is no arm ("" when there is)
    problems: list[Problem]
    map_joints: tuple[int, int]   # the joints a new Explore map shows


def prepare_design(model: Manipulator) -> PreparedDesign:
    """Everything :class:`PreparedDesign` holds for ``model`` (no Qt: for a worker thread)."""
    arm, error = build_arm(model)
    return PreparedDesign(model, arm, error, model_problems(model), default_pair(model))
