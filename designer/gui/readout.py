"""A line under the joint sliders: where the tool is at the current pose, how well conditioned the
Jacobian is there, and a warning near a singularity."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtWidgets import QWidget

from ..kinematics import NumericArm
from . import arm_scene as scene
from .cells import reading
from .message_line import MessageLine

__all__ = ["KinematicsReadout", "jacobian_condition", "NEAR_SINGULAR"]

NEAR_SINGULAR = 100.0   # condition numbers above this are called "near a singularity"


def jacobian_condition(arm: NumericArm, q, J: np.ndarray | None = None) -> float:
    """Condition number (largest / smallest singular value) of the tool Jacobian at ``q``.

    Arms of six or more joints use all six rows, the rotation rows scaled by the arm's reach so that
    both halves are lengths; shorter arms use the three position rows. inf at a singularity.
    """
    J = arm.tool_jacobian(q) if J is None else J   # a closed chain's: over its actuated joints
    if J.shape[1] >= 6:
        J = np.vstack([J[:3], scene.arm_reach(arm) * J[3:]])
    else:
        J = J[:3]
    s = np.linalg.svd(J, compute_uv=False)[:min(J.shape)]
    return float(s[0] / s[-1]) if s[-1] > 1e-12 * max(s[0], 1e-300) else float("inf")


TIP = ("Condition number of the tool Jacobian (rotation rows scaled by the arm's reach for six or more joints); "
       f"above {NEAR_SINGULAR:g} the pose is called near a singularity: some tool motions need very large joint "
       "speeds there.\nWith elastic joints: the lowest natural frequency and the tool's sag under gravity at this "
       "pose, the motors locked (the drives' stiffness as springs); with links made as parts, the frequency with "
       "their bending first and the rigid links' figure beside the sag")


class KinematicsReadout(MessageLine):
    """``update_pose(arm, q)`` shows the tool position and z axis in the world (first line) and the
    Jacobian's condition number (second line); a closed chain's cut-joint forces on a line of their own,
    and with elastic joints the lowest natural frequency and the tool's sag on two more.

    A number of lines fixed per model, each elided to the width (a :class:`MessageLine`): new text every
    slider step must not re-lay out the window (the 3D view beside it would be resized and redrawn), and
    a word-wrapped warning took three lines of a two-line box at 1366 x 768, clipped top and bottom (the
    elastic words on the second line were cut at 1366 and 1920 px, issue 29 item 7).
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__("", parent, rows=2, tip=TIP)
        self.condition = float("nan")
        self.near_singular = False
        self.joints: Any = None   # the model's elastic joints (designer.numeric.elastic), None without
        self.elastic_problem = ""   # why a model whose drives give a stiffness has none
        self.model: Any = None

    def set_model(self, model) -> None:
        """Follow the model's elastic joints: with them the read-out adds the lowest natural frequency."""
        from .modes import elastic_problem, joints_or_none
        self.model, self.joints = model, joints_or_none(model)
        # a stiffness given that makes no elastic joints (a name without its value): why, on a line of its own
        self.elastic_problem = "" if self.joints is not None else elastic_problem(model)
        rows = 2 + (model is not None and not model.is_serial) + 2 * (self.joints is not None) \
            + bool(self.elastic_problem)
        if rows != self.rows:
            self.rows = rows
            self._fix_height()

    def update_pose(self, arm: NumericArm | None, q, tool=None) -> None:
        """``tool``: (tool pose in the world, tool Jacobian) where not the serial arm's (a closed chain)."""
        q = np.asarray(q, float).ravel()
        if arm is None or len(q) != arm.n:
            self.setText("")
            return
        pose = arm.tool_pose(q) if tool is None else tool[0]   # in the world, like the 3D view
        p, z = pose[:3, 3], pose[:3, 2]
        self.condition = jacobian_condition(arm, q, None if tool is None else tool[1])
        self.near_singular = not self.condition < NEAR_SINGULAR
        cond = "∞" if np.isinf(self.condition) else f"{self.condition:.3g}"
        # short enough for the centre column at 1366 px: tool point, then its z axis
        axis = ", ".join(f"{round(v, 3) + 0.0:.3f}" for v in z)   # + 0.0: no "-0.000"
        lines = [f"tool ({reading(p[0])}, {reading(p[1])}, {reading(p[2])}) m, z ({axis})",
                 f"Jacobian condition {cond}" + (" — near a singularity" if self.near_singular else "")]
        closed = self.model is not None and not self.model.is_serial
        if closed:
            from .closed_holding import holding_summary   # what the loops' bearings carry holding the pose
            lines.append(holding_summary(self.model, q) if tool is not None else "")
        if self.joints is not None and not closed:
            from .modes import elastic_summary
            lines.extend(elastic_summary(arm, self.joints, q).split("\n"))
        elif self.joints is not None:
            from .closed_elastic import closed_summary   # the actuated joints' gearboxes, the loops closed
            lines.extend(closed_summary(self.model, q).split("\n"))
        if self.elastic_problem:
            lines.append(f"no natural frequency: {self.elastic_problem}")
        text = "\n".join(lines)
        style = "QLabel { color: #8a2a00; font-weight: bold; }" if self.near_singular else ""
        if style != self.styleSheet():
            self.setStyleSheet(style)
        self.setText(text)
