"""Elastic joints in the window: the mode-shape animation and the tool's compliance ellipsoid.

Both read the design (model, arm, slider pose) and draw in the 3D view without owning its layout:
the animation moves the drawn arm along mode k, q + a sin(2 pi f t) v_k (the sliders and the pose
stay where they are), and the ellipsoid is one translucent solid at the tool whose semi-axes are
the translational compliance's eigenvalues (m/N) scaled so the largest is a fifth of the reach.
The frequencies and shapes come from :mod:`designer.numeric.modes` (motors locked).
"""

from __future__ import annotations

import math
import time

import numpy as np
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QInputDialog, QMessageBox

from ..numeric.elastic import ElasticJoints, ElasticModelError, elastic_joints
from ..numeric.engine import arm_dynamics
from ..numeric.flex_modes import lowest_flex_frequency
from ..numeric.modes import locked_modes
from ..numeric.stiffness import compliance_axes, sag, tool_compliance
from . import arm_scene as scene
from .gl_solids import HIDDEN, Solids

__all__ = ["ModeAnimation", "StiffnessEllipsoid", "elastic_summary", "joints_or_none", "build_menu"]

#: the animation's largest joint excursion (rad or m): visible, and small enough to stay linear
AMPLITUDE = 0.15
#: shown at this slow-motion frequency whatever the mode's own (20 to 200 Hz could not be seen)
SHOWN_HZ = 1.0
FRAME_MS = 33
ELLIPSOID_COLOR = (0.95, 0.35, 0.10, 0.35)


def joints_or_none(model) -> ElasticJoints | None:
    """The model's elastic joints, None when it has none (or its drive data cannot make them)."""
    if model is None:
        return None
    try:
        joints = elastic_joints(model)
    except ElasticModelError:
        return None
    return joints if joints.m else None


def elastic_summary(arm, joints: ElasticJoints | None, q) -> str:
    """The read-out's words for an arm with elastic joints: lowest frequency and sag at q; '' without."""
    if arm is None or joints is None:
        return ""
    q = np.asarray(q, dtype=float)
    f = locked_modes(arm_dynamics(arm).M(q), joints, shapes=False).frequency
    low = f[0] if len(f) and np.isfinite(f[0]) else math.nan
    droop = 1e3 * float(np.linalg.norm(sag(arm, joints, q)))
    if getattr(arm, "beams", ()):   # part-made links: their bending first, the line is elided on the right
        bending = float(lowest_flex_frequency(arm, joints, q))
        return (f"lowest natural frequency {bending:.3g} Hz ({low:.3g} Hz with rigid links; motors locked), "
                f"tool sag {droop:.3g} mm")
    return f"lowest natural frequency {low:.3g} Hz (motors locked), tool sag {droop:.3g} mm"


