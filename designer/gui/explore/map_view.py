"""Map view: a metric over a 2-D joint grid as a heat map with the current pose marked, and its
statistics over samples within the joint limits."""

from __future__ import annotations

from dataclasses import replace

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QSizePolicy,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)
from PySide6.QtCore import Qt, QTimer

from ...explore.maps import STATS, Sampling
from ...errors import DesignerError
from ...explore.coupling import default_map_joints
from ...explore.joint_names import joint_numbers
from ...explore.joints import explore_arm, explore_joints
from ...model import Manipulator
from ...model.manipulator import MissingParameterError
from ..cells import reading
from ..compute import load_compute
from .jobs import MapResult, placed_map_job
from .base import ExploreView, tip_whole_texts
from .context import ExploreContext
from .controls import header_tips, labelled_row, spin_box
from .picker import display_name
from .plots import HeatMap, PlotBox, is_flat

__all__ = ["MapView"]

FOLLOW_MS = 250   # a pose change recomputes a following map at most this often

_STAT_SHORT = {"min": "min", "max": "max", "mean": "mean", "std": "std", "p05": "5 %", "p50": "median",
               "p95": "95 %"}
_STAT_TEXT = {"min": "minimum", "max": "maximum", "mean": "mean", "std": "standard deviation",
              "p05": "5th percentile", "p50": "median", "p95": "95th percentile"}


_PAIR: tuple = (None, (1, 2))   # (model, its pair): the last model asked about, e.g. off the GUI thread


def default_pair(model: Manipulator) -> tuple[int, int]:
    """The joints a new map shows: two that the arm's inertia depends on (q1/q2 of a PUMA gave a flat
    coupling map); q2/q3 (or q1/q2) when the arm cannot be evaluated yet. The last model's pair is kept: a
    project prepared off the GUI thread (gui/prepared.py) does not evaluate its arm again here."""
    global _PAIR
    done = _PAIR
    if done[0] is model:
        return done[1]
    try:
        pair = default_map_joints(explore_arm(model))   # a closed chain: its actuated joints
    except (MissingParameterError, ValueError, ZeroDivisionError, np.linalg.LinAlgError, DesignerError):
        pair = (2, 3) if explore_joints(model).n >= 3 else (1, 2)
    _PAIR = (model, pair)
    return pair


STATS_CAPTION = "over samples within the joint limits"


