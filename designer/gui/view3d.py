"""The live 3D picture of the arm (pyqtgraph.opengl).

Every solid is a unit mesh (cylinder, box, sphere) placed by a 4x4 matrix.
All opaque solids share one GL item and the inertia ellipsoids another:
pyqtgraph spends about half a millisecond of Python per item and frame, which
for thirty separate items on a software renderer would halve the frame rate.
Moving a joint only recomputes the matrices and moves the few thousand
vertices in numpy (:meth:`_Solids.place`); items are rebuilt only when the
number or the types of the joints change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
import pyqtgraph.opengl as gl
from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QVector3D
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from ..kinematics.numeric import NumericArm
from . import arm_scene as scene
from . import loop_scene
from .gl_solids import HIDDEN, Solids
from .meshes import MeshLayer
from .view3d_controls import DEFAULT_ANGLES, OPTIONS, PRESETS, ViewBar, fit_distance, load_options, save_option

if TYPE_CHECKING:   # the model imports sympy: the view draws a NumericArm without it (set_arm, issue 29)
    from ..model import Manipulator

__all__ = ["ArmView"]

LINK_COLOR = (0.55, 0.62, 0.72, 1.0)
REVOLUTE_COLOR = (0.95, 0.60, 0.15, 1.0)
PRISMATIC_COLOR = (0.25, 0.65, 0.35, 1.0)
COM_COLOR = (0.85, 0.15, 0.15, 1.0)
LOAD_COLOR = (0.55, 0.20, 0.75, 1.0)
ELLIPSOID_COLOR = (0.20, 0.45, 0.95, 0.28)
BACKGROUND = (235, 238, 242)
AXIS_COLORS = np.array([[0.9, 0.1, 0.1, 1.0], [0.1, 0.7, 0.1, 1.0], [0.1, 0.2, 0.95, 1.0]])
GRAVITY_COLOR = (0.45, 0.10, 0.60, 1.0)
LOOP_COLOR = (0.10, 0.55, 0.60, 1.0)   # a closed chain's extra bars (the cut joint's two sides)
WORKSPACE_MAP = pg.colormap.get("viridis")


REFIT_SHARE = 0.25   # an edit re-fits the camera only when it changes the arm's reach by more than this share


class ArmView(QWidget):
    """The arm at the current joint values; orbit (left drag), pan (middle drag), zoom (wheel).

    A tool bar above it fits the camera, offers the view presets and switches what is drawn
    (:data:`~designer.gui.view3d_controls.OPTIONS`, remembered in QSettings).
    """

    optionChanged = Signal(str, bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = gl.GLViewWidget()
        self.view.setBackgroundColor(BACKGROUND)
        self.view.setMinimumSize(200, 180)   # the window narrows to 1024 px (issue 29 item 9)
        self._options = load_options()
        self.mechanism = None   # a closed chain's loop_scene.Mechanism (set_mechanism)
        self.loop_bar_ends = np.zeros((0, 2, 2, 3))   # its loops' bars as drawn: (loops, side, end, xyz)
        self.toolbar = ViewBar(self, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.view, 1)
        # the camera follows the view's size until the user moves it (drag, wheel)
        self._auto_fit = True
        self.view.installEventFilter(self)
        self.message = QLabel(self.view)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("QLabel { background: rgba(255, 250, 220, 235); color: #5a4500;"
                                   " border: 1px solid #c9a400; padding: 10px; font-size: 13px; }")
        self.message.hide()
        self._meshes = {"cyl": scene.cylinder_mesh(16), "joint": scene.cylinder_mesh(20, -1, 1),
                        "box": scene.box_mesh(), "sphere": scene.sphere_mesh(10, 16)}
        self.model: Manipulator | None = None
        self.arm: NumericArm | None = None
        self._q = np.zeros(0)
        self._signature: tuple | None = None
        self._items: dict[str, Any] = {}   # pyqtgraph GL items (untyped) and the solids/ellipsoid batches
        self.parts: dict[str, np.ndarray] = {}  # the last placed 4x4 matrices of each kind of part
        self.grid = gl.GLGridItem(color=(0, 0, 0, 60))
        self.view.addItem(self.grid)
        # tool positions coloured by a metric (the Explore panel's workspace map)
        self.workspace = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=5.0, pxMode=True)
        self.workspace.setGLOptions("translucent")
        self.view.addItem(self.workspace)
        self.workspace_label = ""
        self.meshes = MeshLayer(self.view)   # the project's visual meshes (gui/meshes.py), loaded on a thread
        self.meshes.set_visible(self._options["show_meshes"])
        self.meshes.loaded.connect(self._update_items)

    def in_native_window(self) -> None:
        """The GL widget in a native window of its own, and nothing else made native (the main window's view and
        the start's first look).

        A GL widget in a window makes Qt composite the whole window with OpenGL on every repaint (over 100 ms a
        frame with software GL); in its own native window it does not. The GL widget itself, not the ArmView:
        with the view's tool bar in the same native window the slider drag fell from about 30 to 15 frames/s
        (benchmarks/bench_gui.py). Only the GL widget: by default Qt makes a native widget's siblings and
        ancestors native too (the splitters, the tab widget, the sliders: fourteen X windows), and the gaps
        between children of a native window were never repainted on expose, so the text of a closed pop-up or of
        the user guide stayed painted beside the 3D view (issue 20, item 9)."""
        QApplication.setAttribute(Qt.ApplicationAttribute.AA_DontCreateNativeWidgetSiblings)
        self.view.setAttribute(Qt.WidgetAttribute.WA_DontCreateNativeAncestors)
        self.view.setAttribute(Qt.WidgetAttribute.WA_NativeWindow)

    def sizeHint(self):
        return QSize(640, 480)

    # -- public API -----------------------------------------------------------
    def set_model(self, model: Manipulator | None, arm: NumericArm | None = None) -> None:
        """Show ``model`` (symbols at their default values; ``arm``: its numeric arm when already built,
        e.g. by :class:`~designer.design_state.OpenDesign`); a message replaces it when it cannot be drawn."""
        from ..model import MissingParameterError

        if model != self.model:  # a map of another arm would mislead
            self.clear_workspace_points()
        self.model = model
        if model is None:
            self._clear()
            return self._show_message("No arm to show.")
        try:
            arm = arm if arm is not None else scene.numeric_arm(model)
        except MissingParameterError as exc:
            self._clear()
            return self._show_message(f"Cannot draw the arm: {exc}. Give them default values in the parameters panel.")
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            self._clear()
            return self._show_message(f"Cannot draw the arm: {exc}")
        self.meshes.set_model(model)
        self._show_arm(arm)

    def set_arm(self, arm: NumericArm, q=None) -> None:
        """Show ``arm`` without a model (the window's first picture, drawn before sympy is imported:
        issue 29), at joint values ``q`` (SI units; None keeps the current ones when they fit, else zeros).
        The picture is :meth:`set_model`'s for a serial model whose numeric arm is ``arm``: sticks and
        parts, no meshes, no loops; the camera is fitted the same way."""
        if q is not None:
            q = np.asarray(q, dtype=float).ravel()
            if len(q) != arm.n:
                raise ValueError(f"set_arm: {len(q)} joint values for an arm of {arm.n} joints")
        if self.model is not None or self.arm is not arm:   # a map of another arm would mislead
            self.clear_workspace_points()
        self.model = None
        self.mechanism = None
        self.meshes.set_model(None)
        if q is not None:
            self._q = q
        self._show_arm(arm)

    def _show_arm(self, arm: NumericArm) -> None:
        """Draw ``arm`` (set_model's and set_arm's one path): items rebuilt when its joints or parts changed,
        the camera fitted for the first arm and when the reach changed by more than :data:`REFIT_SHARE`."""
        self.message.hide()
        old_reach = None if self.arm is None else scene.arm_reach(self.arm)
        self.arm = arm
        signature = (arm.n, tuple(arm.revolute), len(arm.point_masses), self._loops(),
                     tuple(b.index for b in arm.beams if not b.round))   # box parts are other solids
        if signature != self._signature:
            self._build_items(arm)
            self._signature = signature
        if len(self._q) != arm.n:
            self._q = np.zeros(arm.n)
        self._scale_scene()
        self._update_items()
        if old_reach is None:   # the first arm
            self.reset_camera()
        elif abs(scene.arm_reach(arm) - old_reach) > REFIT_SHARE * old_reach:
            self.fit_camera()   # the reach changed a lot: fit it again, looking from where the user looks

    def set_workspace_points(self, positions, values, label: str = "") -> None:
        """Show tool positions (N, 3) coloured by ``values`` (N,), low blue to high yellow (viridis)."""
        positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        if self.arm is not None:   # the explore tools work in frame 0; the scene is in the world (base pose)
            positions = positions @ self.arm.base[:3, :3].T + self.arm.base[:3, 3]
        values = np.asarray(values, dtype=float).ravel()
        finite = np.isfinite(values) & np.all(np.isfinite(positions), axis=1)
        positions, values = positions[finite], values[finite]
        span = float(np.ptp(values)) if len(values) else 0.0
        t = (values - values.min()) / span if span > 0 else np.full(len(values), 0.5)
        colors = WORKSPACE_MAP.map(t, mode="float")
        colors[:, 3] = 0.8
        self.workspace.setData(pos=positions, color=colors)
        self.workspace_label = label

    def forget_project(self) -> None:
        """Another project replaced the open one: its Explore workspace map goes."""
        self.clear_workspace_points()

    def clear_workspace_points(self) -> None:
        self.workspace.setData(pos=np.zeros((0, 3)))
        self.workspace_label = ""

    def workspace_point_count(self) -> int:
        return len(self.workspace.pos) if self.workspace.pos is not None else 0

    def set_joint_values(self, q) -> None:
        """Move the joints to ``q`` (SI units: rad, m)."""
        q = np.asarray(q, dtype=float).ravel()
        if self.arm is None or len(q) != self.arm.n:
            self._q = q
            return
        self._q = q
        self._update_items()

    def joint_values(self) -> np.ndarray:
        return self._q.copy()

    def home(self) -> None:
        """Joints to zero (inside the limits) and the camera to its default place."""
        if self.arm is not None:
            lo = np.where(np.isnan(self.arm.limits[:, 0]), -np.inf, self.arm.limits[:, 0])
            hi = np.where(np.isnan(self.arm.limits[:, 1]), np.inf, self.arm.limits[:, 1])
            self.set_joint_values(np.clip(np.zeros(self.arm.n), lo, hi))
        self.reset_camera()

    # -- camera ---------------------------------------------------------------
    def scene_points(self) -> np.ndarray:
        """Points the camera must keep in view: the base, the frames and the parts at the current pose."""
        pts = [np.zeros((1, 3))]
        for kind in ("links", "joints", "coms", "loads"):
            M = self.parts.get(kind)
            if M is not None and len(M):
                pts.append(M[:, :3, 3])
        joints = self.parts.get("joints")
        if joints is not None and len(joints):   # both ends of each joint's cylinder or box
            pts += [joints[:, :3, 3] + joints[:, :3, 2], joints[:, :3, 3] - joints[:, :3, 2]]
        if self.arm is not None and len(self._q) == self.arm.n:
            mech = self.mechanism   # a closed chain's frames are its tree's, its tool on its deepest link
            T = mech.frames(self._q) if mech else self.arm.base @ self.arm.frames(self._q)   # in the world
            pts.append(T[:, :3, 3])
            r = getattr(self, "_radius", 0.0)
            tool = T[mech.tool_link + 1 if mech else -1] @ self.arm.tool
            for on, frames, length in ((self._options["show_frames"], T, 4.0 * r),
                                       (self._options["show_tool"], tool[None], 8.0 * r)):
                if on:   # the tips of the frame axes (row k, axis a: origin + length * column a)
                    tips = frames[:, None, :3, 3] + length * np.transpose(frames[:, :3, :3], (0, 2, 1))
                    pts.append(tips.reshape(-1, 3))
            if self._options["show_gravity"]:
                reach = loop_scene.tree_reach(mech.tree) if mech else scene.arm_reach(self.arm)
                pts.append(scene.gravity_arrow(self.arm.gravity, reach))
        return np.vstack(pts)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.view and event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.Wheel):
            self._auto_fit = False
        elif watched is self.view and event.type() == QEvent.Type.Resize and self._auto_fit:
            QTimer.singleShot(0, self._follow_size)   # after the new size is in place
        return super().eventFilter(watched, event)

    def _follow_size(self) -> None:
        """The camera fitted to the view's new size, unless the user has moved it since the size changed."""
        if self._auto_fit:
            self.fit_camera()

    def fit_points(self) -> np.ndarray:
        """What Fit keeps in view: the arm's reach sphere (every pose it can take, so moving a joint
        never takes the arm out of view: fitted to the pose, q2 at 41 deg put most of the PUMA off
        screen) and whatever else is drawn (loads, the gravity arrow)."""
        points = self.scene_points()
        if self.arm is None:
            return points
        reach = loop_scene.tree_reach(self.mechanism.tree) if self.mechanism else None   # its crank counts once
        return np.vstack([scene.reach_points(self.arm, self.parts.get("joints"), getattr(self, "_radius", 0.0),
                                             reach), points])

    def fit_camera(self) -> None:
        """Look at the arm's reach sphere from far enough to see all of it (the direction is kept)."""
        self._auto_fit = True
        pad = 1.6 * getattr(self, "_radius", 0.0)   # the largest sphere about a point (a COM marker)
        o = self.view.opts
        centre, distance = fit_distance(self.fit_points(), o["fov"], self.view.width(), self.view.height(), pad,
                                        o["elevation"], o["azimuth"])
        self.view.setCameraPosition(pos=QVector3D(*map(float, centre)), distance=distance)

    def set_view(self, name: str) -> None:
        """One of :data:`~designer.gui.view3d_controls.PRESETS` (front, side, top, iso), arm fitted."""
        elevation, azimuth = PRESETS[name]
        self.view.setCameraPosition(elevation=elevation, azimuth=azimuth)
        self.fit_camera()

    def reset_camera(self) -> None:
        """The default direction, with the arm fitted in the view."""
        self.view.setCameraPosition(elevation=DEFAULT_ANGLES[0], azimuth=DEFAULT_ANGLES[1])
        self.fit_camera()

    def follow_camera(self, other: ArmView) -> None:
        """Look from where ``other`` looks when its user has moved its camera (drag, wheel), and keep that camera
        as the user's; else keep this view's own (the start's first look, whose place this view takes)."""
        if other._auto_fit:
            return
        c = other.camera()
        self.view.setCameraPosition(pos=QVector3D(*map(float, c["center"])), distance=c["distance"],
                                    elevation=c["elevation"], azimuth=c["azimuth"])
        self._auto_fit = False

    def camera(self) -> dict:
        """Centre (x, y, z), distance, elevation and azimuth of the camera."""
        o = self.view.opts
        c = o["center"]
        return {"center": np.array([c.x(), c.y(), c.z()]), "distance": float(o["distance"]),
                "elevation": float(o["elevation"]), "azimuth": float(o["azimuth"])}

    # -- what is drawn --------------------------------------------------------
    def option(self, name: str) -> bool:
        return self._options[name]

    def set_option(self, name: str, on: bool) -> None:
        """Draw or hide one kind of part (:data:`~designer.gui.view3d_controls.OPTIONS`); remembered."""
        if name not in OPTIONS:
            raise KeyError(name)
        on = bool(on)
        changed = self._options[name] != on
        self._options[name] = on
        save_option(name, on)
        self._apply_visibility()
        self._update_items()
        if changed:
            self.optionChanged.emit(name, on)

    # -- building and updating items -----------------------------------------
    def _show_message(self, text: str) -> None:
        self.meshes.set_model(None)   # no meshes floating where the arm was
        self.message.setText(text)
        self.message.show()
        self._place_message()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._place_message()

    def _place_message(self) -> None:
        w = min(self.view.width() - 40, 520)
        self.message.setFixedWidth(max(w, 100))
        self.message.adjustSize()
        self.message.move((self.view.width() - self.message.width()) // 2,
                          (self.view.height() - self.message.height()) // 2)

    def _clear(self) -> None:
        for item in self._items.values():
            self.view.removeItem(item)
        self._items = {}
        self.parts = {}
        self._signature = None
        self.arm = None

    def _build_items(self, arm: NumericArm) -> None:
        self._clear()
        self.arm = arm
        m = self._meshes
        boxes = {b.index for b in arm.beams if not b.round}   # box-section parts are drawn as boxes
        kinds = ([("base", m["cyl"], LINK_COLOR)]
                 + [("links", m["box"] if i in boxes and k == 0 else m["cyl"], LINK_COLOR)
                    for i in range(arm.n) for k in range(2)]
                 + [("joints", m["joint"], REVOLUTE_COLOR) if r else ("joints", m["box"], PRISMATIC_COLOR)
                    for r in arm.revolute]
                 + [("coms", m["sphere"], COM_COLOR)] * arm.n
                 + [("loads", m["sphere"], LOAD_COLOR)] * len(arm.point_masses)
                 + [("loop_bars", m["cyl"], LOOP_COLOR)] * (2 * self._loops())
                 + [("cut_joints", m["joint"], LOOP_COLOR)] * self._loops())
        self._order = [k for k, _, _ in kinds]
        solids = Solids()
        solids.set_parts([mesh for _, mesh, _ in kinds], [color for _, _, color in kinds])
        ellipsoids = Solids(translucent=True)
        ellipsoids.set_parts([m["sphere"]] * arm.n, [ELLIPSOID_COLOR] * arm.n)
        triads = gl.GLLinePlotItem(mode="lines", width=2.0, antialias=False)
        triads.setGLOptions("opaque")
        tool = gl.GLLinePlotItem(mode="lines", width=4.0, antialias=False)
        tool.setGLOptions("opaque")
        gravity = gl.GLLinePlotItem(mode="lines", width=3.0, antialias=False, color=GRAVITY_COLOR)
        gravity.setGLOptions("opaque")
        self._items = {"solids": solids, "ellipsoids": ellipsoids, "triads": triads, "tool": tool,
                       "gravity": gravity}
        for item in self._items.values():
            self.view.addItem(item)
        self._apply_visibility()

    def _scale_scene(self) -> None:
        assert self.arm is not None   # called after set_model stored one
        reach = loop_scene.tree_reach(self.mechanism.tree) if self.mechanism else scene.arm_reach(self.arm)
        size = 2.0 * reach
        self.grid.setSize(size, size)
        self.grid.setSpacing(size / 10, size / 10)
        self.grid.resetTransform()
        self._radius = 0.035 * reach
        self._items["gravity"].setData(pos=scene.gravity_arrow(self.arm.gravity, reach), color=GRAVITY_COLOR)

    def _apply_visibility(self) -> None:
        self.grid.setVisible(self._options["show_grid"])
        self.meshes.set_visible(self._options["show_meshes"])
        for name, option in (("ellipsoids", "show_inertia"), ("triads", "show_frames"), ("tool", "show_tool"),
                             ("gravity", "show_gravity")):
            if name in self._items:
                self._items[name].setVisible(self._options[option])

    def _update_items(self) -> None:
        arm = self.arm
        if arm is None or not self._items or len(self._q) != arm.n:
            return
        r = self._radius
        mech = self.mechanism   # a closed chain: the tree's frames, links from their parents, the loops' bars
        T = mech.frames(self._q) if mech else arm.base @ arm.frames(self._q)   # the base pose places frame 0
        parts = {"base": [scene.segment_matrix(T[0, :3, 3] - 0.6 * r * T[0, :3, 2], T[0, :3, 3], 2.6 * r)]}
        parts["links"] = scene.link_matrices(arm, T, r, loop_scene.tree_segments(mech.tree, T) if mech else None)
        origins, axes = mech.tree.joint_axes(T) if mech else arm.joint_axes(self._q, T)
        parts["joints"] = [scene.axis_matrix(origins[i], axes[i],
                                             *((1.7 * r, 2.2 * r) if arm.revolute[i] else (1.5 * r, 1.5 * r)))
                           for i in range(arm.n)]
        parts["coms"], parts["loads"] = self._mass_matrices(arm, T, r)
        parts["loop_bars"], parts["cut_joints"] = self._loop_matrices(T, r)
        self.parts = {k: np.array([HIDDEN if M is None else M for M in v]).reshape(-1, 4, 4) for k, v in parts.items()}
        hidden = set() if self._options["show_com"] else {"coms", "loads"}
        if not self._options["show_base"]:
            hidden.add("base")
        self.meshes.place(T)
        drawn = {k: v.copy() for k, v in self.parts.items()}
        for frame in self.meshes.drawn_frames():   # a link with a mesh is not drawn as sticks too
            if frame == 0:
                drawn["base"][:] = HIDDEN
            else:
                drawn["links"][[2 * frame - 2, 2 * frame - 1]] = drawn["joints"][frame - 1] = HIDDEN
        ordered = [HIDDEN if kind in hidden else M
                   for kind, M in zip(self._order, _interleave(self._order, drawn))]
        self._items["solids"].place(np.array(ordered))
        if self._options["show_inertia"]:
            self._items["ellipsoids"].place(self._ellipsoid_matrices(arm, T))
        # the world frame, the DH frames and the tool frame (the flange's own when the project has none)
        self.parts["tool"] = (T[mech.tool_link + 1 if mech else -1] @ arm.tool)[None]
        if self._options["show_frames"]:
            # the world frame and the DH frames, and the base pose as a grey line from one to the other
            self._place_triads(self._items["triads"], np.concatenate([np.eye(4)[None], T]), 4.0 * r, base_line=True)
        if self._options["show_tool"]:
            self._place_triads(self._items["tool"], self.parts["tool"], 8.0 * r)

    def set_mechanism(self, mechanism) -> None:
        """Draw a closed chain (a :class:`loop_scene.Mechanism`, or None for a serial arm): its tree and
        the loops' extra bars; the joint values given to :meth:`set_joint_values` are then closed poses."""
        self.mechanism = mechanism   # set_model follows: it rebuilds the solids for the loops' bars

    def hide_arm(self, text: str) -> None:
        """No picture, only ``text`` (a closed chain that cannot be posed: drawing it would mislead)."""
        self._clear()
        self._show_message(text)

    def show_pose_problem(self, text: str | None) -> None:
        """A pose the loops cannot close: the message over the view, the last good pose kept."""
        if text:
            self._show_message(text)
        elif self.arm is not None:
            self.message.hide()

    def _loops(self) -> int:
        return loop_scene.loop_count(self.mechanism)

    def _loop_matrices(self, T: np.ndarray, r: float) -> tuple[list, list]:
        """The loops' extra bars (thinner than the links) and a joint body at each cut joint (none without loops)."""
        bars, cuts = loop_scene.loop_parts(self.mechanism, T)
        self.loop_bar_ends = bars   # (loops, 2 sides, 2 ends, 3) in the world
        return ([scene.segment_matrix(a, b, 0.7 * r) for a, b in bars.reshape(-1, 2, 3)],
                [scene.axis_matrix(F[:3, 3], F[:3, 2], 1.3 * r, 1.8 * r) for F in cuts])

    def _mass_matrices(self, arm: NumericArm, T: np.ndarray, r: float) -> tuple[list, list]:
        masses = np.concatenate([arm.mass, [m for _, m, _ in arm.point_masses]])
        biggest = masses.max() if len(masses) and masses.max() > 0 else 1.0
        # sphere volume proportional to mass, the heaviest 1.6 link radii across
        radius = lambda m: 1.6 * r * np.cbrt(max(m, 0.0) / biggest)  # noqa: E731
        coms = arm.com_positions(self._q, T)
        com_parts = [_sphere_matrix(coms[i], np.eye(3), np.full(3, radius(arm.mass[i]))) if arm.mass[i] > 0 else None
                     for i in range(arm.n)]
        load_parts = [_sphere_matrix(T[k + 1, :3, :3] @ p + T[k + 1, :3, 3], np.eye(3), np.full(3, radius(m)))
                      if m > 0 else None for k, m, p in arm.point_masses]
        return com_parts, load_parts

    def _ellipsoid_matrices(self, arm: NumericArm, T: np.ndarray) -> np.ndarray:
        """Equivalent ellipsoids; semi-axes capped at half the reach so one outsized link does not hide the arm."""
        coms = arm.com_positions(self._q, T)
        cap = 0.5 * scene.arm_reach(arm)
        out = []
        for i in range(arm.n):
            semi, axes = scene.ellipsoid_axes(arm.mass[i], arm.inertia[i])
            semi = np.minimum(semi, cap)
            out.append(_sphere_matrix(coms[i], T[i + 1, :3, :3] @ axes, np.maximum(semi, 1e-6))
                       if semi.max() > 0 else HIDDEN)
        return np.array(out)

    @staticmethod
    def _place_triads(item, T: np.ndarray, length: float, base_line: bool = False) -> None:
        origins = T[:, :3, 3]
        pos: np.ndarray = np.empty((len(T), 3, 2, 3))
        pos[:, :, 0] = origins[:, None, :]
        pos[:, :, 1] = origins[:, None, :] + length * np.transpose(T[:, :3, :3], (0, 2, 1))
        colors = np.broadcast_to(AXIS_COLORS[None, :, None, :], (len(T), 3, 2, 4)).reshape(-1, 4)
        pos = pos.reshape(-1, 3)
        if base_line:   # the base pose: a grey line from the world origin (T[0]) to DH frame 0 (T[1])
            pos = np.concatenate([pos, [origins[0], origins[1]]])
            colors = np.concatenate([colors, np.full((2, 4), 0.45) * [1, 1, 1, 0] + [0, 0, 0, 1]])
        item.setData(pos=pos, color=np.ascontiguousarray(colors))


def _interleave(order: list[str], parts: dict[str, np.ndarray]):
    """The matrices in the order the parts were added to the solids item."""
    counters = dict.fromkeys(parts, 0)
    for kind in order:
        yield parts[kind][counters[kind]]
        counters[kind] += 1


def _sphere_matrix(center, rotation, semi_axes) -> np.ndarray:
    M = np.eye(4)
    M[:3, :3] = np.asarray(rotation) @ np.diag(semi_axes)
    M[:3, 3] = center
    return M



def _option_property(name: str) -> property:
    def get(self: ArmView) -> bool:
        return self._options[name]

    def set_(self: ArmView, on: bool) -> None:
        self.set_option(name, on)
    return property(get, set_, doc=f"Whether to draw {OPTIONS[name][0].lower()} (bool).")


for _name in OPTIONS:   # arm_view.show_frames = False, and so on for every option
    setattr(ArmView, _name, _option_property(_name))
del _name
