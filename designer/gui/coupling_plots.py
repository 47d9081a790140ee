"""Coupling and Coriolis/centrifugal plots of a joint pair (pyqtgraph), following the joint sliders.

Tab "Against a joint": M_ij, M_ij / sqrt(M_ii M_jj) and the B and C coefficients
that link joints i and j, with one joint swept over its range and the others
at the slider values. Tab "Against a parameter": one quantity against a design
parameter, one curve per value of a second parameter. The numbers come from
:mod:`designer.explore.coupling`. A closed chain is plotted over its actuated joints, named by their
links (q1, q2, q4, q6 for the palletizer), its curves computed in a worker (coupling_jobs.py).
"""

from __future__ import annotations

import math
import time
from typing import Any
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPushButton, QTabWidget, QVBoxLayout, QWidget)

from ..errors import DesignerError
from ..explore.coupling import ParameterGrid, Quantity, Sweep, default_range, parameter_grid, sweep_joint, write_csv
from ..explore.joints import ExploreJoints, explore_arm, explore_joints
from ..kinematics import NumericArm
from ..model import Manipulator
from ..model.units import inertial_unit, parameter_units, with_unit
from .coupling_jobs import CouplingWork, JointBox, joint_sweep_job, parameter_sweep_job
from .folders import last_folder, remember_folder
from .job_runner import JobRunner
from .message_line import MessageLine
from .joint_sliders import joint_ranges
from .plot_style import fit_y, new_plot, pen, save_svg
from .scroll_column import narrow_buttons

__all__ = ["CouplingPanel"]

THROTTLE_MS = 80        # at least this long between recomputations while a slider is dragged
JOINT_POINTS = 121
PARAMETER_POINTS = 41
COEFFICIENTS = (Quantity.CORIOLIS_I, Quantity.CORIOLIS_J, Quantity.CENTRIFUGAL_IJ, Quantity.CENTRIFUGAL_JI)


