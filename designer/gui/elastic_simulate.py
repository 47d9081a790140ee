"""The Simulate tab's elastic-joint parts (issue 23): the "elastic joints" check box and the motor-side PD
gains, the job they make (:mod:`designer.gui.elastic_motion`), and the two plots an elastic result adds
(the tool's deviation from the rigid arm in mm, the springs' deflection theta/N - q), which take the
torque plot's place while an elastic result is shown (the tab keeps the laptop screen's height)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from ..numeric.elastic import ElasticJoints
from ..numeric.simulate import PDControl
from .elastic_motion import ELASTIC_REFUSALS, ElasticMotionResult, default_gains, elastic_job
from .explore.controls import parse_values, spin_box
from .modes import joints_or_none
from .plot_style import place_legend, plain_axes

__all__ = ["ElasticControls", "ElasticPlots", "ElasticMotionResult", "gains_row"]

TIPS = {"passive fall": "Simulate the elastic arm let go at rest from the current pose, its springs holding gravity "
                        "at the start, no motor torque; and the rigid arm's fall beside it",
        "quintic move": "Move from the current pose to the target along a quintic in the given time under the "
                        "motor-side PD, then hold; and the rigid arm's run under the same control beside it"}
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


class ElasticControls(QWidget):
    """The check box (shown for a serial project with drive stiffness) and the PD gains row (a move only)."""

    def __init__(self, parent: QWidget, run_button):
        super().__init__(parent)
        self.run_button = run_button   # its tool tip says what an elastic run does
        self.joints: ElasticJoints | None = None
        self._motion = ""
        self.check = QCheckBox("elastic joints", parent)
        self.check.setToolTip("Simulate the elastic-joint model of the drive data's stiffness (Spong's; motors "
                              "behind gearbox springs, docs/elastic.md), with the rigid arm's run beside it: the plots "
                              "show the tool's deviation from the rigid arm and the springs' deflection")
        self.kp, self.kd, self.hold = gains_row(
            self, "motor-side PD:", "",
            "Motor-side PD gain {what} at the joint side ({unit}; N/m, N·s/m for a prismatic joint): one value or "
            "one per joint. Empty: Kp a tenth of the joint's stiffness, Kd 0.7 of critical damping on the joint's "
            "inertia and reflected rotor",
            "Simulated time after the move, the reference held at the target: the tool's ring after the move, and "
            "the settling")
        self.check.setVisible(False)
        self.setVisible(False)

    @property
    def on(self) -> bool:
        return self.joints is not None and self.check.isChecked()

    def set_model(self, model) -> None:
        self.joints = joints_or_none(model) if model is not None and model.is_serial else None
        self.check.setVisible(self.joints is not None)   # the panel calls set_motion next

    def set_motion(self, name: str) -> None:
        """The gains row for an elastic move; the run button's tip for an elastic run (the panel sets the rigid
        one before it calls here, also when the check box changes)."""
        self._motion = name
        self.setVisible(self.on and name == "quintic move")
        if self.on and name in TIPS:
            self.run_button.setToolTip(TIPS[name])

    def job(self, arm, q0, duration: float, frames: int, motion: str, limits: str, target):
        """The job factory of the elastic motion (ValueError naming a bad input); ``target`` in rad or m. A move
        lasts ``duration`` and the run the hold time more."""
        joints = self.joints
        if joints is None:
            raise ValueError("Elastic joints: no joint has a drive stiffness.")
        if motion not in ("passive fall", "quintic move"):
            raise ValueError(ELASTIC_REFUSALS["trajectory CSV"])
        if limits == "stop":
            raise ValueError(ELASTIC_REFUSALS["stop"])
        E = joints.elastic
        if np.any(joints.rotor[E] <= 0):
            names = ", ".join(f"q{i + 1}" for i in E if joints.rotor[i] <= 0)
            raise ValueError(f"Elastic joints: {names} need the motor's rotor inertia (drive data, motor inertia) "
                             "for the motor side's dynamics.")
        control, span = None, duration
        if motion == "quintic move":
            kp0, kd0 = default_gains(arm, joints, q0)
            kp = np.asarray(parse_values(self.kp.text(), arm.n, "Kp", kp0), dtype=float)
            kd = np.asarray(parse_values(self.kd.text(), arm.n, "Kd", kd0), dtype=float)
            # an empty field says what it stood for (the default depends on the pose)
            self.kp.setPlaceholderText(f"Kp (N·m/rad), default here {_short(kp0)}")
            self.kd.setPlaceholderText(f"Kd (N·m·s/rad), default here {_short(kd0)}")
            if not (np.all(kp > 0) and np.all(kd >= 0) and np.all(np.isfinite(kp)) and np.all(np.isfinite(kd))):
                raise ValueError("Motor-side PD: Kp must be positive and Kd not negative, for every joint.")
            control = PDControl(kp.tolist(), kd.tolist(), list(target), list(q0), duration)
            span = duration + self.hold.value()
            frames = int(frames * span / duration) + 1
        return lambda token: elastic_job(arm, joints, q0, span, frames, token, control, limits)


class ElasticPlots:
    """The deviation and deflection plots, swapped into rows 1 and 2 of the tab's plot layout for an elastic
    result (the torque plot leaves row 1 meanwhile; a driven move's motor-torque peaks are in the status line)."""

    def __init__(self, layout: pg.GraphicsLayoutWidget, torque_plot: pg.PlotItem, x_link: pg.PlotItem):
        self.layout, self.torque_plot = layout, torque_plot
        self.deviation = pg.PlotItem(title="tool deviation from the rigid arm")
        self.deflection = pg.PlotItem(title="spring deflection θ/N − q")
        self.deviation.setLabel("left", "mm")
        self.deflection.setLabel("left", "mrad")   # set per result: mm for a prismatic joint's spring
        self.lines = []
        for plot in (self.deviation, self.deflection):
            plain_axes(plot)
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.setXLink(x_link)
            plot.addLegend(offset=(-10, 10), colCount=3, brush=pg.mkBrush(255, 255, 255, 200))
            line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888888"))
            plot.addItem(line)
            self.lines.append(line)
        self.shown = False

    def arrange(self, elastic: bool) -> None:
        if elastic == self.shown:
            return
        if elastic:
            self.layout.removeItem(self.torque_plot)
            self.layout.addItem(self.deviation, row=1, col=0)
            self.layout.addItem(self.deflection, row=2, col=0)
        else:
            self.layout.removeItem(self.deviation)
            self.layout.removeItem(self.deflection)
            self.layout.addItem(self.torque_plot, row=1, col=0)
        self.shown = elastic

    def plots(self) -> tuple:
        return (self.deviation, self.deflection) if self.shown else ()

    def show(self, result: ElasticMotionResult, revolute: list[bool]) -> str:
        """Draw the result's deviation and deflections; the status line's words about them."""
        for plot, line in zip((self.deviation, self.deflection), self.lines):
            plot.clear()
            plot.addItem(line)
        deviation = 1e3 * np.asarray(result.deviation)
        deflection = np.asarray(result.deflection)
        self.deviation.plot(result.t, deviation, pen=pg.mkPen("#444444", width=2))
        spring_units = {i: "mrad" if revolute[i] else "mm" for i in result.elastic}
        mixed = len(set(spring_units.values())) > 1   # each curve then names its own unit
        self.deflection.setLabel("left", "mrad, mm" if mixed else next(iter(spring_units.values()), "mrad"))
        for j, i in enumerate(result.elastic):
            pen = pg.mkPen(COLORS[i % len(COLORS)], width=2)
            self.deflection.plot(result.t, 1e3 * deflection[:, j], pen=pen,
                                 name=f"joint {i + 1}" + (f" ({spring_units[i]})" if mixed else ""))
        for plot in (self.deviation, self.deflection):
            plot.enableAutoRange()
            place_legend(plot)
        peak = float(deviation.max()) if len(deviation) else 0.0
        peaks: dict[str, float] = {}   # the largest deflection of each kind of spring (mrad, mm)
        for j, i in enumerate(result.elastic):
            unit = spring_units[i]
            peaks[unit] = max(peaks.get(unit, 0.0), 1e3 * float(np.abs(deflection[:, j]).max(initial=0.0)))
        springs = ", ".join(f"{value:.3g} {unit}" for unit, value in peaks.items())
        text = (f"{result.kind}: {result.t[-1]:.3g} s, {result.steps} Radau steps; tool deviation from the rigid "
                f"arm up to {peak:.3g} mm, spring deflection up to {springs or '0'}")
        if result.tau is not None:
            units = {"N·m" if rev else "N" for rev in revolute}
            text += ("; peak motor torque (joint side) " + ", ".join(f"{v:.3g}" for v in np.abs(result.tau).max(axis=0))
                     + f" {'/'.join(sorted(units))}")
        e, work = result.energy, result.work
        gap = float(np.abs(e - e[0] - work).max()) if work is not None else math.nan
        size = max(float(np.abs(e).max()), 1e-12)
        what = "work of τm less the damping's" if result.tau is not None else "damping's work"
        return text + (f". E − E(0) (rotors and springs in) and the {what} differ by at most {gap:.2g} J "
                       f"({gap / size:.1e} of E).")

def gains_row(widget: QWidget, label: str, empty: str, tip: str, hold_tip: str) -> tuple:
    """(Kp, Kd, hold): the PD row of a move laid out on ``widget``, "label [Kp] [Kd] then hold [s]"; ``tip`` and
    ``empty`` (the placeholder's tail) with {what} and {unit} for each gain."""
    kp, kd = QLineEdit(widget), QLineEdit(widget)
    for edit, what, unit in ((kp, "Kp", "N·m/rad"), (kd, "Kd", "N·m·s/rad")):
        edit.setPlaceholderText(f"{what} ({unit}){empty.format(what=what, unit=unit)}")
        edit.setToolTip(tip.format(what=what, unit=unit))
    row = QHBoxLayout(widget)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(QLabel(label, widget))
    row.addWidget(kp, 1)
    row.addWidget(kd, 1)
    hold = spin_box(widget, 0.0, 60.0, 1.0, decimals=2, suffix=" s", tip=hold_tip)
    row.addWidget(QLabel("then hold", widget))
    row.addWidget(hold)
    return kp, kd, hold


def _short(values) -> str:
    values = list(values)
    if all(math.isclose(v, values[0]) for v in values):
        return f"{values[0]:.3g}"
    return ", ".join(f"{v:.3g}" for v in values)
