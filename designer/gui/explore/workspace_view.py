"""Workspace view: tool positions at samples within the joint limits, coloured by the metric, in a
chosen projection (:func:`designer.explore.maps.workspace_map`, evaluated in chunks)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QPushButton, QVBoxLayout, QWidget
from ...explore.maps import Sampling, sample_configurations
from ...explore.joint_names import joint_numbers
from ...explore.metrics import Ratings, parse_metric
from ...jobs import CancelToken, Job, Progress
from ...explore.joints import explore_joints
from ...kinematics import NumericArm
from .jobs import CHUNK_STATES, evaluate_chunked
from .base import ExploreView
from .context import ExploreContext
from .controls import labelled_row, spin_box
from .picker import display_name
from .plots import PlotBox

__all__ = ["WorkspaceView", "WorkspaceResult", "workspace_job", "PROJECTIONS"]

# name -> (horizontal axis, vertical axis) indices of x, y, z
PROJECTIONS = {"x–y (top)": (0, 1), "x–z (front)": (0, 2), "y–z (side)": (1, 2)}


@dataclass(frozen=True)
class WorkspaceResult:
    label: str
    q: np.ndarray          # (N, n)
    positions: np.ndarray  # (N, 3) tool positions in the base frame
    values: np.ndarray     # (N,)


def workspace_job(arm: NumericArm, metric: str, count: int, sampling: Sampling, ratings: Ratings | None,
                  token: CancelToken) -> Job[WorkspaceResult]:
    """Tool positions and the metric at ``count`` samples (the states of
    :func:`~designer.explore.maps.workspace_map` with seed 0)."""
    spec = parse_metric(metric, arm.n, joint_numbers(arm))
    q = sample_configurations(arm, count, sampling, seed=0)
    positions = np.empty((len(q), 3))
    for s in range(0, len(q), CHUNK_STATES):
        token.check()
        block = q[s:s + CHUNK_STATES]
        positions[s:s + CHUNK_STATES] = arm.tool_points(block)   # a closed chain's: its loops closed at each state
    yield Progress("tool positions", 0.2, f"{len(q)} samples")
    values = yield from evaluate_chunked(arm, q, spec, ratings, token, "metric", 0.2, 0.8)
    return WorkspaceResult(spec.label, q, positions, values)


class WorkspaceView(ExploreView):
    """Emits :attr:`mapped` with the result, so that a 3D view can show the same cloud."""

    mapped = Signal(object)   # WorkspaceResult

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.result: WorkspaceResult | None = None
        self.projection = QComboBox(self)
        self.projection.addItems(list(PROJECTIONS))
        self.projection.currentIndexChanged.connect(lambda _=0: self._draw())
        self.samples = spin_box(self, 10, 200_000, 4000, step=1000)
        self.sampling = QComboBox(self)
        for s in Sampling:
            self.sampling.addItem(s.value, s)
        self.run_button = QPushButton("Compute", self)
        self.run_button.clicked.connect(self.compute)
        row = labelled_row(self, (("view", self.projection), ("samples", self.samples)))
        row.addStretch(1)
        row2 = labelled_row(self, (("sampling", self.sampling),))
        row2.addStretch(1)
        row2.addWidget(self.run_button)
        self.box = PlotBox(self.csv_data, self)
        self.box.failed.connect(context.show_error)
        self.box.exported.connect(lambda p: context.show_status(f"Wrote {p}"))
        self.scatter = pg.ScatterPlotItem(size=5, pen=None)
        self.cmap = pg.colormap.get("viridis")
        self._colorbar: pg.ColorBarItem | None = None   # a plot of its own: built with the box's
        self.box.on_build(self._setup_plot)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(row)
        layout.addLayout(row2)
        self.add_banner(layout, 2)
        layout.addWidget(self.box, 1)

    def _setup_plot(self, box: PlotBox) -> None:
        box.plot.setAspectLocked(True)
        box.plot.addItem(self.scatter)
        self._colorbar = pg.ColorBarItem(values=(0, 1), colorMap=self.cmap, interactive=False, width=18)
        box.layout_widget.addItem(self._colorbar, row=0, col=1)
        self._colorbar.axis.enableAutoSIPrefix(False)

    @property
    def colorbar(self) -> pg.ColorBarItem:
        self.box.build()
        assert self._colorbar is not None
        return self._colorbar

    def compute(self):
        def start():
            arm = self.context.arm()
            metric, ratings = self.context.metric_text(), self.context.ratings(arm.n)
            count, sampling = self.samples.value(), self.sampling.currentData()
            return self.context.run_job("Workspace", lambda token: workspace_job(arm, metric, count, sampling,
                                                                                 ratings, token), self.show_result,
                                        owner=self)
        return self.context.guarded("Workspace", start)

    def show_result(self, result: WorkspaceResult) -> None:
        self.result = result
        self._draw()
        self.mapped.emit(result)

    def colours(self) -> tuple[np.ndarray, float, float]:
        """Per-point colour fractions (0..1, NaN where undefined) and the colour range."""
        if self.result is None:
            raise ValueError("no workspace computed")
        v = self.result.values
        ok = np.isfinite(v)
        lo, hi = (float(v[ok].min()), float(v[ok].max())) if ok.any() else (0.0, 1.0)
        span = hi - lo if hi > lo else 1.0
        return np.where(ok, (v - lo) / span, np.nan), lo, hi

    def _draw(self) -> None:
        if self.result is None:
            return
        h, v = PROJECTIONS[self.projection.currentText()]
        frac, lo, hi = self.colours()
        ok = np.isfinite(frac)
        order = np.flatnonzero(ok)[np.argsort(frac[ok])]   # largest values drawn last, on top
        brushes = [pg.mkBrush(c) for c in self.cmap.map(frac[order], mode="qcolor")]
        p = self.result.positions
        self.scatter.setData(x=p[order, h], y=p[order, v], brush=brushes)
        self.colorbar.setLevels((lo, hi if hi > lo else lo + 1e-12))
        self.colorbar.axis.setLabel(self.label_of(self.result.label))
        names = "xyz"
        self.box.plot.setLabel("bottom", f"{names[h]} (m)")
        self.box.plot.setLabel("left", f"{names[v]} (m)")
        self.box.plot.setTitle(f"{display_name(self.result.label)} at the tool positions")
        bad = int((~ok).sum())
        self.box.caption.setText(f"{len(p)} samples within the joint limits; colour: "
                                 f"{display_name(self.result.label)} "
                                 f"({lo:.4g} … {hi:.4g})" + (f"; {bad} undefined, not drawn" if bad else ""))

    def csv_data(self):
        if self.result is None:
            raise ValueError("no workspace map computed yet")
        self.require_fresh()
        r = self.result
        n = r.q.shape[1]
        model = self._model_for_units()
        joints = explore_joints(model) if model is not None else None
        names = list(joints.names) if joints is not None and joints.n == n else [f"q{i + 1}" for i in range(n)]
        joint = [("rad" if joints is None or joints.revolute[i] else "m") for i in range(n)]
        header = [f"{names[i]} ({joint[i]})" for i in range(n)] + ["x (m)", "y (m)", "z (m)", self.with_unit(r.label)]
        return header, [list(q) + list(p) + [v] for q, p, v in zip(r.q, r.positions, r.values)]