class MapView(ExploreView):
    """Pick two joints and a resolution; Compute runs :func:`~designer.gui.explore.jobs.placed_map_job` where the
    Compute preference says (threads, local processes or a Dask cluster; see designer/gui/compute.py)."""

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.result: MapResult | None = None
        self.revolute: list[bool] = []
        self.result_names: list[str] = []   # the map's joints by name (a closed chain's by their links)
        self.joint_x, self.joint_y = QComboBox(self), QComboBox(self)
        self.joint_x.setToolTip("Joint along the horizontal axis")
        self.joint_y.setToolTip("Joint along the vertical axis")
        self._chosen = False   # the user picked the joints (else they follow the model: default_pair)
        for combo in (self.joint_x, self.joint_y):
            combo.activated.connect(self._joints_chosen)
        self.steps = spin_box(self, 5, 400, 60, tip="Grid points per joint")
        self.samples = spin_box(self, 0, 1_000_000, 2000, step=500,
                                tip="Samples within the joint limits for the statistics (0: none)")
        self.sampling = QComboBox(self)
        for s in Sampling:
            self.sampling.addItem(s.value, s)
        self.follow = QCheckBox("follow pose", self)
        self.follow.setToolTip("Recompute the map when the other joints move (the pose sliders)")
        self._follow_timer = QTimer(self)
        self._follow_timer.setSingleShot(True)
        self._follow_timer.setInterval(FOLLOW_MS)
        self._follow_timer.timeout.connect(self._follow_pose)
        self.compute_button = QPushButton("Compute", self)
        self.compute_button.clicked.connect(self.compute)
        controls = labelled_row(self, (("x", self.joint_x), ("y", self.joint_y), ("grid", self.steps)))
        controls.addStretch(1)
        run_row = QHBoxLayout()   # a row of its own: the panel keeps the width of a narrow column
        run_row.addWidget(self.follow)
        run_row.addStretch(1)
        run_row.addWidget(self.compute_button)

        self.box = PlotBox(self.csv_data, self)
        self.box.failed.connect(context.show_error)
        self.box.exported.connect(lambda p: context.show_status(f"Wrote {p}"))
        self.heat = HeatMap(self.box)
        self.marker = pg.ScatterPlotItem(size=16, symbol="x", pen=pg.mkPen("w", width=1.5),
                                         brush=pg.mkBrush("#e8175d"))
        self.marker.setZValue(10)
        self.marker.setToolTip("current pose")
        self.box.on_build(self._setup_plot)

        # one row of statistics under the map: the map keeps the width of a narrow tab
        self.stats = QTableWidget(1, len(STATS), self)
        self.stats.setHorizontalHeaderLabels([_STAT_SHORT[s] for s in STATS])
        header_tips(self.stats, ((c, _STAT_TEXT[name]) for c, name in enumerate(STATS)))
        self.stats.verticalHeader().hide()
        self.stats.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.stats.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.stats.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stats.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stats.setFixedHeight(self.stats.horizontalHeader().sizeHint().height()
                                  + self.stats.verticalHeader().defaultSectionSize() + 4)
        self.stats_caption = QLabel(STATS_CAPTION, self)
        self.stats_caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        sampling_row = QHBoxLayout()
        sampling_row.addWidget(QLabel("Statistics over", self))
        sampling_row.addWidget(self.samples)
        sampling_row.addWidget(self.sampling)
        sampling_row.addWidget(self.stats_caption, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(controls)
        layout.addLayout(run_row)
        self.add_banner(layout, 2)
        layout.addWidget(self.box, 1)
        layout.addLayout(sampling_row)
        layout.addWidget(self.stats)

    # -- model and pose ------------------------------------------------------------------------
    def _setup_plot(self, box: PlotBox) -> None:
        box.plot.addItem(self.marker)
        box.plot.scene().sigMouseClicked.connect(self._clicked)
        box.layout_widget.setToolTip("Click a point of the map to move the arm to that pose")

    def set_model(self, model: Manipulator) -> None:
        keep = (self.joint_x.currentData(), self.joint_y.currentData())
        joints = explore_joints(model)   # a closed chain: its actuated joints, 1..n_a, named by their links
        self.revolute = list(joints.revolute)
        if self.result is not None and len(self.result.grid.q0) != joints.n:
            self.clear()   # a map of another arm has nothing to say about this one
        for combo in (self.joint_x, self.joint_y):
            combo.blockSignals(True)
            combo.clear()
            for k, (tree, name) in enumerate(zip(joints.index, joints.names), start=1):
                link = model.links[tree]
                combo.addItem(name + (f" ({link.name})" if link.name else ""), k)
            combo.blockSignals(False)
        if self._chosen and None not in keep and keep[0] != keep[1] and max(keep) <= joints.n:
            pair = keep   # the user's pair stays while it names two joints of the arm
        else:
            pair = default_pair(model)
        for combo, joint in zip((self.joint_x, self.joint_y), pair):
            k = combo.findData(joint)
            combo.setCurrentIndex(max(k, 0))
        self.check_stale(model)

    def _joints_chosen(self, _index: int = 0) -> None:
        self._chosen = True

    def set_stale(self, reason: str) -> None:
        super().set_stale(reason)
        if self.result is not None:
            self._caption()

    def set_joint_values(self, q) -> None:
        self._mark()
        if self.result is not None:
            self._caption()
            if self.follow.isChecked() and "moved" in self.box.caption.text():
                self._follow_timer.start()

    def _follow_pose(self) -> None:
        # never cancel another view's job (a sweep) just because a slider moved
        if not self.context.busy or self.context.job_title == "Map":
            self.compute()

    # -- compute ----------------------------------------------------------------------------------
    def compute(self):
        def start():
            model = self.context.require_model()
            arm = self.context.arm()
            ratings = self.context.ratings(arm.n)
            joints = (self.joint_x.currentData(), self.joint_y.currentData())
            if arm.n < 2:   # a four-bar: one actuated joint
                raise ValueError(f"a map needs two joints; {model.name or 'this arm'} moves by one, "
                                 f"{self.context.joints(model).names[0]} (the Workspace view samples it)")
            if joints[0] == joints[1]:
                raise ValueError("pick two different joints for x and y")
            names = joint_numbers(arm)   # the core names a closed chain's joints by their links
            joints = (names[joints[0] - 1], names[joints[1] - 1])
            metric, q = self.context.metric_text(), self.context.q.tolist()
            steps, samples, sampling = self.steps.value(), self.samples.value(), self.sampling.currentData()
            compute = load_compute()   # where the maps run: the Compute preference, as for sweeps
            return self.context.run_job("Map", lambda token: placed_map_job(compute, arm, metric, joints, q, steps,
                                                                           samples, sampling, ratings, token),
                                        lambda result: self.show_result(result, model), owner=self)
        return self.context.guarded("Map", start)

    def show_result(self, result: MapResult, model: Manipulator | None = None) -> None:
        if model is not None:   # the core's joint names (a closed chain's links) back to places 1..n here
            names = explore_joints(model).numbers
            if all(k in names for k in result.grid.joints):
                i, j = (names.index(k) + 1 for k in result.grid.joints)
                result = replace(result, grid=replace(result.grid, joints=(i, j)))
        self.result = result
        self.result_model = model
        # units and names of the map's joints: those of the model it was computed for
        joints = explore_joints(model) if model is not None else None
        self.result_revolute = list(joints.revolute) if joints is not None else list(self.revolute)
        self.result_names = list(joints.names) if joints is not None else \
            [f"q{k + 1}" for k in range(len(result.grid.q0))]
        self.stale = ""
        self.stale_banner.hide()
        grid = result.grid
        i, j = grid.joints
        sx, sy = self._scale(i), self._scale(j)
        self.heat.set_data(grid.x * sx, grid.y * sy, grid.values)
        self.box.plot.setLabel("bottom", f"{self._name(i)} ({self._unit(i)})")
        self.box.plot.setLabel("left", f"{self._name(j)} ({self._unit(j)})")
        self.box.plot.setTitle(display_name(grid.label))
        self.heat.set_label(self.label_of(grid.label))
        self._mark()
        self._caption()
        for r, name in enumerate(STATS):
            value = result.samples.stats[name] if result.samples is not None else float("nan")
            self.stats.setItem(0, r, QTableWidgetItem("—" if math.isnan(value) else f"{value:.6g}"))
        tip_whole_texts(self.stats)   # a narrow tab cuts "0.73254…"
        if result.samples is not None:
            v = result.samples.values
            bad = int(np.count_nonzero(~np.isfinite(v)))
            self.stats_caption.setText(f"samples within the joint limits: {display_name(grid.label)}"
                                       + (f" ({bad} undefined, left out)" if bad else ""))

    def pose_at(self, x: float, y: float) -> np.ndarray | None:
        """The pose of the map point (x, y) in the plot's units (deg or m): the map's held joints with
        its two joints at x and y; None outside the map or when it describes another arm."""
        if self.result is None or self.stale:
            return None
        grid = self.result.grid
        i, j = grid.joints
        qi, qj = x / self._scale(i), y / self._scale(j)
        di = (grid.x[-1] - grid.x[0]) / max(len(grid.x) - 1, 1) / 2
        dj = (grid.y[-1] - grid.y[0]) / max(len(grid.y) - 1, 1) / 2
        if not (grid.x[0] - di <= qi <= grid.x[-1] + di and grid.y[0] - dj <= qj <= grid.y[-1] + dj):
            return None
        q = np.array(grid.q0, float)
        q[i - 1] = np.clip(qi, grid.x[0], grid.x[-1])
        q[j - 1] = np.clip(qj, grid.y[0], grid.y[-1])
        return q

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.result is None:
            return
        vb = self.box.plot.vb
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        point = vb.mapSceneToView(event.scenePos())
        q = self.pose_at(point.x(), point.y())
        if q is not None:
            self.context.pose_arm(q)
            self.context.show_status("Pose from the map: " + ", ".join(
                f"{self._name(k + 1)} = {reading(v * self._scale(k + 1))} {self._unit(k + 1)}"
                for k, v in enumerate(q)))

    # -- helpers ----------------------------------------------------------------------------------
    def forget_project(self) -> None:
        self.clear()
        if self.box.built:   # a plot never shown holds nothing (building it costs the GUI thread 50 ms)
            self.box.plot.setLabel("bottom", "")
            self.box.plot.setLabel("left", "")
        self.stats_caption.setText(STATS_CAPTION)

    def clear(self) -> None:
        self.result = self.result_model = None
        self.set_stale("")
        self.heat.clear()
        self.marker.setData([], [])
        self.box.caption.setText("")
        if self.box.built:
            self.box.plot.setTitle("")
        for c in range(self.stats.columnCount()):
            self.stats.setItem(0, c, QTableWidgetItem(""))

    def _scale(self, joint: int) -> float:
        return 180.0 / math.pi if self.result_revolute[joint - 1] else 1.0

    def _unit(self, joint: int) -> str:
        return "deg" if self.result_revolute[joint - 1] else "m"

    def _name(self, joint: int) -> str:
        """The map's joint ``joint`` (1-based) by name: q4 for the palletizer's third actuated joint."""
        return self.result_names[joint - 1] if joint <= len(self.result_names) else f"q{joint}"

    def _mark(self) -> None:
        if self.result is None or len(self.context.q) != len(self.result_revolute):
            self.marker.setData([], [])
            return
        i, j = self.result.grid.joints
        q = self.context.q
        self.marker.setData([q[i - 1] * self._scale(i)], [q[j - 1] * self._scale(j)])

    def _caption(self) -> None:
        if self.result is None:
            return
        grid = self.result.grid
        stale = self.stale
        moved = ""
        others = [k for k in range(len(grid.q0)) if k + 1 not in grid.joints]
        q = self.context.q
        if not stale and len(q) == len(grid.q0) and not np.allclose(q[others], grid.q0[others]):
            moved = "the other joints moved since"
        held = ", ".join(f"{self._name(k + 1)} = {reading(grid.q0[k] * self._scale(k + 1))}" for k in others)
        v = grid.values[np.isfinite(grid.values)]
        span = f"range {v.min():.4g} … {v.max():.4g}" if v.size else "no finite values"
        if is_flat(grid.values):
            span = f"constant {v.mean():.4g}: it does not change with these two joints"
        text = f"{display_name(grid.label)} over {self._name(grid.joints[0])}, {self._name(grid.joints[1])} ({span})"
        text += f"; {held}" if held else ""
        if stale or moved:
            text += f" — out of date: {stale or moved}; Compute to update"
        self.box.caption.setText(text)

    def csv_data(self):
        if self.result is None:
            raise ValueError("no map computed yet")
        self.require_fresh()
        grid = self.result.grid
        i, j = grid.joints
        unit = lambda k: "rad" if self.result_revolute[k - 1] else "m"  # noqa: E731
        X, Y = np.meshgrid(grid.x, grid.y)
        rows = zip(X.ravel(), Y.ravel(), grid.values.ravel())
        return [f"{self._name(i)} ({unit(i)})", f"{self._name(j)} ({unit(j)})", self.with_unit(grid.label)], list(rows)
