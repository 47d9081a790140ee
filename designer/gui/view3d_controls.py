"""The 3D view's controls: camera fitting and presets, what to draw (remembered per user), and the
tool bar that offers them above the view."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolBar, QToolButton, QWidget

__all__ = ["OPTIONS", "PRESETS", "DEFAULT_ANGLES", "fit_distance", "camera_axes", "ViewBar", "load_options",
           "save_option"]

# option -> (menu text, drawn by default)
OPTIONS = {
    "show_frames": ("Link frames", True),
    "show_com": ("Centres of mass and loads", True),
    "show_inertia": ("Inertia ellipsoids", False),
    "show_grid": ("Floor grid", True),
    "show_base": ("Base", True),
    "show_gravity": ("Gravity arrow", True),
    "show_tool": ("Tool frame", True),
    "show_meshes": ("Meshes (instead of sticks, where the project has them)", True),
}
# name -> (elevation, azimuth) in degrees; front looks along +y at the x-z plane, side along -x at y-z
PRESETS = {"front": (0.0, -90.0), "side": (0.0, 0.0), "top": (90.0, -90.0), "iso": (30.0, -45.0)}
DEFAULT_ANGLES = (20.0, -60.0)
SETTINGS_GROUP = "view3d"
MARGIN = 1.08   # a little room around the arm


def camera_axes(elevation: float, azimuth: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, back) unit vectors of pyqtgraph's orbit camera at these angles (degrees); back
    points from the centre to the camera."""
    e, a = math.radians(elevation), math.radians(azimuth)
    back = np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    right = np.array([-math.sin(a), math.cos(a), 0.0])
    return right, np.cross(back, right), back


def fit_distance(points: np.ndarray, fov_deg: float, width: int, height: int, pad: float = 0.0,
                 elevation: float = DEFAULT_ANGLES[0], azimuth: float = DEFAULT_ANGLES[1]) -> tuple[np.ndarray, float]:
    """(centre, camera distance) at which every point, with ``pad`` around it, is in view.

    The camera looks from ``elevation``, ``azimuth`` (degrees, pyqtgraph's orbit camera) at the
    middle of the points as seen from there; the distance is the least at which each point (its
    sideways and upward offsets from the centre, a perspective ray through it) stays within the
    horizontal field of view (``fov_deg``, as pyqtgraph defines it) and the vertical one.
    """
    points = np.asarray(points, float).reshape(-1, 3)
    points = points[np.all(np.isfinite(points), axis=1)]
    if len(points) == 0:
        return np.zeros(3), 1.0
    right, up, back = camera_axes(elevation, azimuth)
    centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
    x, y = (points - centre) @ right, (points - centre) @ up
    centre = centre + right * 0.5 * (x.max() + x.min()) + up * 0.5 * (y.max() + y.min())
    rel = points - centre
    x, y, z = np.abs(rel @ right) + pad, np.abs(rel @ up) + pad, rel @ back + pad
    tan_h = math.tan(math.radians(fov_deg) / 2)
    tan_v = tan_h * max(height, 1) / max(width, 1)
    distance = float(np.max(np.maximum(z + x / tan_h, z + y / tan_v)))
    return centre, max(MARGIN * distance, 1e-3)


def load_options(settings: QSettings | None = None) -> dict[str, bool]:
    """The drawing options the user chose last (defaults where none was stored)."""
    settings = settings or QSettings()
    out = {}
    for name, (_text, default) in OPTIONS.items():
        value = settings.value(f"{SETTINGS_GROUP}/{name}", default)
        out[name] = value if isinstance(value, bool) else str(value).lower() in ("true", "1")
    return out


def save_option(name: str, value: bool, settings: QSettings | None = None) -> None:
    (settings or QSettings()).setValue(f"{SETTINGS_GROUP}/{name}", bool(value))


class ViewBar(QToolBar):
    """A Show menu of the drawing options, Fit, Reset and the four view presets, for an ``ArmView``."""

    def __init__(self, view, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMovable(False)
        self.setFloatable(False)
        self.view = view
        # Show first: in a narrow column the bar's last buttons go into its overflow (»), and the view presets
        # are the ones to miss (issue 29 item 15: Show went there after a resize)
        self.show_menu = QMenu("Show", self)
        self.option_actions: dict[str, QAction] = {}
        for name, (text, _default) in OPTIONS.items():
            action = QAction(text, self.show_menu)
            action.setCheckable(True)
            action.setChecked(view.option(name))
            action.toggled.connect(lambda on, n=name: view.set_option(n, on))
            self.show_menu.addAction(action)
            self.option_actions[name] = action
        button = QToolButton(self)
        button.setText("Show")
        button.setToolTip("What the 3D view draws (remembered)")
        button.setMenu(self.show_menu)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.addWidget(button)
        self.addSeparator()
        fit = self.addAction("Fit")
        fit.setToolTip("Fit the arm in the view (keeps the direction)")
        fit.triggered.connect(lambda _=False: view.fit_camera())
        reset = self.addAction("Reset")
        reset.setToolTip("Default direction, arm fitted in the view")
        reset.triggered.connect(lambda _=False: view.reset_camera())
        self.addSeparator()
        self.preset_actions = {}
        for name in PRESETS:
            action = self.addAction(name.capitalize())
            action.setToolTip(f"View from the {name}" if name != "iso" else "Isometric view")
            action.triggered.connect(lambda _=False, n=name: view.set_view(n))
            self.preset_actions[name] = action
        view.optionChanged.connect(self._sync)

    def _sync(self, name: str, on: bool) -> None:
        action = self.option_actions.get(name)
        if action is not None and action.isChecked() != on:
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)
