"""Elastic joints in the window: the mode-shape animation and the tool's compliance ellipsoid.

Both read the design (model, arm, slider pose) and draw in the 3D view without owning its layout:
the animation moves the drawn arm along mode k, q + a sin(2 pi f t) v_k (the sliders and the pose
stay where they are), and the ellipsoid is one translucent solid at the tool whose semi-axes are
the translational compliance's eigenvalues (m/N) scaled so the largest is a fifth of the reach.
The frequencies and shapes come from :mod:`designer.numeric.modes`: motors locked (rigid links on the
joint springs), or free (the full elastic-joint model with the rotor inertias; the drawn arm is the link
side, the motor angles theta/N are shown as numbers over the 3D view, :mod:`designer.gui.mode_dialog`).
Every mechanism's come from the core's :func:`~designer.numeric.modes.elastic_at` (as ``modes`` has
them) over its actuated joints (all of a serial arm's; a closed chain's motors, the loops closed at the pose):
the mechanism and its joints are built once per model and kept, one pose then costs well under a millisecond
(about 0.4 ms for the palletizer), so the read-out follows the sliders on the GUI thread. A closed chain's
animation moves the actuated joints along the shape and closes the loops for the passive ones in every frame,
and stops with one line where a frame cannot close.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QMessageBox
from OpenGL import GL
from pyqtgraph import opengl as gl

from ..errors import DesignerError
from ..kinematics.closure import ClosureError
from ..numeric.elastic import ElasticJoints, ElasticModelError, elastic_joints
from ..numeric.flex_modes import FlexField
from ..numeric.modes import Modes
from ..numeric.stiffness import compliance_axes
from . import arm_scene as scene
from .gl_solids import HIDDEN, Solids
from .loop_scene import tree_reach
from .mode_dialog import MOTORS, choose_mode

if TYPE_CHECKING:
    from ..numeric.modes import ElasticPose

__all__ = ["ModeAnimation", "StiffnessEllipsoid", "elastic_problem", "elastic_summary", "joints_or_none", "build_menu",
           "modes_at", "elastic_pose", "elastic_lines", "per_model", "NO_STIFFNESS", "MOTORS"]

NO_STIFFNESS = "no elastic joints: give a drive's stiffness (Edit the drive data) to see the modes"

#: the animation's largest joint excursion (rad or m): visible, and small enough to stay linear
AMPLITUDE = 0.15
#: shown at this slow-motion frequency whatever the mode's own (20 to 200 Hz could not be seen)
SHOWN_HZ = 1.0
FRAME_MS = 33
ELLIPSOID_COLOR = (0.95, 0.35, 0.10, 0.35)
#: with the links' bending, the largest centre-line excursion drawn, as a share of the arm's reach
BEND = 0.12
BENT_COLOR = (0.85, 0.10, 0.55, 1.0)


def per_model(build):
    """``build(model)`` of the last model asked for, kept (one model at a time: the read-out asks at every slider
    step); where the mechanism cannot be built, the message of what it raised (a str)."""
    last: list = [None, None]

    def get(model):
        if last[0] is not model:
            try:
                value = build(model)
            except (DesignerError, ValueError, TypeError, ZeroDivisionError) as exc:
                value = str(exc)
            last[0], last[1] = model, value
        return last[1]
    return get


def unvalued_gravity(model) -> tuple[str, ...]:
    """The gravity's symbols without a value: the drawn arm takes them as 0 (kinematics.display_arm), and so do the
    frequencies, which do not depend on them; the sag does, and says so."""
    names = {s.name for e in model.gravity for s in getattr(e, "free_symbols", ())}
    return tuple(sorted(names & set(model.unvalued_symbols())))


def _setup(model):
    # the explore package here, for an arm with elastic joints: 100 ms of the window's start (issue 29)
    from ..explore.metrics import elastic_setup
    return elastic_setup(model, overrides={name: 0.0 for name in unvalued_gravity(model)})


#: (the metrics' arm, ElasticJoints) of a model, or the message
_built = per_model(_setup)


def joints_or_none(model) -> ElasticJoints | None:
    """The model's elastic joints (its actuated joints' gearboxes), None when it has none (or its drive data
    cannot make them)."""
    if model is None:
        return None
    try:
        joints = elastic_joints(model)
    except ElasticModelError:
        return None
    return joints if joints.m else None


def elastic_problem(model) -> str:
    """Why a model whose drives give a stiffness has no elastic joints, in one line ("drive data: no value for
    parameter(s): k2"); '' when it has them or no drive gives a stiffness."""
    if model is None or not any(link.drive is not None and link.drive.stiffness is not None for link in model.links):
        return ""
    try:
        elastic_joints(model)
    except ElasticModelError as exc:
        return str(exc)
    return ""


def elastic_pose(model, q_tree) -> ElasticPose | str:
    """The elastic quantities at the tree pose ``q_tree``'s actuated values, or a one-line message (no stiffness,
    a passive joint given one, a mechanism that cannot be built, a pose where the loops cannot close)."""
    from ..explore.joints import explore_joints
    from ..numeric.modes import elastic_at
    built = _built(model)
    if isinstance(built, str):
        return built
    arm, joints = built
    if not joints.m:
        return NO_STIFFNESS
    q = np.asarray(q_tree, dtype=float).ravel()
    if len(q) != model.n:
        return f"{len(q)} joint values for a mechanism of {model.n} joints"
    try:
        return elastic_at(arm, joints, q[list(explore_joints(model).index)])
    except DesignerError as exc:
        return str(exc)


def elastic_lines(low: float, droop_mm: float, rigid: float | None = None) -> str:
    """The read-out's elastic lines (each short enough for the centre column at 1366 px; the read-out's
    tooltip says the motors are locked): the lowest natural frequency, with links that bend the frequency with
    rigid links on a line of its own, then the sag."""
    rigid_line = "" if rigid is None else f"{rigid:.3g} Hz with rigid links\n"
    return f"lowest natural frequency {low:.3g} Hz\n{rigid_line}tool sag {droop_mm:.3g} mm"


def elastic_summary(model, q_tree) -> str:
    """The read-out's words: the lowest natural frequency and the tool's sag at the pose, motors locked (with
    part-made links: their bending first, then the rigid links' figure), two or three lines, or why not, in one."""
    at = elastic_pose(model, q_tree)
    if isinstance(at, str):
        return f"elastic joints: {at}\n"
    f = at.locked(shapes=False).frequency
    low = f[0] if len(f) and np.isfinite(f[0]) else math.nan
    droop = 1e3 * float(np.linalg.norm(at.sag()))
    links = at.frequency_links()
    text = elastic_lines(low, droop) if links is None else elastic_lines(links, droop, rigid=low)
    unknown = unvalued_gravity(model)
    if unknown:   # the sag needs the gravity: the frequencies stand, the sag says what it lacks
        text = text.replace(f"tool sag {droop:.3g} mm", f"tool sag: no value for {', '.join(unknown)}")
    return text


def modes_at(design, motors: str = "locked") -> Modes | FlexField | str:
    """The modes at the design's slider pose over the actuated joints (a closed chain's loops closed), or a
    one-line message saying why there are none; ``motors`` "bending": with the links' bending, motors locked, and
    what each mode does to the links' centre lines."""
    if design.arm is None:
        return NO_STIFFNESS
    at = elastic_pose(design.model, design.q)
    if isinstance(at, str):
        return at
    if motors == "locked":
        return at.locked()
    if motors == "bending":
        field = at.bending()
        return "no link is made as a part (a section and a material): no link bends" if field is None else field
    try:
        return at.free()
    except ValueError as exc:   # a rotor inertia missing
        return str(exc)


def bends(design) -> bool:
    """Whether the design's links bend (links made as parts), the read-out's frequency then being the model's with
    their bending: the mode dialog offers that model, and starts on it."""
    return design.arm is not None and bool(getattr(design.arm, "beams", ()))


class ModeAnimation(QObject):
    """Moves the 3D view's arm along mode k of the slider pose until stopped."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._frame)
        self.q0 = np.zeros(0)
        self.shape = np.zeros(0)        # the link side's excursion per unit of sin (rad or m)
        self.motor_shape = np.zeros(0)  # free motors: theta/N of the elastic joints, the same scale
        self.motor_joints: list[int] = []
        #: a closed chain: the tree's actuated joints (0-based) the shape moves, the passive ones closed each frame
        self.actuated: np.ndarray | None = None
        self.joint_numbers: list[int] = []   # the shape's joints by link number (1-based)
        self.pose = np.zeros(0)              # the tree pose drawn last
        self.problem = ""                    # why the animation stopped by itself ("" when it did not)
        self.frequency = math.nan
        self.motors = "locked"
        self.k = 0
        self._start = 0.0
        self.label = QLabel(window.arm_view)   # the mode, its frequency and the angles now, over the 3D view
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.label.setWordWrap(True)
        self.label.setStyleSheet("QLabel { background: rgba(255, 255, 255, 215); color: #222222; padding: 4px; }")
        self.label.hide()
        # with the links' bending: their centre lines, bent along the mode (frame 0 points, base-placed when drawn)
        self.bent = gl.GLLinePlotItem(mode="lines", width=5.0, antialias=True, color=BENT_COLOR)
        self.bent.setVisible(False)
        # drawn over the tubes (they stay straight meshes): no depth test
        self.bent.setGLOptions({GL.GL_DEPTH_TEST: False, GL.GL_BLEND: True, GL.GL_CULL_FACE: False,
                                "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)})
        self.bent.setDepthValue(10)   # drawn after the arm's solids
        window.arm_view.view.addItem(self.bent)
        self.line_points = np.zeros((0, 3))   # (P, 3) the centre lines' points at the pose, world
        self.line_moves = np.zeros((0, 3))    # (P, 3) their excursion per unit of sin, world (m)
        self.line_pairs = np.zeros(0, int)    # indices into the points, two by two: the drawn segments
        self.bend_mm = 0.0                    # the largest centre-line excursion drawn (mm)
        self.started = False                  # a mode was animated: the dialog starts on that model

    @property
    def running(self) -> bool:
        return self.timer.isActive()

    def start(self, k: int, motors: str = "locked") -> str:
        """Animate mode k (1 = lowest) of the model with ``motors`` "locked" or "free"; returns '' or what
        stopped it (a one-line message)."""
        design = self.window.design
        modes = modes_at(design, motors)
        if isinstance(modes, str):
            return modes
        if not 1 <= k <= len(modes.frequency):
            return f"mode {k}: the arm has modes 1 to {len(modes.frequency)} ({MOTORS[motors]})"
        mech = self.window.closed.mechanism   # a closed chain's loop closure (None: every joint is a coordinate)
        if mech is None and self.window.closed.problem:
            return self.window.closed.problem
        actuated = None if mech is None else np.asarray(mech.actuated, dtype=int)
        n = design.arm.n if actuated is None else len(actuated)
        self.stop()
        if isinstance(modes, FlexField):   # the links bend: the largest centre-line point moves BEND of the reach
            reach = tree_reach(mech.tree) if mech else scene.arm_reach(design.arm)
            scale = BEND * reach
            v = modes.joint_shape[:, k - 1]
            self._bent_lines(modes, k, scale, design.arm.base)
        else:
            v = modes.shape[:, k - 1]
            # the link side moves AMPLITUDE at its largest joint: a free mode's motors may swing much more than
            # their links (a rotor's N^2 Jm against the arm's inertia), and the drawn arm is what is watched
            link = float(np.abs(v[:n]).max())
            scale = AMPLITUDE / (link if link > 1e-3 * float(np.abs(v).max()) else float(np.abs(v).max()))
            self.line_pairs = np.zeros(0, int)
        self.q0, self.shape, self.motor_shape = np.asarray(design.q, dtype=float).copy(), scale * v[:n], scale * v[n:]
        joints = joints_or_none(design.model)
        self.actuated = actuated
        self.joint_numbers = list(range(1, n + 1)) if actuated is None else [int(i) + 1 for i in actuated]
        self.motor_joints = ([self.joint_numbers[int(i)] for i in joints.elastic]
                             if motors == "free" and joints is not None else [])
        self.pose, self.problem = self.q0.copy(), ""
        self.frequency, self.motors, self.k = float(modes.frequency[k - 1]), motors, k
        self.started = True
        self._start = time.monotonic()
        self.timer.start()
        self._frame()
        if self.problem:   # the first frame could not close
            return self.problem
        self.label.show()
        return ""

    def _bent_lines(self, field: FlexField, k: int, scale: float, base: np.ndarray) -> None:
        """The centre lines of mode k, ``scale`` metres at the largest point, placed by the arm's base."""
        R, p = base[:3, :3], base[:3, 3]
        self.line_points = field.points @ R.T + p
        self.line_moves = scale * field.displacement[:, :, k - 1] @ R.T
        self.line_pairs = np.concatenate([np.repeat(np.arange(a, b), 2)[1:-1]
                                          for a, b in zip(field.slices[:-1], field.slices[1:])] or [np.zeros(0, int)])
        self.bend_mm = 1e3 * scale

    def stop(self) -> None:
        self.label.hide()
        self.bent.setVisible(False)
        if self.timer.isActive():
            self.timer.stop()
            self.window.arm_view.set_joint_values(self.window.design.q)

    def _frame(self) -> None:
        if self.window.design.arm is None or len(self.q0) != self.window.design.arm.n:
            return self.stop()
        phase = math.sin(2 * math.pi * SHOWN_HZ * (time.monotonic() - self._start))
        if self.actuated is None:
            self.pose = self.q0 + phase * self.shape
        else:   # a closed chain: the actuated joints along the shape, the loops closed for the passive ones
            mech = self.window.closed.mechanism
            try:
                if mech is None:
                    raise ClosureError("the mechanism cannot be posed")
                self.pose = mech.closure.solve(self.q0[self.actuated] + phase * self.shape, guess=self.pose)
            except ClosureError as exc:
                self.problem = f"mode {self.k}: stopped, a pose along the mode cannot close: {exc}"
                self.window.statusBar().showMessage(self.problem, 15000)
                return self.stop()
        self.window.arm_view.set_joint_values(self.pose)
        if len(self.line_pairs):
            self.bent.setData(pos=(self.line_points + phase * self.line_moves)[self.line_pairs])
            self.bent.setVisible(True)
        self.label.setText(self.text(phase))
        self.label.setMaximumWidth(max(self.window.arm_view.width() - 16, 120))   # wraps in a narrow view
        self.label.adjustSize()
        self.label.move(8, self.window.arm_view.toolbar.height() + 8)

    def text(self, phase: float) -> str:
        """The overlay's words at ``phase`` (sin of the slowed-down time): the mode, and the excursions from the
        pose now, link side and (free motors) motor side theta/N, in degrees (mm for a prismatic joint)."""
        revolute = [link.is_revolute for link in self.window.design.model.links]
        names = self.joint_numbers or list(range(1, len(self.shape) + 1))

        def angle(value: float, joint: int) -> str:
            if revolute[joint - 1]:
                return f"{round(math.degrees(value), 2) + 0.0:+.2f}°"   # + 0.0: no "-0.00"
            return f"{round(1e3 * value, 1) + 0.0:+.1f} mm"
        model = "links bending, motors locked" if self.motors == "bending" else f"motors {self.motors}"
        lines = [f"mode {self.k}: {self.frequency:.4g} Hz, {model}; slowed to {SHOWN_HZ:g} Hz",
                 "links  " + "  ".join(f"q{j} {angle(phase * a, j)}" for j, a in zip(names, self.shape))]
        if len(self.line_pairs):
            lines.append(f"centre lines: {phase * self.bend_mm:+.0f} mm at the largest (exaggerated)")
        if self.motor_joints:
            lines.append("motors " + "  ".join(f"θ{j}/N {angle(phase * a, j)}"
                                              for j, a in zip(self.motor_joints, self.motor_shape)))
        return "\n".join(lines)


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

    def update(self, model, arm, q) -> str:
        """Draw the ellipsoid at pose ``q`` when shown; why there is none to draw (one line), '' when drawn."""
        shown = self.visible and model is not None and arm is not None and len(q) == arm.n
        placed = self._placed(model, arm, q) if shown else "the arm cannot be posed"
        self.item.place(np.array([HIDDEN]) if isinstance(placed, str) else placed[None])
        return placed if isinstance(placed, str) else ""

    def _placed(self, model, arm, q) -> np.ndarray | str:
        """(4, 4) the unit sphere's placement at the tool, or why there is no ellipsoid to draw."""
        at = elastic_pose(model, q)   # J K^-1 J^T over the actuated gearboxes (the core's, as `modes`), + the links'
        if isinstance(at, str):
            return (elastic_problem(model) or at) if joints_or_none(model) is None else at
        mech = self.view.mechanism   # the drawn arm's length scale, as the 3D view takes it (a crank counts once)
        reach = tree_reach(mech.tree) if mech else scene.arm_reach(arm)
        C, base = at.compliance() + at.links_compliance(), arm.base
        tool = (base @ np.append(at.tool, 1.0))[:3]   # in the world, like the drawn arm
        semi, axes = compliance_axes(C)
        self.semi_axes = semi
        scale = 0.2 * reach / max(float(semi.max()), 1e-300)
        M = np.eye(4)
        M[:3, :3] = base[:3, :3] @ axes @ np.diag(np.maximum(semi * scale, 1e-6 * reach))
        M[:3, 3] = tool
        return M


def build_menu(window, menu) -> None:
    """Arm menu: animate a mode, stop; a checkable Show action for the ellipsoid. Keeps its objects
    on the window (``mode_animation``, ``stiffness_ellipsoid``) and follows the design's pose."""
    window.mode_animation = ModeAnimation(window)
    window.stiffness_ellipsoid = StiffnessEllipsoid(window.arm_view)
    design = window.design
    design.observe(model=lambda d: window.mode_animation.stop(),
                   pose=lambda d: window.stiffness_ellipsoid.update(d.model, d.arm, d.q))

    def animate():
        bending = bends(design)
        # the model animated last; at first the read-out's (with the links' bending where they bend). A model the
        # dialog does not offer (bending, then an arm of rigid links) starts it on its first, motors locked
        anim = window.mode_animation
        first = "bending" if bending else "locked"
        chosen = choose_mode(window, lambda motors: modes_at(design, motors), anim.motors if anim.started else first,
                             bending)
        if chosen is None:
            return
        k, motors = chosen
        problem = window.mode_animation.start(k, motors)
        if problem:
            QMessageBox.information(window, "Animate a mode", problem)
        else:
            window.statusBar().showMessage(f"mode {k} ({MOTORS[motors]}): {window.mode_animation.frequency:.4g} Hz, "
                                           f"shown slowed down to {SHOWN_HZ:g} Hz", 8000)

    def show_ellipsoid(on: bool):
        window.stiffness_ellipsoid.set_visible(on)
        problem = window.stiffness_ellipsoid.update(design.model, design.arm, design.q)
        if on and problem:   # switched on and nothing drawn: say why (it did nothing, issue 29 item 13)
            window.statusBar().showMessage(f"No tool compliance ellipsoid: {problem}", 15000)

    menu.addSeparator()
    window._action(menu, "Animate &mode shape…", animate, tip="the arm oscillates along mode k, motors locked or free")
    window._action(menu, "S&top mode animation", window.mode_animation.stop)
    action = window._action(menu, "Show tool compliance &ellipsoid", lambda: None,
                            tip="the tool's translational compliance J K^-1 J^T (elastic joints)")
    action.setCheckable(True)
    action.toggled.connect(show_ellipsoid)
    window.arm_view.toolbar.show_menu.addAction(action)   # the 3D view's Show menu too
    window.stiffness_ellipsoid_action = action
