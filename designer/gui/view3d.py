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

import numpy as np
import pyqtgraph as pg
import pyqtgraph.opengl as gl
from pyqtgraph.opengl import shaders
from pyqtgraph.opengl.items.GLMeshItem import DirtyFlag
from PySide6.QtCore import Qt
from PySide6.QtGui import QVector3D
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..kinematics import NumericArm
from ..model import Manipulator, MissingParameterError
from . import arm_scene as scene

__all__ = ["ArmView"]

LINK_COLOR = (0.55, 0.62, 0.72, 1.0)
REVOLUTE_COLOR = (0.95, 0.60, 0.15, 1.0)
PRISMATIC_COLOR = (0.25, 0.65, 0.35, 1.0)
COM_COLOR = (0.85, 0.15, 0.15, 1.0)
LOAD_COLOR = (0.55, 0.20, 0.75, 1.0)
ELLIPSOID_COLOR = (0.20, 0.45, 0.95, 0.28)
BACKGROUND = (235, 238, 242)
AXIS_COLORS = np.array([[0.9, 0.1, 0.1, 1.0], [0.1, 0.7, 0.1, 1.0], [0.1, 0.2, 0.95, 1.0]])


# a head light plus a soft key light: pyqtgraph's "shaded" leaves faces turned away almost black
_LIT = shaders.ShaderProgram("designer_lit", [
    shaders.VertexShader("""
        uniform mat4 u_mvp;
        uniform mat3 u_normal;
        attribute vec4 a_position;
        attribute vec3 a_normal;
        attribute vec4 a_color;
        varying vec4 v_color;
        varying vec3 v_normal;
        void main() {
            v_normal = normalize(u_normal * a_normal);
            v_color = a_color;
            gl_Position = u_mvp * a_position;
        }
    """),
    shaders.FragmentShader("""
        #ifdef GL_ES
        precision mediump float;
        #endif
        varying vec4 v_color;
        varying vec3 v_normal;
        void main() {
            vec3 n = normalize(v_normal);
            float key = max(dot(n, normalize(vec3(0.5, 0.7, 0.6))), 0.0);
            float light = 0.38 + 0.42 * abs(n.z) + 0.3 * key;
            gl_FragColor = vec4(min(v_color.rgb * light, vec3(1.0)), v_color.a);
        }
    """),
])


WORKSPACE_MAP = pg.colormap.get("viridis")
HIDDEN = np.diag([1e-9, 1e-9, 1e-9, 1.0])  # a part scaled to a point is not drawn


class _Solids(gl.GLMeshItem):
    """Many solids drawn as one mesh; :meth:`place` moves each by its own 4x4 matrix."""

    def __init__(self, translucent: bool = False):
        super().__init__(shader=_LIT, smooth=True, glOptions="translucent" if translucent else "opaque")
        self._pending = DirtyFlag(0)
        self._part = np.zeros(0, dtype=np.int64)
        self._unit_verts = self._unit_normals = np.zeros((0, 3))

    def set_parts(self, meshes: list, colors: list) -> None:
        """One (vertices, normals, faces) unit mesh and one RGBA colour per part."""
        offsets = np.cumsum([0] + [len(m[0]) for m in meshes])
        self._unit_verts = np.vstack([m[0] for m in meshes])
        self._unit_normals = np.vstack([m[1] for m in meshes])
        self._part = np.repeat(np.arange(len(meshes)), [len(m[0]) for m in meshes])
        self.faces = np.vstack([m[2] + o for m, o in zip(meshes, offsets)]).astype(np.uint32)
        self.colors = np.repeat(np.asarray(colors, np.float32), [len(m[0]) for m in meshes], axis=0)
        self.vertexes = None
        self._pending |= DirtyFlag.FACES | DirtyFlag.COLOR

    def place(self, matrices: np.ndarray) -> None:
        """Move part k by ``matrices[k]`` (4x4, may scale); normals follow the inverse transpose."""
        A, t = matrices[:, :3, :3], matrices[:, :3, 3]
        verts = np.einsum("vij,vj->vi", A[self._part], self._unit_verts) + t[self._part]
        normals = np.einsum("vji,vj->vi", np.linalg.inv(A)[self._part], self._unit_normals)
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
        self.vertexes = verts.astype(np.float32)
        self.normals = normals.astype(np.float32)
        self._pending |= DirtyFlag.POSITION | DirtyFlag.NORMAL
        self.update()

    def parseMeshData(self) -> DirtyFlag:
        bits, self._pending = self._pending, DirtyFlag(0)
        return bits