class ModeAnimation(QObject):
    """Moves the 3D view's arm along mode k of the slider pose until stopped."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._frame)
        self.q0 = np.zeros(0)
        self.shape = np.zeros(0)
        self.frequency = math.nan
        self._start = 0.0

    @property
    def running(self) -> bool:
        return self.timer.isActive()

    def start(self, k: int) -> str:
        """Animate mode k (1 = lowest); returns '' or what stopped it (a one-line message)."""
        design = self.window.design
        if not design.model.is_serial:   # locked_modes takes the serial arm's M
            return "the modes of a closed chain are not in the window yet (they need its M in the actuated joints)"
        joints = joints_or_none(design.model)
        if design.arm is None or joints is None:
            return "no elastic joints: give a drive's stiffness (Edit the drive data) to see the modes"
        q = np.asarray(design.q, dtype=float)
        modes = locked_modes(arm_dynamics(design.arm).M(q), joints)
        if not 1 <= k <= len(modes.frequency):
            return f"mode {k}: the arm has modes 1 to {len(modes.frequency)}"
        self.q0, self.shape = q.copy(), modes.shape[:, k - 1]
        self.frequency = float(modes.frequency[k - 1])
        self._start = time.monotonic()
        self.timer.start()
        return ""

    def stop(self) -> None:
        if self.timer.isActive():
            self.timer.stop()
            self.window.arm_view.set_joint_values(self.window.design.q)

    def _frame(self) -> None:
        if self.window.design.arm is None or len(self.q0) != self.window.design.arm.n:
            return self.stop()
        phase = math.sin(2 * math.pi * SHOWN_HZ * (time.monotonic() - self._start))
        self.window.arm_view.set_joint_values(self.q0 + AMPLITUDE * phase * self.shape)


class StiffnessEllipsoid:
    """The tool's translational compliance ellipsoid in the 3D view, following the slider pose."""

    def __init__(self, arm_view):
        self.view = arm_view
        self.item = Solids(translucent=True)
        self.item.set_parts([scene.sphere_mesh(10, 16)], [ELLIPSOID_COLOR])
        self.item.setVisible(False)
        arm_view.view.addItem(self.item)
        self.visible = False
        self.semi_axes = np.zeros(3)

    def set_visible(self, on: bool) -> None:
        self.visible = bool(on)
        self.item.setVisible(self.visible)

    def update(self, model, arm, q) -> None:
        joints = None if model is None or not model.is_serial else joints_or_none(model)   # serial compliance only
        if not self.visible or arm is None or joints is None or len(q) != arm.n:
            self.item.place(np.array([HIDDEN]))
            return
        q = np.asarray(q, dtype=float)
        semi, axes = compliance_axes(tool_compliance(arm, joints, q))
        self.semi_axes = semi
        scale = 0.2 * scene.arm_reach(arm) / max(float(semi.max()), 1e-300)
        tool = arm.tool_pose(q)   # in the world, like the drawn arm
        M = np.eye(4)
        M[:3, :3] = arm.base[:3, :3] @ axes @ np.diag(np.maximum(semi * scale, 1e-6 * scene.arm_reach(arm)))
        M[:3, 3] = tool[:3, 3]
        self.item.place(M[None])


def build_menu(window, menu) -> None:
    """Arm menu: animate a mode, stop; a checkable Show action for the ellipsoid. Keeps its objects
    on the window (``mode_animation``, ``stiffness_ellipsoid``) and follows the design's pose."""
    window.mode_animation = ModeAnimation(window)
    window.stiffness_ellipsoid = StiffnessEllipsoid(window.arm_view)
    design = window.design
    design.observe(model=lambda d: window.mode_animation.stop(),
                   pose=lambda d: window.stiffness_ellipsoid.update(d.model, d.arm, d.q))

    def animate():
        k, ok = QInputDialog.getInt(window, "Animate a mode", "Mode (1 = lowest natural frequency):", 1, 1, 99)
        if ok:
            problem = window.mode_animation.start(k)
            if problem:
                QMessageBox.information(window, "Animate a mode", problem)
            else:
                window.statusBar().showMessage(
                    f"mode {k}: {window.mode_animation.frequency:.4g} Hz, shown slowed down to {SHOWN_HZ:g} Hz", 8000)

    def show_ellipsoid(on: bool):
        window.stiffness_ellipsoid.set_visible(on)
        window.stiffness_ellipsoid.update(design.model, design.arm, design.q)

    menu.addSeparator()
    window._action(menu, "Animate &mode shape…", animate, tip="the arm oscillates along mode k (motors locked)")
    window._action(menu, "S&top mode animation", window.mode_animation.stop)
    action = window._action(menu, "Show tool compliance &ellipsoid", lambda: None,
                            tip="the tool's translational compliance J K^-1 J^T (elastic joints)")
    action.setCheckable(True)
    action.toggled.connect(show_ellipsoid)
    window.arm_view.toolbar.show_menu.addAction(action)   # the 3D view's Show menu too
    window.stiffness_ellipsoid_action = action
