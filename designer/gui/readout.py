"""A line under the joint sliders: where the tool is at the current pose, how well conditioned the
Jacobian is there, and a warning near a singularity."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtWidgets import QWidget

from ..errors import DesignerError
from ..kinematics import NumericArm
from ..numeric.mechanism import load_dynamics
from . import arm_scene as scene
from .modes import per_model
from .cells import reading
from .message_line import MessageLine

__all__ = ["KinematicsReadout", "jacobian_condition", "holding_summary", "has_cut_joints", "NEAR_SINGULAR"]

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


#: the model's numeric dynamics, kept per model, or the message where it cannot be built (the Problems panel and
#: the 3D view already say why)
_dynamics = per_model(lambda model: load_dynamics(model, springs=False))   # the loops' bearings: the rigid link side


def has_cut_joints(model) -> bool:
    """Whether the mechanism has passive joints its loops close (whose cut joints carry a load)."""
    dyn = None if model is None else _dynamics(model)
    return dyn is not None and not isinstance(dyn, str) and dyn.n_tree > dyn.n


def holding_summary(model, q_tree) -> str:
    """"cut joint holds 3,530 N" (one loop) or "cut joints hold 327, 80.5 N": what each loop's bearing carries
    while the actuated joints hold the tree pose ``q_tree`` against gravity (the core's cut forces at rest, as the
    design report gives them; the tests hold them to Pinocchio's constraint forces); "" without loops, where the
    mechanism cannot be built or the pose does not close."""
    dyn = _dynamics(model)
    q = np.asarray(q_tree, dtype=float).ravel()
    if isinstance(dyn, str) or len(q) != dyn.n_tree:
        return ""
    rest = np.zeros(dyn.n)
    try:
        force = dyn.following(q).cut_forces(q[list(dyn.actuated)], rest, rest).force
    except DesignerError:
        return ""
    sizes = np.linalg.norm(force, axis=1)
    if not len(sizes) or not np.isfinite(sizes).all():
        return ""
    if len(sizes) == 1:
        return f"cut joint holds {_newtons(sizes[0])} N"
    return "cut joints hold " + ", ".join(_newtons(v) for v in sizes) + " N"


def _newtons(value: float) -> str:
    """3,530 rather than 3.53e+03: a bearing's load read at a glance."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


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
        # the elastic lines: frequency, sag, and with links made as parts the rigid links' frequency
        elastic = 2 + any(link.part is not None for link in model.links) if self.joints is not None else 0
        rows = 2 + has_cut_joints(model) + elastic + bool(self.elastic_problem)
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
        if has_cut_joints(self.model):   # what the loops' bearings carry holding the pose
            lines.append(holding_summary(self.model, q) if tool is not None else "")
        if self.joints is not None:
            from .modes import elastic_summary   # the actuated joints' gearboxes (a closed chain's loops closed)
            lines.extend(elastic_summary(self.model, q).split("\n"))
        if self.elastic_problem:
            lines.append(f"no natural frequency: {self.elastic_problem}")
        text = "\n".join(lines)
        style = "QLabel { color: #8a2a00; }" if self.near_singular else ""   # not bold: the tool line would be cut
        if style != self.styleSheet():
            self.setStyleSheet(style)
        self.setText(text)