class ArmView(QWidget):
    """The arm at the current joint values; orbit (left drag), pan (middle drag), zoom (wheel).

    Parameters
    ----------
    parent : QWidget, optional
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = gl.GLViewWidget()
        self.view.setBackgroundColor(BACKGROUND)
        self.view.setMinimumSize(240, 180)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.message = QLabel(self.view)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("QLabel { background: rgba(255, 250, 220, 235); color: #5a4500;"
                                   " border: 1px solid #c9a400; padding: 10px; font-size: 13px; }")
        self.message.hide()
        self._meshes = {"cyl": scene.cylinder_mesh(16), "joint": scene.cylinder_mesh(20, -1, 1),
                        "box": scene.box_mesh(), "sphere": scene.sphere_mesh(10, 16)}
        self._options = {"show_frames": True, "show_com": True, "show_inertia": False, "show_grid": True}
        self.model: Manipulator | None = None
        self.arm: NumericArm | None = None
        self._q = np.zeros(0)
        self._signature: tuple | None = None
        self._items: dict[str, object] = {}
        self.parts: dict[str, np.ndarray] = {}  # the last placed 4x4 matrices of each kind of part
        self.grid = gl.GLGridItem(color=(0, 0, 0, 60))
        self.view.addItem(self.grid)
        # tool positions coloured by a metric (the Explore panel's workspace map)
        self.workspace = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=5.0, pxMode=True)
        self.workspace.setGLOptions("translucent")
        self.view.addItem(self.workspace)
        self.workspace_label = ""

    def sizeHint(self):
        from PySide6.QtCore import QSize
        return QSize(640, 480)

    # -- public API -----------------------------------------------------------
    def set_model(self, model: Manipulator | None) -> None:
        """Show ``model`` (symbols at their default values); a message replaces it when it cannot be drawn."""
        if model != self.model:  # a map of another arm would mislead
            self.clear_workspace_points()
        self.model = model
        if model is None:
            self._clear()
            return self._show_message("No arm to show.")
        try:
            arm = scene.numeric_arm(model)
        except MissingParameterError as exc:
            self._clear()
            return self._show_message(f"Cannot draw the arm: {exc}. Give them default values in the parameters panel.")
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            self._clear()
            return self._show_message(f"Cannot draw the arm: {exc}")
        self.message.hide()
        first = self.arm is None
        old_reach = None if first else scene.arm_reach(self.arm)
        self.arm = arm
        signature = (arm.n, tuple(arm.revolute), len(arm.point_masses))
        if signature != self._signature:
            self._build_items(arm)
            self._signature = signature
        if len(self._q) != arm.n:
            self._q = np.zeros(arm.n)
        self._scale_scene()
        if first or abs(scene.arm_reach(arm) - old_reach) > 0.25 * old_reach:
            self.reset_camera()
        self._update_items()

    def set_workspace_points(self, positions, values, label: str = "") -> None:
        """Show tool positions (N, 3) coloured by ``values`` (N,), low blue to high yellow (viridis)."""
        positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        values = np.asarray(values, dtype=float).ravel()
        finite = np.isfinite(values) & np.all(np.isfinite(positions), axis=1)
        positions, values = positions[finite], values[finite]
        span = float(np.ptp(values)) if len(values) else 0.0
        t = (values - values.min()) / span if span > 0 else np.full(len(values), 0.5)
        colors = WORKSPACE_MAP.map(t, mode="float")
        colors[:, 3] = 0.8
        self.workspace.setData(pos=positions, color=colors)
        self.workspace_label = label

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

    def reset_camera(self) -> None:
        reach, centre = 1.0, np.zeros(3)
        if self.arm is not None:
            reach = scene.arm_reach(self.arm)
            centre = self.arm.frames(np.zeros(self.arm.n))[:, :3, 3].mean(axis=0)
        self.view.setCameraPosition(pos=QVector3D(*map(float, centre)), distance=1.4 * reach, elevation=20, azimuth=-60)

    def _option(name):  # noqa: N805 - builds the four option properties
        def getter(self) -> bool:
            return self._options[name]

        def setter(self, value: bool) -> None:
            self._options[name] = bool(value)
            self._apply_visibility()
            self._update_items()
        return property(getter, setter, doc=f"Whether to draw {name[5:]} (bool).")

    show_frames = _option("show_frames")
    show_com = _option("show_com")
    show_inertia = _option("show_inertia")
    show_grid = _option("show_grid")
    del _option

    def set_show_frames(self, on: bool) -> None:
        self.show_frames = on

    def set_show_com(self, on: bool) -> None:
        self.show_com = on

    def set_show_inertia(self, on: bool) -> None:
        self.show_inertia = on

    def set_show_grid(self, on: bool) -> None:
        self.show_grid = on

    def item_count(self) -> int:
        """GL items in the scene (the grid, the solids, the ellipsoids, the frame triads)."""
        return len(self.view.items)

    # -- building and updating items -----------------------------------------
    def _show_message(self, text: str) -> None:
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
        kinds = ([("base", m["cyl"], LINK_COLOR)] + [("links", m["cyl"], LINK_COLOR)] * (2 * arm.n)
                 + [("joints", m["joint"], REVOLUTE_COLOR) if r else ("joints", m["box"], PRISMATIC_COLOR)
                    for r in arm.revolute]
                 + [("coms", m["sphere"], COM_COLOR)] * arm.n
                 + [("loads", m["sphere"], LOAD_COLOR)] * len(arm.point_masses))
        self._order = [k for k, _, _ in kinds]
        solids = _Solids()
        solids.set_parts([mesh for _, mesh, _ in kinds], [color for _, _, color in kinds])
        ellipsoids = _Solids(translucent=True)
        ellipsoids.set_parts([m["sphere"]] * arm.n, [ELLIPSOID_COLOR] * arm.n)
        triads = gl.GLLinePlotItem(mode="lines", width=2.0, antialias=False)
        triads.setGLOptions("opaque")
        self._items = {"solids": solids, "ellipsoids": ellipsoids, "triads": triads}
        for item in self._items.values():
            self.view.addItem(item)
        self._apply_visibility()

    def _scale_scene(self) -> None:
        reach = scene.arm_reach(self.arm)
        size = 2.0 * reach
        self.grid.setSize(size, size)
        self.grid.setSpacing(size / 10, size / 10)
        self.grid.resetTransform()
        self._radius = 0.035 * reach

    def _apply_visibility(self) -> None:
        self.grid.setVisible(self._options["show_grid"])
        for name, option in (("ellipsoids", "show_inertia"), ("triads", "show_frames")):
            if name in self._items:
                self._items[name].setVisible(self._options[option])

    def _update_items(self) -> None:
        arm = self.arm
        if arm is None or not self._items or len(self._q) != arm.n:
            return
        r = self._radius
        T = arm.frames(self._q)
        parts = {"base": [scene.segment_matrix(np.array([0, 0, -0.6 * r]), np.zeros(3), 2.6 * r)]}
        parts["links"] = [scene.segment_matrix(a, b, r) for a, b in scene.link_segments(arm, T).reshape(-1, 2, 3)]
        origins, axes = arm.joint_axes(self._q, T)
        parts["joints"] = [scene.axis_matrix(origins[i], axes[i],
                                             *((1.7 * r, 2.2 * r) if arm.revolute[i] else (1.5 * r, 1.5 * r)))
                           for i in range(arm.n)]
        parts["coms"], parts["loads"] = self._mass_matrices(arm, T, r)
        self.parts = {k: np.array([HIDDEN if M is None else M for M in v]).reshape(-1, 4, 4) for k, v in parts.items()}
        show_com = self._options["show_com"]
        ordered = [M if show_com or kind not in ("coms", "loads") else HIDDEN
                   for kind, M in zip(self._order, _interleave(self._order, self.parts))]
        self._items["solids"].place(np.array(ordered))
        if self._options["show_inertia"]:
            self._items["ellipsoids"].place(self._ellipsoid_matrices(arm, T))
        if self._options["show_frames"]:
            self._place_triads(T, 4.0 * r)

    def _mass_matrices(self, arm: NumericArm, T: np.ndarray, r: float) -> tuple[list, list]:
        masses = np.concatenate([arm.mass, [m for _, m, _ in arm.point_masses]])
        biggest = masses.max() if len(masses) and masses.max() > 0 else 1.0
        # sphere volume proportional to mass, the heaviest 1.6 link radii across
        radius = lambda m: 1.6 * r * np.cbrt(max(m, 0.0) / biggest)  # noqa: E731
        coms = arm.com_positions(self._q, T)
        com_parts = [_sphere_matrix(coms[i], np.eye(3), np.full(3, radius(arm.mass[i]))) if arm.mass[i] > 0 else None
                     for i in range(arm.n)]
        load_parts = [_sphere_matrix(T[k + 1, :3, :3] @ p + T[k + 1, :3, 3], np.eye(3), np.full(3, radius(m)))
                      for k, m, p in arm.point_masses]
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

    def _place_triads(self, T: np.ndarray, length: float) -> None:
        origins = T[:, :3, 3]
        pos = np.empty((len(T), 3, 2, 3))
        pos[:, :, 0] = origins[:, None, :]
        pos[:, :, 1] = origins[:, None, :] + length * np.transpose(T[:, :3, :3], (0, 2, 1))
        colors = np.broadcast_to(AXIS_COLORS[None, :, None, :], (len(T), 3, 2, 4))
        self._items["triads"].setData(pos=pos.reshape(-1, 3), color=colors.reshape(-1, 4).copy())


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

