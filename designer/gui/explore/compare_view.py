"""A/B view: the current model against a second file or a variant with one parameter changed."""

from __future__ import annotations

import math
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtWidgets import (QButtonGroup, QComboBox, QFileDialog, QGridLayout, QHeaderView, QLabel, QLineEdit,
                               QPushButton, QRadioButton, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)
from PySide6.QtCore import Qt

from ...model import Manipulator
from ...project import ProjectError, load_project
from .jobs import Comparison, compare_job
from ...explore.joints import explore_joints
from ...explore.metrics import METRICS
from .picker import metric_tooltip
from .picker import display_name
from .plots import PlotBox, write_csv
from ..folders import last_folder, remember_folder
from .base import ExploreView
from .context import ExploreContext
from .controls import labelled_row, spin_box, value_box

__all__ = ["CompareView"]

STATS_SHOWN = ("max", "mean", "min")

HEADER = ["metric", "where", "A", "B", "B − A", "B / A"]   # where: pose, design, or a workspace statistic
WHERE = (("workspace", "over the workspace"), ("pose", "at the current pose"), ("", "everything"))


def _fmt(v: float) -> str:
    return "—" if not math.isfinite(v) else f"{v:.5g}"


class CompareView(ExploreView):
    """Design B is a project file or the current model with one parameter set to another value."""

    def __init__(self, context: ExploreContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.result: Comparison | None = None
        self.from_file, self.from_variant = QRadioButton("file", self), QRadioButton("variant", self)
        self.from_variant.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.from_file)
        group.addButton(self.from_variant)
        self.path = QLineEdit(self)
        self.path.setPlaceholderText("project file of design B (.json)")
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        self.parameter = QComboBox(self)
        self.value = value_box(self)
        self.parameter.currentIndexChanged.connect(lambda _=0: self._default_value())
        self.where = QComboBox(self)
        for key, text in WHERE:
            self.where.addItem(text, key)
        self.where.setToolTip("Rows to list: summaries over workspace samples, values at the pose, or both")
        self.where.currentIndexChanged.connect(lambda _=0: self._fill_table())
        self.joint = QComboBox(self)
        self.joint.setToolTip("The picked metric is drawn against this joint, the others at the current pose")
        self.samples = spin_box(self, 1, 1_000_000, 1000)
        self.compare_button = QPushButton("Compare", self)
        self.compare_button.clicked.connect(self.compare)
        grid = QGridLayout()
        grid.addWidget(QLabel("B from", self), 0, 0)
        grid.addWidget(self.from_file, 0, 1)
        grid.addWidget(self.path, 0, 2, 1, 3)
        grid.addWidget(browse, 0, 5)
        grid.addWidget(self.from_variant, 1, 1)
        grid.addWidget(self.parameter, 1, 2)
        grid.addWidget(QLabel("=", self), 1, 3)
        grid.addWidget(self.value, 1, 4)
        grid.setColumnStretch(2, 1)
        options = labelled_row(self, (("show", self.where), ("curve over", self.joint)))
        options2 = labelled_row(self, (("samples", self.samples),))
        options2.addStretch(1)
        options2.addWidget(self.compare_button)

        self.table = QTableWidget(0, len(HEADER), self)
        self.table.setHorizontalHeaderLabels(HEADER)
        # the values' columns as wide as their headers and numbers ("A (current)", "B (palletizer_serial)"
        # were cut); "where" takes what is left
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table_csv = QPushButton("Table CSV…", self)
        table_csv.clicked.connect(self._table_dialog)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(table_csv, alignment=Qt.AlignmentFlag.AlignRight)
        self.box = PlotBox(self.csv_data, self)
        self.box.add_legend()
        self.box.failed.connect(context.show_error)
        self.box.exported.connect(lambda p: context.show_status(f"Wrote {p}"))
        splitter = QSplitter(Qt.Orientation.Vertical, self)   # fits a narrow tab
        splitter.addWidget(left)
        splitter.addWidget(self.box)
        splitter.setSizes([400, 320])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(grid)
        layout.addLayout(options)
        layout.addLayout(options2)
        self.add_banner(layout, 3)
        layout.addWidget(splitter, 1)

    def set_model(self, model: Manipulator) -> None:
        self.check_stale(model)
        self.model = model
        keep = self.parameter.currentText()
        self.parameter.blockSignals(True)
        self.parameter.clear()
        self.parameter.addItems(sorted(model.parameter_values))
        k = self.parameter.findText(keep)
        self.parameter.setCurrentIndex(max(k, 0))
        self.parameter.blockSignals(False)
        if k < 0:
            self._default_value()
        keep_joint = self.joint.currentData()
        self.joint.clear()
        joints = explore_joints(model)   # a closed chain: its actuated joints, named by their links
        for i, name in enumerate(joints.names, start=1):
            self.joint.addItem(name, i)
        self.joint.setCurrentIndex(max(self.joint.findData(keep_joint if keep_joint else min(2, joints.n)), 0))

    def _default_value(self) -> None:
        value = self.model.parameter_values.get(self.parameter.currentText()) if self.model else None
        if value is not None:
            self.value.setValue(1.2 * value if value else 0.1)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Design B", str(last_folder()),
                                              "Manipulator projects (*.json);;All files (*)")
        if path:
            remember_folder(path)
            self.path.setText(path)
            self.from_file.setChecked(True)

    def model_b(self) -> tuple[Manipulator, str]:
        """Design B and its name (raises ValueError naming the problem)."""
        model = self.context.require_model()
        if self.from_file.isChecked():
            text = self.path.text().strip()
            if not text:
                raise ValueError("give the project file of design B")
            try:
                return load_project(Path(text)), Path(text).name
            except ProjectError as exc:
                raise ValueError(str(exc)) from None
        name = self.parameter.currentText()
        if not name:
            raise ValueError("the model has no parameters to vary")
        return model.with_parameter(name, self.value.value()), f"{name} = {self.value.value():.6g}"

    def compare(self):
        def start():
            model = self.context.require_model()
            b, label = self.model_b()
            n_a, n_b = self.context.arm(model).n, self.context.arm(b).n   # a closed chain's: its actuated joints
            if n_b != n_a:
                raise ValueError(f"design B has {n_b} joints, the current model {n_a}: "
                                 "compare arms of the same size")
            metric, q = self.context.metric_text(), self.context.q.tolist()
            joint, samples, ratings = self.joint.currentData() or 1, self.samples.value(), self.context.ratings(n_a)
            return self.context.run_job("A/B", lambda token: compare_job(model, b, metric, joint, q, STATS_SHOWN,
                                                                         samples, ratings, token),
                                        lambda result: self.show_result(result, label), owner=self)
        return self.context.guarded("A/B", start)

    def rows(self) -> list[dict]:
        """The comparison rows the table shows (after the where filter)."""
        if self.result is None:
            return []
        key = self.where.currentData()
        return [r for r in self.result.rows if not key or r["where"].startswith(key) or r["where"] == "design"]

    def _fill_table(self) -> None:
        rows = self.rows()
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            name = row["metric"].partition("[")[0]
            cells = [self.label_of(row["metric"]), row["where"].replace("workspace:", "")] + \
                [_fmt(row[k]) for k in ("A", "B", "B-A", "B/A")]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(metric_tooltip(name) if c == 0 and name in METRICS else text)   # cut: reads whole
                self.table.setItem(r, c, item)

    def show_result(self, result: Comparison, label_b: str = "B") -> None:
        self.result, self.label_b = result, label_b
        self.table.setHorizontalHeaderLabels(["metric", "where", "A (current)", f"B ({label_b})", "B − A", "B / A"])
        for c in range(self.table.columnCount()):
            header = self.table.horizontalHeaderItem(c)
            if header is not None:
                header.setToolTip(header.text())
        self._fill_table()
        plot = self.box.plot
        plot.clear()
        joints = explore_joints(self.model)
        name = joints.name(result.curve_joint)
        scale = 180 / math.pi if joints.revolute[result.curve_joint - 1] else 1.0
        plot.plot(result.x * scale, result.curve_a, name="A (current)", pen=pg.mkPen("#1f77b4", width=2))
        plot.plot(result.x * scale, result.curve_b, name=f"B ({label_b})",
                  pen=pg.mkPen("#d62728", width=2, style=Qt.PenStyle.DashLine))
        self.box.caption.setText(f"{display_name(result.label)} against {name}; "
                                 "other joints at the pose" + ("" if not joints.closed else
                                                               " (the same joint values in both designs)"))
        plot.setLabel("bottom", f"{name} ({'deg' if scale != 1.0 else 'm'})")
        plot.setLabel("left", self.label_of(result.label))

    def csv_data(self):
        if self.result is None:
            raise ValueError("no comparison computed yet")
        self.require_fresh()
        r = self.result
        joints = explore_joints(self.model)
        unit = "rad" if joints.revolute[r.curve_joint - 1] else "m"
        label = self.with_unit(r.label)
        header = [f"{joints.name(r.curve_joint)} ({unit})", f"A: {label}", f"B: {label}"]
        return header, list(zip(r.x, r.curve_a, r.curve_b))

    def export_table_csv(self, path) -> None:
        if self.result is None:
            raise ValueError("no comparison computed yet")
        self.require_fresh()
        keys = ("metric", "where", "A", "B", "B-A", "B/A")
        write_csv(path, ("metric", "unit", "where", "A", "B", "B-A", "B/A (1)"),
                  [[r["metric"], self.unit_of(r["metric"])] + [r[k] for k in keys[1:]] for r in self.result.rows])

    def _table_dialog(self) -> None:
        try:
            self.require_fresh()
        except ValueError as exc:
            self.context.show_error(f"A/B: {exc}")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export table", str(last_folder() / "compare.csv"),
                                              "CSV data (*.csv)")
        if path:
            try:
                self.export_table_csv(path)
                remember_folder(path)
                self.context.show_status(f"Wrote {path}")
            except (OSError, ValueError) as exc:
                self.context.show_error(f"export to {path}: {exc}")
