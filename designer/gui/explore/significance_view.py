"""Term significance view: every term of M, B, C, G against the largest joint torque over an envelope,
the simplified model that drops the small ones, its stated bound and a sampled check
(:mod:`designer.explore.significance`, whose job runs in a worker process)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QSplitter, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ...explore.significance import SignificanceResult, significance_job
from ...jobs.process import ProcessJob
from .base import ExploreView, tip_whole_texts
from .context import ExploreContext
from .controls import labelled_row, spin_box
from .plots import PlotBox

__all__ = ["SignificanceView", "SignificanceResult", "significance_job"]

FLOOR = 1e-12   # relative sizes below this are drawn at it (a log axis has no zero)


def _item(text: str, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if tip:
        item.setToolTip(tip)
    return item


INTRO = ("Envelope: positions within the joint limits, |qd| and |qdd| up to the rated speed and acceleration "
         "(Rated fields above).")


class SignificanceView(ExploreView):
    """Envelope: joint limits, the panel's rated speeds and accelerations; a threshold in percent."""

    action = "Rank terms"

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.result: SignificanceResult | None = None
        self.threshold = spin_box(self, 0.0, 99.0, 1.0, decimals=3, suffix=" %",
                                  tip="Terms below this share of the joint's largest torque are dropped "
                                      "(1 %: Armstrong, Khatib & Burdick)")
        self.samples = spin_box(self, 16, 1_000_000, 2048, tip="Sobol samples of the joint positions for the maxima")
        self.count_ops = QCheckBox("operation counts (symbolic, slow)", self)
        self.run_button = QPushButton("Rank terms", self)
        self.run_button.clicked.connect(self.run)
        row = labelled_row(self, (("threshold", self.threshold), ("samples", self.samples)))
        row.addStretch(1)
        row2 = QHBoxLayout()
        row2.addWidget(self.count_ops)
        row2.addStretch(1)
        row2.addWidget(self.run_button)
        self.summary = QLabel(INTRO, self)
        self.summary.setWordWrap(True)

        self.joints = QTableWidget(0, 6, self)
        self.joints.setHorizontalHeaderLabels(["joint", "T_i (N m or N)", "bound E_i (N m or N)", "E_i / T_i",
                                               "sampled error (N m or N)", "holds"])
        self.terms = QTableWidget(0, 5, self)
        self.terms.setHorizontalHeaderLabels(["term", "largest contribution (N m or N)", "share of T_i", "kept",
                                              "translation share (1)"])
        for table in (self.joints, self.terms):
            table.verticalHeader().hide()
            table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
            # every column as wide as its header and numbers ("T_i (N m or N)" read "_i (N m or N" stretched
            # into a 470 px tab); the table scrolls sideways instead
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            table.horizontalHeader().setStretchLastSection(True)
            tip_whole_texts(table)
        self.box = PlotBox(self.csv_data, self)
        self.box.failed.connect(context.show_error)
        self.box.exported.connect(lambda p: context.show_status(f"Wrote {p}"))
        self.scatter = pg.ScatterPlotItem(hoverable=True, tip=self._tip)
        self.line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#d62728", style=Qt.PenStyle.DashLine))
        self.box.on_build(self._setup_plot)

        split = QSplitter(Qt.Orientation.Vertical, self)   # stacked: fits a narrow tab
        split.addWidget(self.joints)
        split.addWidget(self.terms)
        split.addWidget(self.box)
        split.setSizes([150, 260, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(row)
        layout.addLayout(row2)
        layout.addWidget(self.summary)
        self.add_banner(layout, 3)
        layout.addWidget(split, 1)

    def _setup_plot(self, box: PlotBox) -> None:
        box.plot.setLogMode(y=True)
        box.plot.setLabel("left", "share of T_i")
        box.plot.setLabel("bottom", "terms, largest first")
        box.plot.addItem(self.scatter)
        box.plot.addItem(self.line)

    def run(self):
        def start():
            model = self.context.require_model()
            arm = self.context.arm(model)
            ratings = self.context.ratings(arm.n)
            if ratings.speed is None or ratings.acceleration is None:
                raise ValueError("term significance needs the rated speed and acceleration of the joints "
                                 "(Rated fields above)")
            args = (model, arm, ratings.speed, ratings.acceleration, self.threshold.value() / 100.0,
                    self.samples.value(), self.count_ops.isChecked())
            # in a worker process: the operation counts derive the symbolic model (minutes for six joints),
            # and Cancel then stops it at once
            return self.context.run_job("Significance", ProcessJob(significance_job, args, "significance"),
                                        self.show_result, owner=self)
        return self.context.guarded("Significance", start)

    def forget_project(self) -> None:
        super().forget_project()
        self.summary.setText(INTRO)

    def show_result(self, result: SignificanceResult) -> None:
        self.result = result
        sig, check = result.significance, result.check
        n = len(sig.reference)
        self.joints.setRowCount(n)
        for i in range(n):
            T, E, err = sig.reference[i], check["bound"][i], check["error"][i]
            cells = [f"{i + 1}", f"{T:.5g}", f"{E:.4g}", f"{E / T:.3%}" if T > 0 else "—", f"{err:.4g}",
                     "yes" if check["holds"][i] else "NO"]
            for c, text in enumerate(cells):
                self.joints.setItem(i, c, _item(text))
        terms = sorted(sig.terms, key=lambda t: -t.relative)
        self.terms.setRowCount(len(terms))
        for r, t in enumerate(terms):
            share = "" if math.isnan(t.share_translation) else f"{t.share_translation:.3f}"
            cells = [t.label, f"{t.contribution:.4g}", f"{t.relative:.3%}", "yes" if t.relative >= sig.threshold
                     else "", share]
            for c, text in enumerate(cells):
                self.terms.setItem(r, c, _item(text, "Lee: |D_tra| / (|D_tra| + |D_rot|) where the term is largest"
                                               if c == 4 else ""))
        for table in (self.joints, self.terms):
            tip_whole_texts(table)
        kept = len(sig.kept())
        text = (f"{kept} of {len(sig.terms)} terms reach {sig.threshold:.3%} of their joint's largest torque; "
                f"the simplified model's error stays below the bounds E_i, sampled check: "
                f"{'holds' if bool(np.all(check['holds'])) else 'FAILS'} at every joint")
        if result.operations:
            full, simple = result.operations
            text += f"; operations: {full} full, {simple} simplified"
        self.summary.setText(text)
        rel = np.array([max(t.relative, FLOOR) for t in terms])
        keep = np.array([t.relative >= sig.threshold for t in terms])
        brushes = [pg.mkBrush("#d62728" if k else "#8c8c8c") for k in keep]
        self.scatter.setData(x=np.arange(len(rel)), y=np.log10(rel), brush=brushes, pen=None, size=6,
                             data=np.arange(len(rel)))
        self._shown = terms
        self.line.setValue(math.log10(max(sig.threshold, FLOOR)))
        zeros = int((rel <= FLOOR).sum())
        self.box.caption.setText(f"{kept} kept (red), {len(terms) - kept} dropped; dashed: the threshold"
                                 + (f"; {zeros} zero terms drawn at 1e-12" if zeros else ""))

    def _tip(self, x, y, data):
        t = self._shown[int(data)]
        return f"{t.label}: {t.contribution:.4g} ({t.relative:.3%} of T_{t.joint + 1})"

    def csv_data(self):
        if self.result is None:
            raise ValueError("no ranking computed yet")
        self.require_fresh()
        sig = self.result.significance
        rows = [[t.label, t.matrix, t.joint + 1, t.contribution, t.relative, int(t.relative >= sig.threshold),
                 t.share_translation] for t in sorted(sig.terms, key=lambda t: -t.relative)]
        header = ["term", "matrix", "joint", "contribution (N m or N)", "relative (1)", "kept", "translation_share (1)"]
        return header, rows
