"""The window's pose of a closed-chain project (issue 22): the actuated sliders move the arm, the
core's loop closure moves the passive joints.

:class:`LoopPose` sits between the joint sliders and the shared :class:`OpenDesign`: for a serial
arm it passes the sliders' values on; for a closed chain it closes the loops
(:class:`loop_scene.Mechanism`), shows the passive joints' values on their (disabled) sliders, and
where the loops cannot close (or the mechanism is singular) it puts the core's message over the 3D
view and keeps the last good pose, so that nothing is drawn broken.
"""

from __future__ import annotations

import numpy as np

from ..design_state import OpenDesign
from .loop_scene import ClosureError, Mechanism, mechanism_of

__all__ = ["LoopPose", "PASSIVE_TIP"]

PASSIVE_TIP = "passive joint: follows the actuated joints through the loop closure"


class LoopPose:
    """Glue of the window's sliders, 3D view and read-out to the loop closure of a closed chain."""

    def __init__(self, window):
        self.window = window
        self.mechanism: Mechanism | None = None
        self.problem = ""    # why the current model or pose cannot be drawn closed ("" when it can)

    @property
    def design(self) -> OpenDesign:
        return self.window.design

    # -- the model --------------------------------------------------------------------------------
    def model_changed(self, design: OpenDesign) -> None:
        """Rebuild the mechanism; called before the other views hear of the model."""
        mech = mechanism_of(design.model) if design.arm is not None else None
        self.problem = mech if isinstance(mech, str) else ""
        self.mechanism = mech if isinstance(mech, Mechanism) else None
        view = self.window.arm_view
        view.set_mechanism(self.mechanism)
        if self.mechanism is not None:
            q = self._close(np.asarray(self.window.sliders.values(), float), quiet=True)
            design.q = q if q is not None else self.mechanism.last

    def after_model(self, design: OpenDesign) -> None:
        """After the sliders were rebuilt: disable the passive ones, say what cannot be posed."""
        sliders = self.window.sliders
        passive = set() if self.mechanism is None else set(self.mechanism.passive.tolist())
        for i, (slider, spin) in enumerate(zip(sliders.sliders, sliders.spins)):
            slider.setEnabled(i not in passive)
            spin.setEnabled(i not in passive)
            tip = PASSIVE_TIP if i in passive else ""
            slider.setToolTip(tip)
            spin.setToolTip(tip)
        if self.mechanism is not None:
            self._show_on_sliders(design.q)
            self.window.arm_view.show_pose_problem(self.problem or None)
        elif self.problem:   # a closed chain that cannot be posed at all: no picture rather than a broken one
            self.window.arm_view.hide_arm(self.problem)

    # -- the pose ---------------------------------------------------------------------------------
    def sliders_moved(self, q) -> None:
        """The sliders' values: passed on (serial), or closed first (closed chain)."""
        if self.mechanism is None:
            self.design.set_pose(q)
            return
        closed = self._close(np.asarray(q, float), quiet=False)
        if closed is None:
            return   # the message is over the view; the design keeps its last good pose
        self._show_on_sliders(closed)
        self.design.set_pose(closed.tolist())

    def _close(self, q: np.ndarray, quiet: bool) -> np.ndarray | None:
        assert self.mechanism is not None
        try:
            closed = self.mechanism.pose(q)
        except ClosureError as exc:
            self.problem = f"This pose cannot be drawn: {exc}. Showing the last pose that closes."
            if not quiet:
                self.window.arm_view.show_pose_problem(self.problem)
            return None
        if self.problem:
            self.problem = ""
            self.window.arm_view.show_pose_problem(None)
        return closed

    def _show_on_sliders(self, q) -> None:
        """The closed pose on every slider (the passive ones follow) without a new round of signals."""
        sliders = self.window.sliders
        if len(sliders.values()) != len(q):
            return
        sliders.blockSignals(True)
        try:
            sliders.set_values(q, clamp=False)   # a passive joint past its limits shows so, in red
        finally:
            sliders.blockSignals(False)

    # -- the read-out -----------------------------------------------------------------------------
    def readout(self, design: OpenDesign) -> tuple:
        """The read-out's (arm, q, tool): the closed pose's tool; no arm (an empty read-out) for a
        closed chain that cannot be posed."""
        if self.problem and self.mechanism is None:
            return None, design.q, None
        return design.arm, design.q, self.tool(design.q)

    def tool(self, q) -> tuple[np.ndarray, np.ndarray] | None:
        """(tool pose in the world, tool Jacobian over the actuated joints) at the closed pose ``q``,
        or None for a serial arm."""
        mech = self.mechanism
        if mech is None:
            return None
        tree = mech.tree
        T = tree.frames(q)
        tool = T[mech.tool_link + 1] @ tree.arm.tool
        J = tree.point_jacobian(T, tree.joint_axes(T), tool[:3, 3], mech.tool_link) @ mech.closure.W(q)
        return tree.arm.base @ tool, J
