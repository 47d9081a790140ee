"""The live 3D picture of the arm (pyqtgraph.opengl).

Every solid is a unit mesh placed by its item transform, so moving a joint
only changes transforms; items are rebuilt only when the number or the types
of the joints change.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph.opengl import MeshData, shaders
from PySide6.QtCore import Qt
from PySide6.QtGui import QMatrix4x4, QVector3D
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


def _meshdata(mesh) -> MeshData:
    verts, faces = mesh
    return MeshData(vertexes=verts, faces=faces)


def _qmatrix(M: np.ndarray) -> QMatrix4x4:
    return QMatrix4x4(*np.asarray(M, dtype=float).ravel())


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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.message = QLabel(self.view)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("QLabel { background: rgba(255, 250, 220, 235); color: #5a4500;"
                                   " border: 1px solid #c9a400; padding: 10px; font-size: 13px; }")
        self.message.hide()
        self._meshes = {"cyl": _meshdata(scene.cylinder_mesh(20)), "joint": _meshdata(scene.cylinder_mesh(24, -1, 1)),
                        "box": _meshdata(scene.box_mesh()), "sphere": MeshData.sphere(12, 20)}
        self._options = {"show_frames": True, "show_com": True, "show_inertia": False, "show_grid": True}
        self.model: Manipulator | None = None
        self.arm: NumericArm | None = None
        self._q = np.zeros(0)
        self._signature: tuple | None = None
        self._items: dict[str, list] = {}
        self.grid = gl.GLGridItem(color=(0, 0, 0, 60))
        self.view.addItem(self.grid)

    # -- public API -----------------------------------------------------------
    def set_model(self, model: Manipulator | None) -> None:
        """Show ``model`` (symbols at their default values); a message replaces it when it cannot be drawn."""
        self.model = model
        if model is None:
            self._clear()
            return self._show_message("No arm to show.")
        try:
            arm = NumericArm.from_model(model)
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
        self.view.setCameraPosition(pos=QVector3D(*map(float, centre)), distance=2.0 * reach, elevation=20, azimuth=-60)

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
        return len(self.view.items)

    # -- building and updating items -----------------------------------------
    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()
        self._place_message()

    def resizeEvent(self, event):  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._place_message()

    def _place_message(self) -> None:
        w = min(self.view.width() - 40, 520)
        self.message.setFixedWidth(max(w, 100))
        self.message.adjustSize()
        self.message.move((self.view.width() - self.message.width()) // 2,
                          (self.view.height() - self.message.height()) // 2)

    def _clear(self) -> None:
        for items in self._items.values():
            for item in items:
                self.view.removeItem(item)
        self._items = {}
        self._signature = None
        self.arm = None

    def _mesh(self, kind: str, color, smooth=True, translucent=False) -> gl.GLMeshItem:
        item = gl.GLMeshItem(meshdata=self._meshes[kind], color=color, smooth=smooth, shader=_LIT,
                             glOptions="translucent" if translucent else "opaque")
        self.view.addItem(item)
        return item

    def _build_items(self, arm: NumericArm) -> None:
        self._clear()
        self.arm = arm
        items = self._items
        items["base"] = [self._mesh("cyl", LINK_COLOR)]
        items["links"] = [self._mesh("cyl", LINK_COLOR) for _ in range(2 * arm.n)]
        items["joints"] = [self._mesh("joint", REVOLUTE_COLOR) if r else self._mesh("box", PRISMATIC_COLOR, smooth=False)
                           for r in arm.revolute]
        items["coms"] = [self._mesh("sphere", COM_COLOR) for _ in range(arm.n)]
        items["loads"] = [self._mesh("sphere", LOAD_COLOR) for _ in arm.point_masses]
        items["ellipsoids"] = [self._mesh("sphere", ELLIPSOID_COLOR, translucent=True) for _ in range(arm.n)]
        triads = gl.GLLinePlotItem(mode="lines", width=2.5, antialias=True)
        triads.setGLOptions("opaque")
        self.view.addItem(triads)
        items["triads"] = [triads]
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
        for name, option in (("coms", "show_com"), ("loads", "show_com"), ("ellipsoids", "show_inertia"),
                             ("triads", "show_frames")):
            for item in self._items.get(name, []):
                item.setVisible(self._options[option])

    def _update_items(self) -> None:
        arm, items = self.arm, self._items
        if arm is None or not items or len(self._q) != arm.n:
            return
        r = self._radius
        T = arm.frames(self._q)
        base = scene.segment_matrix(np.array([0, 0, -0.6 * r]), np.zeros(3), 2.6 * r)
        items["base"][0].setTransform(_qmatrix(base))
        for k, (start, end) in enumerate(scene.link_segments(arm, T).reshape(-1, 2, 3)):
            M = scene.segment_matrix(start, end, r)
            item = items["links"][k]
            item.setVisible(M is not None)
            if M is not None:
                item.setTransform(_qmatrix(M))
        origins, axes = arm.joint_axes(self._q, T)
        for i, item in enumerate(items["joints"]):
            half = (1.7 * r, 2.2 * r) if arm.revolute[i] else (1.5 * r, 1.5 * r)
            item.setTransform(_qmatrix(scene.axis_matrix(origins[i], axes[i], *half)))
        if self._options["show_com"]:
            self._place_masses(arm, T, r)
        if self._options["show_inertia"]:
            self._place_ellipsoids(arm, T)
        if self._options["show_frames"]:
            self._place_triads(T, 4.0 * r)

    def _place_masses(self, arm: NumericArm, T: np.ndarray, r: float) -> None:
        masses = np.concatenate([arm.mass, [m for _, m, _ in arm.point_masses]])
        biggest = masses.max() if len(masses) and masses.max() > 0 else 1.0
        # sphere volume proportional to mass, the heaviest 1.6 link radii across
        radius = lambda m: 1.6 * r * np.cbrt(max(m, 0.0) / biggest)  # noqa: E731
        coms = arm.com_positions(self._q, T)
        for i, item in enumerate(self._items["coms"]):
            item.setVisible(arm.mass[i] > 0)
            item.setTransform(_qmatrix(_sphere_matrix(coms[i], np.eye(3), np.full(3, radius(arm.mass[i])))))
        for item, (link, m, p) in zip(self._items["loads"], arm.point_masses):
            where = T[link + 1, :3, :3] @ p + T[link + 1, :3, 3]
            item.setTransform(_qmatrix(_sphere_matrix(where, np.eye(3), np.full(3, radius(m)))))

    def _place_ellipsoids(self, arm: NumericArm, T: np.ndarray) -> None:
        coms = arm.com_positions(self._q, T)
        for i, item in enumerate(self._items["ellipsoids"]):
            semi, axes = scene.ellipsoid_axes(arm.mass[i], arm.inertia[i])
            item.setVisible(bool(semi.max() > 0))
            item.setTransform(_qmatrix(_sphere_matrix(coms[i], T[i + 1, :3, :3] @ axes, np.maximum(semi, 1e-6))))

    def _place_triads(self, T: np.ndarray, length: float) -> None:
        origins = T[:, :3, 3]
        pos = np.empty((len(T), 3, 2, 3))
        pos[:, :, 0] = origins[:, None, :]
        pos[:, :, 1] = origins[:, None, :] + length * np.transpose(T[:, :3, :3], (0, 2, 1))
        colors = np.broadcast_to(AXIS_COLORS[None, :, None, :], (len(T), 3, 2, 4))
        self._items["triads"][0].setData(pos=pos.reshape(-1, 3), color=colors.reshape(-1, 4).copy())


def _sphere_matrix(center, rotation, semi_axes) -> np.ndarray:
    M = np.eye(4)
    M[:3, :3] = np.asarray(rotation) @ np.diag(semi_axes)
    M[:3, 3] = center
    return M

