"""Sizing view: joint torque, speed and power along a move (quintic from the current pose, a CSV
trajectory, or the ISO 9283 test-cube path of :mod:`designer.explore.iso9283`), peak and RMS per joint
with gears and rotor inertias, and the payload envelope (the
largest payload against its offset from the flange) when rated torques are given
(:mod:`designer.explore.sizing`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFileDialog, QGridLayout, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from ...jobs import CancelToken, Job, Progress
from ...kinematics import NumericArm
from ...model import Manipulator
from ..folders import last_folder, remember_folder
from . import drive_defaults
from .base import ExploreView, tip_whole_texts
from .context import ExploreContext
from .controls import header_tips, parse_values, spin_box
from .plots import HeatMap, PlotBox

if TYPE_CHECKING:   # imported where used: the sizing code loads only when a sizing runs
    from ...explore.iso9283 import TestCube
    from ...explore.sizing import SizingResult

__all__ = ["SizingView", "SizingOutput", "sizing_job"]

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
# (key of SizingResult.table(), header, tooltip)
COLUMNS = (("peak_torque", "peak τ", "peak joint torque (N m or N)"),
           ("rms_torque", "RMS τ", "root-mean-square joint torque over the move"),
           ("peak_speed", "peak q̇", "peak joint speed (rad/s or m/s)"),
           ("peak_power", "peak P", "peak mechanical power τ q̇ (W)"),
           ("motor_peak_torque", "motor τ", "peak torque at the motor: τ / gear ratio"),
           ("motor_peak_speed", "motor q̇", "peak motor speed: q̇ × gear ratio"),
           ("inertia_ratio_max", "J ratio", "largest load-to-rotor inertia ratio M_ii / (N² Jm)"))
SOURCES = ("quintic move", "trajectory CSV", "ISO 9283 test cube")
QUANTITIES = {"torque (N m or N)": "torque", "speed (rad/s or m/s)": "speed", "power (W)": "power"}


@dataclass(frozen=True)
class SizingOutput:
    sizing: SizingResult
    radial: np.ndarray | None = None   # payload offsets along the flange's x axis (m)
    axial: np.ndarray | None = None    # and along its z axis (m)
    payload: np.ndarray | None = None  # [iz, ix] largest payload mass (kg)
    cube: TestCube | None = None       # the ISO 9283 test cube when the move is the cube path


def sizing_job(arm: NumericArm, move, gear, rotor, payload, token: CancelToken) -> Job[SizingOutput]:
    """``move``: ("quintic", q0, q1, duration, steps), ("csv", path) or ("cube", seed, centre, edge,
    tool speed, steps) with centre None to search the largest cube; ``payload``: None or
    (rated torque, reach, count) for the envelope over a count x count grid of offsets."""
    from ...explore.joint_names import joint_numbers
    from ...explore.sizing import payload_envelope, quintic, read_trajectory, size_motors
    cube = None
    if move[0] == "cube":
        from ...explore.iso9283 import cube_path, find_test_cube, test_cube
        _kind, seed, centre, edge, speed, steps = move
        cube = (yield from find_test_cube(arm)) if centre is None else test_cube(arm, centre, edge, seed=seed)
        traj = cube_path(arm, cube, speed, max(3, (steps - 1) // 5 + 1)).trajectory
    else:
        traj = quintic(*move[1:]) if move[0] == "quintic" else read_trajectory(move[1], arm.n, joint_numbers(arm))
    yield Progress("torques", 0.0, f"{len(traj.t)} states")
    sizing = size_motors(arm, traj, gear, rotor)
    if payload is None:
        return SizingOutput(sizing, cube=cube)
    torque, reach, count = payload
    radial = axial = np.linspace(0.0, reach, count)
    values = np.empty((count, count))
    for iz, z in enumerate(axial):
        token.check()
        offsets = np.column_stack([radial, np.zeros(count), np.full(count, z)])
        values[iz] = payload_envelope(arm, offsets, torque, traj.q, traj.qd, traj.qdd)
        yield Progress("payload envelope", (iz + 1) / count, f"offset z = {z:.3g} m")
    return SizingOutput(sizing, radial, axial, values, cube)


class SizingView(ExploreView):
    action = "Size"

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.result: SizingOutput | None = None
        self.target = QLineEdit(self)
        self.target.setPlaceholderText("target pose: one value per joint (deg or m)")
        self.csv = QLineEdit(self)
        self.csv.setPlaceholderText("or a trajectory CSV: t, q1..qn [, qd1.., qdd1..]")
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        self.source = QComboBox(self)
        self.source.addItems(list(SOURCES))
        self.source.setToolTip("What to size along: a quintic move from the current pose, a CSV trajectory, or\n"
                               "the ISO 9283 path P1-P2-P3-P4-P5-P1 on the test cube's diagonal plane")
        self.cube = QLineEdit(self)
        self.cube.setPlaceholderText("cube centre x, y, z, edge (m)")
        self.cube.setToolTip("ISO 9283 test cube: centre x, y, z and edge in metres; empty: search the largest")
        self.cube_speed = spin_box(self, 0.001, 10.0, 0.25, decimals=3, suffix=" m/s",
                                   tip="Peak tool speed on each straight segment of the cube path")
        self.duration = spin_box(self, 0.01, 1e4, 1.0, suffix=" s", tip="Duration of the quintic move (rest to rest)")
        self.steps = spin_box(self, 2, 100_000, 201, tip="States along the move")
        self.gear = QLineEdit(self)
        self.gear.setPlaceholderText("gear ratios (1)")
        self.rotor = QLineEdit(self)
        self.rotor.setPlaceholderText("rotor inertias, kg m² (0)")
        self.payload = QCheckBox("payload envelope", self)
        self.payload.setToolTip("The largest payload against its offset from the flange (needs the rated torque)")
        self.reach = spin_box(self, 0.01, 10.0, 0.3, suffix=" m",
                              tip="Largest payload offset from the flange, along its x and z axes")
        self.quantity = QComboBox(self)
        self.quantity.addItems(list(QUANTITIES))
        self.quantity.currentIndexChanged.connect(lambda _=0: self._draw())
        self.run_button = QPushButton("Size", self)
        self.run_button.clicked.connect(self.run)
        # three columns (what, the long field, a small one): fits the panel's column
        grid = QGridLayout()
        grid.addWidget(self.source, 0, 0)
        grid.addWidget(self.target, 0, 1)
        grid.addWidget(self.duration, 0, 2)
        grid.addWidget(self.csv, 1, 1)
        grid.addWidget(browse, 1, 2)
        grid.addWidget(self.cube, 2, 1)
        grid.addWidget(self.cube_speed, 2, 2)
        grid.addWidget(QLabel("states", self), 3, 0)
        grid.addWidget(self.steps, 3, 2)
        drive = QHBoxLayout()
        drive.addWidget(self.gear, 1)
        drive.addWidget(self.rotor, 1)
        grid.addWidget(QLabel("drive", self), 4, 0)
        grid.addLayout(drive, 4, 1, 1, 2)
        load = QHBoxLayout()
        load.addWidget(self.payload)
        load.addWidget(self.reach)
        load.addStretch(1)
        load.addWidget(self.run_button)
        grid.addLayout(load, 5, 0, 1, 3)
        grid.setColumnStretch(1, 1)

        self.table = QTableWidget(0, len(COLUMNS) + 1, self)
        self.table.setHorizontalHeaderLabels(["joint"] + [c[1] for c in COLUMNS])
        header_tips(self.table, ((c, tip) for c, (_key, _title, tip) in enumerate(COLUMNS, start=1)))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.curves = PlotBox(self.curve_csv, self)
        self.curves.add_legend()
        self.curves.on_build(lambda box: box.plot.setLabel("bottom", "t (s)"))
        self.load = PlotBox(self.payload_csv, self)
        self.heat = HeatMap(self.load)
        self.load.on_build(lambda box: (box.plot.setLabel("bottom", "offset along the flange's x (m)"),
                                        box.plot.setLabel("left", "offset along z (m)")))
        for box in (self.curves, self.load):
            box.failed.connect(context.show_error)
            box.exported.connect(lambda p: context.show_status(f"Wrote {p}"))
        self.load.hide()
        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.table)
        top_layout.addWidget(self.quantity, alignment=Qt.AlignmentFlag.AlignLeft)
        split = QSplitter(Qt.Orientation.Vertical, self)
        for w in (top, self.curves, self.load):
            split.addWidget(w)
        split.setSizes([200, 300, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(grid)
        self.add_banner(layout, 1)
        layout.addWidget(split, 1)

    def set_model(self, model: Manipulator) -> None:
        self.check_stale(model)
        self.revolute = list(self.context.joints(model).revolute)   # a closed chain: its actuated joints
        drive_defaults.show({"gear": self.gear, "rotor": self.rotor}, model,
                            {"gear": "gear ratios (1)", "rotor": "rotor inertias, kg m² (0)"})

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Trajectory", str(last_folder()), "CSV (*.csv);;All files (*)")
        if path:
            remember_folder(path)
            self.csv.setText(path)
            self.source.setCurrentText("trajectory CSV")

    def motion(self, n: int):   # not "move": that name is QWidget.move
        """The trajectory the inputs describe (raises ValueError naming the bad input)."""
        if self.source.currentText() == "ISO 9283 test cube":
            parts = [p for p in self.cube.text().replace(",", " ").split() if p]
            if parts and len(parts) != 4:
                raise ValueError("test cube: give the centre x, y, z and the edge (4 numbers, m), or nothing")
            values = parse_values(self.cube.text(), 4, "test cube")
            centre, edge = (None, None) if values is None else (values[:3], float(values[3]))
            return ("cube", self.context.q.copy(), centre, edge, self.cube_speed.value(), self.steps.value())
        path = self.csv.text().strip()
        if not path and self.source.currentText() == "trajectory CSV":
            raise ValueError("give a trajectory CSV (t, q1..qn)")
        if path:
            if not Path(path).is_file():
                raise ValueError(f"{path}: no such file")
            return ("csv", path)
        target = parse_values(self.target.text(), n, "target pose")
        if target is None:
            raise ValueError("give a target pose (one value per joint, deg or m) or a trajectory CSV")
        scale = np.where(self.revolute, math.pi / 180.0, 1.0)
        return ("quintic", self.context.q.copy(), target * scale, self.duration.value(), self.steps.value())

    def run(self):
        def start():
            arm = self.context.arm()
            n = arm.n
            move = self.motion(n)
            gear = parse_values(self.gear.text(), n, "gear ratios")
            rotor = parse_values(self.rotor.text(), n, "rotor inertias")
            drives = drive_defaults.fill({"gear": gear, "rotor": rotor}, self.context.model)  # empty: the project's
            gear, rotor = drives["gear"], drives["rotor"]
            payload = None
            if self.payload.isChecked():
                torque = self.context.ratings(n).torque
                if torque is None:
                    raise ValueError("the payload envelope needs the joints' rated torque (Rated fields above)")
                payload = (torque, self.reach.value(), 21)
            return self.context.run_job("Sizing", lambda token: sizing_job(arm, move, gear, rotor, payload, token),
                                        self.show_result, owner=self)
        return self.context.guarded("Sizing", start)

    def show_result(self, result: SizingOutput) -> None:
        self.result = result
        rows = result.sizing.table()
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(self._joint_name(int(row["joint"]))))
            for c, (key, _title, _tip) in enumerate(COLUMNS, start=1):
                v = row[key]
                self.table.setItem(r, c, QTableWidgetItem("—" if not math.isfinite(v) else f"{v:.4g}"))
        tip_whole_texts(self.table)
        self._draw()
        if result.payload is not None and result.radial is not None and result.axial is not None:
            self.load.show()
            shown = np.where(np.isfinite(result.payload), result.payload, np.nan)
            self.heat.set_data(result.radial, result.axial, shown)
            best = result.payload[0, 0]
            self.load.plot.setTitle("largest payload (kg)")
            self.load.caption.setText(f"payload at the flange: up to {best:.4g} kg along the whole move")
        else:
            self.load.hide()

    def _joint_name(self, k: int) -> str:
        """Joint ``k`` (1-based) as the table names it: its number, a closed chain's by its link (q4)."""
        model = self._model_for_units()
        joints = self.context.joints(model) if model is not None else None
        if joints is None or not joints.closed or k > joints.n:
            return str(k)
        return joints.name(k)

    def _draw(self) -> None:
        if self.result is None:
            return
        s = self.result.sizing
        what = QUANTITIES[self.quantity.currentText()]
        data = {"torque": s.torque, "speed": s.traj.qd, "power": s.power}[what]
        plot = self.curves.plot
        plot.clear()
        for i in range(data.shape[1]):
            plot.plot(s.traj.t, data[:, i], name=f"joint {self._joint_name(i + 1)}",
                      pen=pg.mkPen(COLORS[i % len(COLORS)], width=2))
        plot.setLabel("left", self.quantity.currentText())
        text = f"{what} along the move ({len(s.traj.t)} states)"
        cube = self.result.cube
        if cube is not None:
            c = ", ".join(f"{v:.4g}" for v in cube.centre)
            text += f"; ISO 9283 path P1-P2-P3-P4-P5-P1 on the cube centred at ({c}) m, edge {cube.edge:.4g} m"
        self.curves.caption.setText(text)

    def curve_csv(self):
        if self.result is None:
            raise ValueError("nothing sized yet")
        self.require_fresh()
        s = self.result.sizing
        n = s.torque.shape[1]
        rev = list(self.revolute) if len(self.revolute) == n else [True] * n
        units = {"q": ("rad", "m"), "qd": ("rad/s", "m/s"), "qdd": ("rad/s²", "m/s²"), "tau": ("N m", "N"),
                 "power": ("W", "W")}
        header = ["t (s)"] + [f"{k}{i + 1} ({units[k][0 if rev[i] else 1]})" for k in units for i in range(n)]
        return header, [list(r) for r in np.column_stack([s.traj.t, s.traj.q, s.traj.qd, s.traj.qdd, s.torque,
                                                           s.power])]

    def payload_csv(self):
        r = self.result
        if r is None or r.payload is None or r.radial is None or r.axial is None:
            raise ValueError("no payload envelope computed")
        self.require_fresh()
        X, Z = np.meshgrid(r.radial, r.axial)
        return ["offset x (m)", "offset z (m)", "payload (kg)"], list(zip(X.ravel(), Z.ravel(), r.payload.ravel()))
