"""What showing a model computes before any widget changes, done off the GUI thread when a project opens or an
import ends (issue 29: opening the tube arm stopped the window for 0.4 to 0.7 s): the model read from its file,
its display arm (with its part-made links' beams) and its problems. (The Explore map's default joints are no part
of it: the Explore tab is built when first shown and asks then, 6 to 25 ms; its module would slow the start.)

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


def prepare_design(model: Manipulator) -> PreparedDesign:
    """Everything :class:`PreparedDesign` holds for ``model`` (no Qt: for a worker thread)."""
    model.free_symbols()   # kept on the model: every panel asks for its symbols when it opens
    arm, error = build_arm(model)
    prepared = PreparedDesign(model, arm, error, model_problems(model))
    _warm_readout(model)
    return prepared


def _warm_readout(model: Manipulator) -> None:
    """Build what the read-out keeps per model (the numeric dynamics its cut-joint line asks, the elastic joints,
    the links' beams) here, off the GUI thread: for the tube arm they cost the GUI thread 54 and 36 ms of its
    100 ms budget when it opened, a later pose 7 ms."""
    import numpy as np

    from ..errors import DesignerError
    from .modes import elastic_summary, joints_or_none
    from .readout import has_cut_joints
    has_cut_joints(model)
    if joints_or_none(model) is None:
        return
    try:
        elastic_summary(model, np.zeros(len(model.links)))
    except (DesignerError, ValueError, ArithmeticError):
        pass   # only a cache is warmed: the read-out's own call on the GUI thread says what is wrong