class CouplingPanel(CouplingWork, QWidget):
    """Plots for a joint pair; call :meth:`set_model` and :meth:`set_joint_values` (rad, m)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        pg.setConfigOptions(antialias=True)
        self.model: Manipulator | None = None
        self.arm: Any = None   # NumericArm, or a closed chain's ActuatedArm (its actuated joints)
        self.joints: ExploreJoints | None = None
        self.q = np.zeros(0)
        self.sweeps: dict[str, Sweep | None] = {"joint": None, "parameter": None}
        self._grid: ParameterGrid | None = None
        self._grid_key: tuple | None = None
        self._updating = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(THROTTLE_MS)
        self._timer.timeout.connect(self._follow)
        self.plot_coupling = self.plot_normalised = self.plot_coefficients = self.plot_parameter = None
        self.joint_markers: list = []
        self.parameter_marker: Any = None
        self._build()

    # -- layout -----------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.joint_i, self.joint_j = JointBox(), JointBox()
        for box in (self.joint_i, self.joint_j):
            box.valueChanged.connect(self._pair_changed)
        top.addWidget(QLabel("Pair:"))
        top.addWidget(self.joint_i)
        top.addWidget(self.joint_j)
        top.addStretch(1)
        self.buttons = {}
        for name, slot in (("PNG…", lambda: self._export_dialog("png")), ("SVG…", lambda: self._export_dialog("svg")),
                           ("CSV…", lambda: self._export_dialog("csv"))):
            button = QPushButton(name)
            button.setToolTip(f"Export the shown plot as {name[:3]}" if name != "CSV…" else "Export the plotted data")
            button.clicked.connect(slot)
            narrow_buttons(button)
            top.addWidget(button)
            self.buttons[name[:3].lower()] = button
        outer.addLayout(top)
        self.status = MessageLine("", self)   # a long message (a closed chain's note) must not widen the tab
        self.status.setStyleSheet("color: #8a1c1c;")
        self.status.hide()
        outer.addWidget(self.status)
        # a closed chain's curves close its loops at every point: computed in a worker (coupling_jobs.py)
        self.runner = JobRunner(self, status_line=False, show_errors=False, hide_when_idle=True)
        outer.addWidget(self.runner)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_joint_tab(), "Against a joint")
        self.tabs.addTab(self._build_parameter_tab(), "Against a parameter")
        self.tabs.currentChanged.connect(self._settings_changed)
        outer.addWidget(self.tabs, 1)

    def _build_joint_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        row = QHBoxLayout()
        self.swept_joint = QComboBox()
        self.swept_joint.currentIndexChanged.connect(self._settings_changed)
        row.addWidget(QLabel("Swept joint:"))
        row.addWidget(self.swept_joint)
        row.addStretch(1)
        layout.addLayout(row)
        self.joint_plots = pg.GraphicsLayoutWidget()   # its plots on first show (make_plots)
        self.joint_plots.setBackground("w")
        layout.addWidget(self.joint_plots, 1)
        return page

    def _build_parameter_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        form = QFormLayout()
        self.parameter = QComboBox()
        self.parameter.currentIndexChanged.connect(self._parameter_chosen)
        self.range_lo, self.range_hi = QDoubleSpinBox(), QDoubleSpinBox()
        for box in (self.range_lo, self.range_hi):
            box.setDecimals(4)
            box.setRange(-1e6, 1e6)
            box.setMinimumWidth(box.fontMetrics().horizontalAdvance("-0000.0000") + 30)   # not "-1000000.0000"
            box.setKeyboardTracking(False)
            box.valueChanged.connect(self._settings_changed)
        span = QHBoxLayout()
        span.addWidget(self.parameter, 1)
        span.addWidget(QLabel("from"))
        span.addWidget(self.range_lo)
        span.addWidget(QLabel("to"))
        span.addWidget(self.range_hi)
        form.addRow("Parameter:", span)
        self.second = QComboBox()
        self.second.currentIndexChanged.connect(self._second_chosen)
        self.second_values = QLineEdit()
        self.second_values.setPlaceholderText("values, e.g. 1, 2, 3")
        self.second_values.editingFinished.connect(self._settings_changed)
        curves = QHBoxLayout()
        curves.addWidget(self.second, 1)
        curves.addWidget(QLabel("at"))
        curves.addWidget(self.second_values, 2)
        form.addRow("Curves for:", curves)
        self.quantity = QComboBox()
        self.quantity.currentIndexChanged.connect(self._settings_changed)
        form.addRow("Quantity:", self.quantity)
        layout.addLayout(form)
        self.parameter_plots = pg.GraphicsLayoutWidget()
        self.parameter_plots.setBackground("w")
        layout.addWidget(self.parameter_plots, 1)
        return page

    def make_plots(self) -> None:
        """Build the four plots, once: on the panel's first show or first curve (a quarter of the window's
        build, issue 29; a window whose Coupling tab is never opened never builds them)."""
        if self.plots_made():
            return
        self.plot_coupling = new_plot(self.joint_plots, 0, "Coupling inertia")
        self.plot_normalised = new_plot(self.joint_plots, 1, "Normalised coupling")
        self.plot_coefficients = new_plot(self.joint_plots, 2, "Coriolis (B) and centrifugal (C) coefficients")
        for plot in (self.plot_normalised, self.plot_coefficients):
            plot.setXLink(self.plot_coupling)
        self.plot_coupling.getAxis("left").setLabel("kg m²")
        self.plot_coefficients.getAxis("left").setLabel("kg m²")
        self.plot_parameter = new_plot(self.parameter_plots, 0, "")
        markers = [pg.InfiniteLine(angle=90, pen=pg.mkPen("#888888", style=pg.QtCore.Qt.PenStyle.DotLine))
                   for _ in range(4)]
        for plot, marker in zip(self.plots_made(), markers):
            plot.addItem(marker, ignoreBounds=True)
        self.joint_markers, self.parameter_marker = markers[:3], markers[3]

    def plots_made(self) -> list:
        """The plots, once built (an empty list before: nothing to clear)."""
        if self.plot_coupling is None:
            return []
        return [self.plot_coupling, self.plot_normalised, self.plot_coefficients, self.plot_parameter]

    # -- public API -----------------------------------------------------------
    def set_model(self, model: Manipulator | None, arm: NumericArm | None = None) -> None:
        """Show plots for ``model`` (symbols at their default values; ``arm``: its numeric arm if built).
        A closed chain is plotted over its actuated joints (its ActuatedArm), named by their links."""
        self.model = model
        self._grid, self._grid_key = None, None
        self.runner.cancel()
        self.joints = None if model is None else explore_joints(model)
        try:
            # the metrics' arm (explore_arm: a closed chain's over its actuated joints); the window's own when it has
            # one for these very joints
            self.arm = None if model is None or self.joints is None else arm \
                if arm is not None and arm.n == self.joints.n else explore_arm(model)
        except (ValueError, TypeError, ZeroDivisionError, DesignerError) as exc:   # a loop that cannot close
            self.arm = None
            self._show_status(f"Cannot plot: {exc}")
        n = 0 if self.arm is None else self.arm.n
        if len(self.q) != n:
            self.q = np.zeros(n)
        self._quiet(True)
        try:
            self._fill_controls(n)
        finally:
            self._quiet(False)
        self._follow()

    def forget_project(self) -> None:
        """Another project replaced the open one: no curve or message of the old one stays until the new
        one's are drawn (its closed-chain job was cancelled with it)."""
        self._timer.stop()
        self.sweeps = {"joint": None, "parameter": None}
        for plot in self.plots_made():
            plot.clearPlots()
        self._show_status("")

    def set_joint_values(self, q) -> None:
        """Follow the joint sliders; recomputation is throttled."""
        q = np.asarray(q, dtype=float).ravel()
        if self.joints is not None:
            q = self.joints.pose(q)   # a closed chain's tree pose: its actuated joints
        if self.arm is not None and len(q) == self.arm.n:
            self.q = q
            if not self._timer.isActive():
                self._timer.start()

    def pair(self) -> tuple[int, int]:
        """The chosen joints, 0-based."""
        return self.joint_i.value() - 1, self.joint_j.value() - 1

    def set_pair(self, i: int, j: int) -> None:
        """Choose joints i, j (0-based); the swept joint becomes the outer one of the two."""
        self._quiet(True)
        self.joint_i.setValue(i + 1)
        self.joint_j.setValue(j + 1)
        self.swept_joint.setCurrentIndex(max(i, j))
        self._fill_quantities()
        self._quiet(False)
        self.refresh()

    def set_swept_joint(self, k: int) -> None:
        self.swept_joint.setCurrentIndex(k)

    def set_parameter_sweep(self, name: str, lo: float, hi: float, second: str | None = None,
                            values=(), quantity: Quantity = Quantity.COUPLING) -> None:
        """Choose the parameter sweep shown in the second tab (and show that tab)."""
        self._quiet(True)
        try:
            self.parameter.setCurrentText(name)
            self.range_lo.setValue(lo)
            self.range_hi.setValue(hi)
            self.second.setCurrentText(second or "(none)")
            self.second_values.setText(", ".join(f"{v:g}" for v in values))
            self.quantity.setCurrentIndex(list(Quantity).index(quantity))
            self.tabs.setCurrentIndex(1)
        finally:
            self._quiet(False)
        self.refresh()

    def curve_data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """{legend name: (x, y)} of the curves on the shown tab, as drawn."""
        self.make_plots()
        plots = [self.plot_coupling, self.plot_normalised, self.plot_coefficients] \
            if self.tabs.currentIndex() == 0 else [self.plot_parameter]
        return {item.name(): item.getData() for plot in plots for item in plot.listDataItems()}

    def export_image(self, path: str | Path) -> None:
        """Save the shown plots as PNG or SVG (by the file's suffix)."""
        path = Path(path)
        self.make_plots()
        layout = self.joint_plots if self.tabs.currentIndex() == 0 else self.parameter_plots
        if path.suffix.lower() == ".svg":
            save_svg(layout, path, "Coupling plot")
        else:
            exporter = pg_exporters.ImageExporter(layout.ci)
            exporter.parameters()["width"] = max(layout.width(), 800)
            exporter.export(str(path))

    def export_csv(self, path: str | Path) -> None:
        """Save the data of the shown tab as CSV (SI units)."""
        sweep = self.sweeps["joint" if self.tabs.currentIndex() == 0 else "parameter"]
        if sweep is None:
            raise ValueError("nothing is plotted")
        with open(path, "w", newline="", encoding="utf-8") as stream:
            write_csv(sweep, stream)

    # -- internals ------------------------------------------------------------
    def _quiet(self, on: bool) -> None:
        self._updating = on

    def _show_status(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def _fill_controls(self, n: int) -> None:
        for box in (self.joint_i, self.joint_j):
            box.setRange(1, max(n, 1))
        if n >= 2 and self.joint_i.value() == self.joint_j.value():
            self.joint_i.setValue(1)
            self.joint_j.setValue(2)
        keep = self.swept_joint.currentIndex()
        self.swept_joint.clear()
        names = list(self.joints.names) if self.joints is not None else [f"q{k + 1}" for k in range(n)]
        for box in (self.joint_i, self.joint_j):
            box.names = names
            box.lineEdit().setText(box.textFromValue(box.value()))
        self.swept_joint.addItems(names)
        self.swept_joint.setCurrentIndex(keep if 0 <= keep < n else min(1, n - 1))
        names = [] if self.model is None else [s for s in self.model.symbol_names()
                                               if s in self.model.parameter_values and s != "g"]
        chosen, second = self.parameter.currentText(), self.second.currentText()
        self.parameter.clear()
        self.parameter.addItems(names)
        self.second.clear()
        self.second.addItems(["(none)"] + names)
        if chosen in names:
            self.parameter.setCurrentText(chosen)
        elif names:
            self._reset_range(names[0])
        if second in names:
            self.second.setCurrentText(second)
        self._fill_quantities()

    def _fill_quantities(self) -> None:
        i, j = self.pair()
        keep = max(self.quantity.currentIndex(), 0)
        self.quantity.clear()
        self.quantity.addItems([q.label(i, j, self._numbers()) for q in Quantity])
        self.quantity.setCurrentIndex(keep)

    def _reset_range(self, name: str) -> None:
        if self.model is None:
            return
        lo, hi = default_range(self.model, name)
        self.range_lo.setValue(lo)
        self.range_hi.setValue(hi)

    def _parameter_chosen(self) -> None:
        if not self._updating and self.parameter.currentText():
            self._quiet(True)
            self._reset_range(self.parameter.currentText())
            self._quiet(False)
            self._settings_changed()

    def _second_chosen(self) -> None:
        if self._updating:
            return
        name = self.second.currentText()
        value = None if self.model is None else self.model.parameter_values.get(name)
        self.second_values.setText("" if value is None else ", ".join(f"{f * value:.4g}" for f in (0.5, 1.0, 1.5)))
        self._settings_changed()

    def _pair_changed(self, *_) -> None:
        if not self._updating:
            i, j = self.pair()
            self._quiet(True)
            self.swept_joint.setCurrentIndex(max(i, j))
            self._quiet(False)
            self._settings_changed()

    def _settings_changed(self, *_) -> None:
        if not self._updating:
            self._quiet(True)
            self._fill_quantities()
            self._quiet(False)
            self.refresh()

    def showEvent(self, event):
        super().showEvent(event)
        self.make_plots()
        self.refresh()

    def refresh(self) -> None:
        """Recompute and redraw the shown tab now."""
        self._timer.stop()
        started = time.perf_counter()
        try:
            self._refresh()
        finally:
            # while dragging, leave the GUI thread at least twice the computing time to itself
            spent_ms = 1000 * (time.perf_counter() - started)
            self._timer.setInterval(int(max(THROTTLE_MS, 2 * spent_ms)))

    def _refresh(self) -> None:
        if self.arm is None or self.arm.n < 2:
            for plot in self.plots_made():
                plot.clearPlots()
            if self.arm is not None:
                self._show_status("Coupling needs at least two joints.")
            return
        i, j = self.pair()
        if i == j:
            return self._show_status("Choose two different joints.")
        try:
            if self.tabs.currentIndex() == 0:
                self._draw_joint_sweep(i, j)
            else:
                self._draw_parameter_sweep(i, j)
        except ValueError as exc:
            return self._show_status(str(exc))
        self._show_status("")

    def _shown(self) -> tuple[Manipulator, NumericArm]:
        """The model and arm on display (ValueError, shown as the status, when there is none)."""
        if self.model is None or self.arm is None:
            raise ValueError("no arm to plot")
        return self.model, self.arm

    def _draw_joint_sweep(self, i: int, j: int) -> None:
        model, arm = self._shown()
        k = max(self.swept_joint.currentIndex(), 0)
        tree_k = self.joints.index[k] if self.joints is not None else k
        lo, hi = joint_ranges(model)[tree_k]
        values = np.linspace(lo, hi, JOINT_POINTS)
        if self._in_worker():
            q = self.q.copy()
            self._run("Coupling", lambda token: joint_sweep_job(arm, q, i, j, k, values, token),
                      lambda sweep: self._show_joint_sweep(sweep, k, q))
            return
        self._show_joint_sweep(sweep_joint(arm, self.q, i, j, k, values), k, self.q)

    def _show_joint_sweep(self, sweep: Sweep, k: int, q: np.ndarray) -> None:
        i, j = sweep.pair
        arm = self._shown()[1]
        self.sweeps["joint"] = sweep
        curve = sweep.curves[""]
        revolute = bool(arm.revolute[k])
        x = np.degrees(sweep.x) if revolute else sweep.x
        unit = "deg" if revolute else "m"
        self.make_plots()
        for plot in (self.plot_coupling, self.plot_normalised, self.plot_coefficients):
            plot.clearPlots()
        self.plot_coupling.plot(x, curve[Quantity.COUPLING], pen=pen(0), name=sweep.label(Quantity.COUPLING))
        self.plot_normalised.plot(x, curve[Quantity.NORMALISED], pen=pen(1), name=sweep.label(Quantity.NORMALISED))
        for n, quantity in enumerate(COEFFICIENTS):
            self.plot_coefficients.plot(x, curve[quantity], pen=pen(n + 2, dashed=n >= 2), name=sweep.label(quantity))
        for plot in (self.plot_coupling, self.plot_normalised, self.plot_coefficients):
            fit_y(plot)
        self.plot_coefficients.getAxis("bottom").setLabel(f"{self.swept_joint.itemText(k)} ({unit})")
        self.plot_coupling.getAxis("left").setLabel(with_unit(sweep.label(Quantity.COUPLING),
                                                              self._unit(Quantity.COUPLING, i, j)))
        self.plot_normalised.getAxis("left").setLabel("1")
        self.plot_coefficients.getAxis("left").setLabel(
            " / ".join(dict.fromkeys(self._unit(q, i, j) for q in COEFFICIENTS)))
        marker = math.degrees(q[k]) if revolute else q[k]
        for line in self.joint_markers:
            line.setValue(marker)

    def _unit(self, quantity: Quantity, i: int, j: int) -> str:
        """SI unit of a plotted quantity of joints i, j (0-based), from the joints' types."""
        r = list(self.joints.revolute) if self.joints is not None else [l.is_revolute for l in self._shown()[0].links]
        return {Quantity.COUPLING: inertial_unit(r[i], r[j]), Quantity.NORMALISED: "1",
                Quantity.CORIOLIS_I: inertial_unit(r[i], r[i], r[j]),
                Quantity.CORIOLIS_J: inertial_unit(r[j], r[i], r[j]),
                Quantity.CENTRIFUGAL_IJ: inertial_unit(r[i], r[j], r[j]),
                Quantity.CENTRIFUGAL_JI: inertial_unit(r[j], r[i], r[i])}[quantity]

    def _draw_parameter_sweep(self, i: int, j: int) -> None:
        model = self._shown()[0]
        name = self.parameter.currentText()
        if not name:
            raise ValueError("the model has no parameters with default values to sweep")
        chosen = self.second.currentText()
        second = None if chosen in ("", "(none)") else chosen
        seconds: tuple[float, ...] = ()
        if second is not None:
            try:
                seconds = tuple(float(t) for t in self.second_values.text().replace(";", ",").split(",") if t.strip())
            except ValueError:
                raise ValueError(f"values of {second}: expected numbers separated by commas") from None
        lo, hi = self.range_lo.value(), self.range_hi.value()
        key = (name, lo, hi, second, seconds)
        if self._in_worker():
            grid = self._grid if key == self._grid_key else None
            q = self.q.copy()

            def keep(sweep_and_grid):
                self._grid, self._grid_key = sweep_and_grid[1], key
                return sweep_and_grid[0]
            self._run("Coupling", lambda token: parameter_sweep_job(
                model, grid, name, np.linspace(lo, hi, PARAMETER_POINTS), second, seconds, q, i, j, token),
                lambda result: self._show_parameter_sweep(keep(result), name, lo))
            return
        if self._grid is None or key != self._grid_key:
            self._grid = parameter_grid(model, name, np.linspace(lo, hi, PARAMETER_POINTS), second, seconds)
            self._grid_key = key
        self._show_parameter_sweep(self._grid.evaluate(self.q, i, j), name, lo)

    def _show_parameter_sweep(self, sweep: Sweep, name: str, lo: float) -> None:
        model = self._shown()[0]
        i, j = sweep.pair
        self.sweeps["parameter"] = sweep
        quantity = list(Quantity)[max(self.quantity.currentIndex(), 0)]
        self.make_plots()
        plot = self.plot_parameter
        plot.clearPlots()
        for n, (label, curve) in enumerate(sweep.curves.items()):
            plot.plot(sweep.x, curve[quantity], pen=pen(n), name=label or sweep.label(quantity))
        fit_y(plot)
        plot.setTitle(f"{sweep.label(quantity)} against {name}", color="#222222")
        plot.getAxis("bottom").setLabel(with_unit(name, parameter_units(model).get(name, "")))
        plot.getAxis("left").setLabel(with_unit(sweep.label(quantity), self._unit(quantity, i, j)))
        self.parameter_marker.setValue(model.parameter_values.get(name, lo))

    def _export_dialog(self, kind: str) -> None:
        filters = {"png": "PNG image (*.png)", "svg": "SVG image (*.svg)", "csv": "CSV data (*.csv)"}
        path, _ = QFileDialog.getSaveFileName(self, "Export", str(last_folder() / f"coupling.{kind}"), filters[kind])
        if path:
            remember_folder(path)
        if not path:
            return
        try:
            self.export_csv(path) if kind == "csv" else self.export_image(path)
        except (OSError, ValueError) as exc:
            self._show_status(f"Export failed: {exc}")
