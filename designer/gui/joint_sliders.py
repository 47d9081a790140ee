"""One slider and spin box per joint, within the joint's limits (degrees shown for revolute joints)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QDoubleSpinBox, QGridLayout, QLabel, QPushButton, QSlider, QVBoxLayout,
                               QWidget)

from ..kinematics.numeric import NumericArm
from .arm_scene import arm_reach, numeric_arm

if TYPE_CHECKING:   # the model imports sympy, which the window's first picture does without (issue 29)
    from ..model import Manipulator

__all__ = ["JointSliders", "joint_ranges"]

STEPS = 1000  # slider resolution over a joint's range
OUTSIDE_STYLE = "QDoubleSpinBox { background: #ffbebe; color: #141414; }"   # the cells' colour for a bad entry


def joint_ranges(model: Manipulator, arm: NumericArm | None = None) -> np.ndarray:
    """(n, 2) ranges in SI units: the limits, else +-pi (R) or +- the reach (P; 1 m if unknown)."""
    n = model.n
    try:
        arm = arm if arm is not None else numeric_arm(model)
        limits, reach = arm.limits, arm_reach(arm)
    except (ValueError, TypeError, ZeroDivisionError):
        limits, reach = np.full((n, 2), np.nan), 1.0
    out = np.empty((n, 2))
    for i, link in enumerate(model.links):
        lo, hi = limits[i]
        default = (-math.pi, math.pi) if link.is_revolute else (-reach, reach)
        if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
            lo, hi = default
        out[i] = lo, hi
    return out


class JointSliders(QWidget):
    """Sliders for the joint values; emits :attr:`valuesChanged` with a list of floats (rad, m)."""

    valuesChanged = Signal(list)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._outer = outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self._rows = QWidget(self)   # the rows, made anew for another arm (_rebuild)
        outer.addWidget(self._rows)
        self.home_button = QPushButton("Home")
        self.home_button.setToolTip("All joints to zero (within their limits)")
        self.home_button.clicked.connect(self.home)
        outer.addWidget(self.home_button, alignment=Qt.AlignmentFlag.AlignRight)
        outer.addStretch(1)
        self.sliders: list[QSlider] = []
        self.spins: list[QDoubleSpinBox] = []
        self._labels: list[QLabel] = []
        self._revolute: list[bool] = []
        self._ranges = np.zeros((0, 2))
        self._values = np.zeros(0)
        self._quiet = False

    # -- public API -----------------------------------------------------------
    def set_model(self, model: Manipulator | None, arm: NumericArm | None = None, values=None) -> None:
        """Rebuild for ``model`` (``arm``: its numeric arm if built); values are kept (clamped to the new
        ranges) when n is unchanged, or start at ``values`` when given (a new project's home pose)."""
        old = self._values
        n = 0 if model is None else model.n
        self._ranges = joint_ranges(model, arm) if model is not None else np.zeros((0, 2))
        revolute = [] if model is None else [l.is_revolute for l in model.links]
        if n != len(self.sliders) or revolute != self._revolute:
            self._rebuild(revolute)
        self._revolute = revolute
        if values is not None:
            values = np.asarray(values, float).ravel()
        else:
            values = old if len(old) == n else np.zeros(n)
        self._values = np.clip(values, self._ranges[:, 0], self._ranges[:, 1]) if n else np.zeros(0)
        for i in range(n):
            self._configure(i)
        self._show_values()
        if n and not np.array_equal(self._values, old):
            self.valuesChanged.emit(self.values())

    def values(self) -> list[float]:
        return [float(v) for v in self._values]

    def set_values(self, q, clamp: bool = True) -> None:
        """Set the joint values (SI units), clamped to the ranges; emits valuesChanged if they change.

        ``clamp=False`` (a simulation's playback) takes values outside the ranges as they are: the slider
        then sits at its end and the spin box shows the value in red, saying it is outside the limits."""
        q = np.asarray(q, dtype=float).ravel()
        if clamp:
            q = np.clip(q, self._ranges[:, 0], self._ranges[:, 1])
        if len(q) != len(self._values):
            raise ValueError(f"expected {len(self._values)} joint values, got {len(q)}")
        changed = not np.array_equal(q, self._values)
        self._values = q
        self._show_values()
        if changed:
            self.valuesChanged.emit(self.values())

    def home(self) -> None:
        """Every joint to zero, or to the nearest limit when zero is outside them."""
        self.set_values(np.zeros(len(self._values)))

    def ranges(self) -> np.ndarray:
        return self._ranges.copy()

    # -- internals ------------------------------------------------------------
    def _rebuild(self, revolute: list[bool]) -> None:
        """The rows for joints of these kinds, in a widget of their own that takes the old rows' place once they
        are made: added one by one to the shown window, each label, slider and spin box laid the window out
        again as it showed, and every time the 3D view above resized and drew itself (27 times opening the
        tube arm after the PUMA 560: blocks of 80-140 ms; issue 29)."""
        rows = QWidget()
        grid = QGridLayout(rows)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setColumnStretch(1, 1)
        self.sliders, self.spins, self._labels = [], [], []
        for i, is_r in enumerate(revolute):
            label = QLabel(f"q{i + 1}")
            label.setToolTip("revolute joint (degrees)" if is_r else "prismatic joint (metres)")
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(0, STEPS)
            spin = QDoubleSpinBox()
            spin.setKeyboardTracking(False)
            spin.setSuffix(" °" if is_r else " m")
            spin.setDecimals(1 if is_r else 4)
            # one width for every value it may show (a playback outside the limits widens the range): the slider
            # column kept reflowing as the range's text grew and shrank (issue 29 item 15)
            widest = 99999.9 if is_r else 999.9999
            spin.setRange(-widest, widest)
            spin.setFixedSize(max(90, spin.sizeHint().width()), spin.sizeHint().height())   # red: no smaller
            slider.valueChanged.connect(lambda v, i=i: self._from_slider(i, v))
            spin.valueChanged.connect(lambda v, i=i: self._from_spin(i, v))
            grid.addWidget(label, i, 0)
            grid.addWidget(slider, i, 1)
            grid.addWidget(spin, i, 2)
            self.sliders.append(slider)
            self.spins.append(spin)
            self._labels.append(label)
        old, self._rows = self._rows, rows
        self._outer.replaceWidget(old, rows)
        old.hide()
        old.deleteLater()

    def _display(self, i: int, value: float) -> float:
        return math.degrees(value) if self._revolute[i] else value

    def _configure(self, i: int) -> None:
        lo, hi = self._ranges[i]
        spin = self.spins[i]
        spin.blockSignals(True)
        spin.setRange(self._display(i, lo), self._display(i, hi))
        spin.setSingleStep(1.0 if self._revolute[i] else (hi - lo) / 100)
        spin.blockSignals(False)

    def outside(self) -> list[int]:
        """0-based joints whose value is outside their range (shown in red)."""
        return [i for i, v in enumerate(self._values) if not self._ranges[i, 0] <= v <= self._ranges[i, 1]]

    def _show_values(self) -> None:
        self._quiet = True
        try:
            for i, v in enumerate(self._values):
                lo, hi = self._ranges[i]
                self.sliders[i].setValue(round((min(max(v, lo), hi) - lo) / (hi - lo) * STEPS))
                spin, shown = self.spins[i], self._display(i, v)
                inside = lo <= v <= hi
                # a value outside the limits is shown as it is, in red: the spin box's range widens to hold it
                low, high = self._display(i, lo), self._display(i, hi)
                if inside and not spin.styleSheet():   # the common case, a slider drag: nothing to restyle
                    spin.setValue(shown)
                    continue
                spin.setRange(min(low, shown), max(high, shown))
                spin.setValue(shown)
                spin.setStyleSheet("" if inside else OUTSIDE_STYLE)
                unit = "°" if self._revolute[i] else " m"
                spin.setToolTip("" if inside else f"q{i + 1} = {shown:.4g}{unit} is outside its limits "
                                f"({low:.4g}{unit} to {high:.4g}{unit}): the simulated value")
        finally:
            self._quiet = False

    def _set_one(self, i: int, value: float) -> None:
        lo, hi = self._ranges[i]
        value = min(max(value, lo), hi)
        if value == self._values[i]:
            return
        self._values[i] = value
        self._show_values()
        self.valuesChanged.emit(self.values())

    def _from_slider(self, i: int, position: int) -> None:
        if not self._quiet:
            lo, hi = self._ranges[i]
            self._set_one(i, lo + (hi - lo) * position / STEPS)

    def _from_spin(self, i: int, shown: float) -> None:
        if not self._quiet:
            self._set_one(i, math.radians(shown) if self._revolute[i] else shown)
