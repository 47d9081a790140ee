"""The Optimize dialog's result views: the Pareto plot of two objectives (each point a design of the front,
selectable), one design's figures (objectives, variables, choices, every requirement's value and margin), and
the A/B table of a design against the current one (Explore's A/B: :func:`designer.gui.explore.jobs.compare_job`'s
rows, the same columns).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from .explore.plots import PlotBox

__all__ = ["FrontView", "DesignTable", "CompareTable", "design_rows"]

PASS_COLOUR, FAIL_COLOUR = QColor("#d8f5d0"), QColor("#ffd6d6")


def _fmt(v: float) -> str:
    return f"{v:.6g}" if math.isfinite(v) else "—"


class FrontView(QWidget):
    """Two objectives of the front against each other (x and y chosen when there are more); clicking a point
    selects its design (``selected``), drawn larger in another colour."""

    selected = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.names: tuple[str, ...] = ()
        self.values = np.zeros((0, 0))
        self.current = -1
        axes = QHBoxLayout()
        self.axis = []
        for label in ("x", "y"):
            axes.addWidget(QLabel(label, self))
            combo = QComboBox(self)
            combo.currentIndexChanged.connect(lambda _=0: self._draw())
            axes.addWidget(combo, 1)
            self.axis.append(combo)
        self.box = PlotBox(self.csv_data, self)
        self.box.caption.setText("Run with two or more objectives for a Pareto front; click a point to see it")
        self.scatter = pg.ScatterPlotItem(hoverable=True, tip=self._tip, size=9,
                                          pen=pg.mkPen("k", width=1), brush=pg.mkBrush("#1f77b4"))
        self.scatter.sigClicked.connect(self._clicked)
        self.mark = pg.ScatterPlotItem(size=16, pen=pg.mkPen("#d62728", width=2.5), brush=pg.mkBrush(None))
        self.mark.setAcceptedMouseButtons(Qt.MouseButton.NoButton)   # a click goes through to the design under it
        self.box.on_build(lambda box: (box.plot.addItem(self.scatter), box.plot.addItem(self.mark),
                                       box.plot.showGrid(x=True, y=True, alpha=0.3)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(axes)
        layout.addWidget(self.box, 1)

    def set_front(self, names: Sequence[str], values: np.ndarray, maximize: Sequence[bool]) -> None:
        """The designs' objectives ``values`` (n, k), columns ``names``; the first two plotted."""
        self.names = tuple(names)
        self.values = np.asarray(values, float).reshape(len(values), len(self.names))
        self.maximize = tuple(maximize)
        for k, combo in enumerate(self.axis):
            combo.blockSignals(True)
            combo.clear()
            for j, name in enumerate(self.names):
                combo.addItem(f"{'max' if self.maximize[j] else 'min'} {name}", j)
            combo.setCurrentIndex(min(k, len(self.names) - 1))
            combo.blockSignals(False)
            combo.setEnabled(len(self.names) > 2)
        self.current = -1
        self.box.caption.setText(f"{len(self.values)} design(s) on the front; click one to see it, Apply or A/B it")
        self._draw()

    def clear(self) -> None:
        self.set_front((), np.zeros((0, 0)), ())
        self.box.caption.setText("Run with two or more objectives for a Pareto front; click a point to see it")

    def columns(self) -> tuple[int, int]:
        return self.axis[0].currentData() or 0, self.axis[1].currentData() or 0

    def points(self) -> np.ndarray:
        """The plotted (x, y) of each design, (n, 2)."""
        if not len(self.values):
            return np.zeros((0, 2))
        i, j = self.columns()
        return self.values[:, [i, j]]

    def _draw(self) -> None:
        xy = self.points()
        self.scatter.setData(x=xy[:, 0], y=xy[:, 1], data=list(range(len(xy))))
        self._mark()
        if self.names and self.box.built:
            i, j = self.columns()
            self.box.plot.setLabel("bottom", self.names[i])
            self.box.plot.setLabel("left", self.names[j])

    def _mark(self) -> None:
        xy = self.points()
        if 0 <= self.current < len(xy):
            self.mark.setData(x=[xy[self.current, 0]], y=[xy[self.current, 1]])
        else:
            self.mark.setData(x=[], y=[])

    def select(self, index: int) -> None:
        """Select design ``index`` (marked; ``selected`` emitted)."""
        if not 0 <= index < len(self.values):
            return
        self.current = index
        self._mark()
        self.selected.emit(index)

    def _clicked(self, _item, points, _event=None) -> None:
        if len(points):
            self.select(int(points[0].data()))

    def _tip(self, x, y, data) -> str:
        row = self.values[int(data)]
        return "\n".join(f"{n} = {v:.6g}" for n, v in zip(self.names, row)) + "\n(click to select)"

    def csv_data(self):
        if not len(self.values):
            raise ValueError("no Pareto front yet")
        return list(self.names), [list(r) for r in self.values]


Row = tuple[str, str, str, str, "bool | None"]


def design_rows(problem, design, objectives: Sequence[tuple[str, float]]) -> list[Row]:
    """(kind, name, value, margin, holds) rows of one design: its objectives, variables, choices and every
    requirement (None: no pass or fail)."""
    rows: list[Row] = []
    rows += [("objective", name, _fmt(v), "", None) for name, v in objectives]
    rows += [("variable", name, _fmt(v), "", None) for name, v in design.values.items()]
    rows += [("choice", c.target, option, "", None) for c, option in zip(problem.choices, design.picks)]
    for r, v in zip(problem.requirements, design.quantities):
        m = r.margin(v) if math.isfinite(v) else math.nan
        rows.append(("requirement", r.text, _fmt(v), _fmt(m), math.isfinite(m) and m >= 0))
    return rows


class DesignTable(QTableWidget):
    """One design's figures (:func:`design_rows`), a requirement's row green when it holds, red when not."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, 4, parent)
        self.setHorizontalHeaderLabels(["", "name", "value", "margin"])
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)

    def show_rows(self, rows) -> None:
        self.setRowCount(len(rows))
        for r, (kind, name, value, margin, holds) in enumerate(rows):
            for c, text in enumerate((kind, name, value, margin)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if holds is not None:
                    item.setBackground(QBrush(PASS_COLOUR if holds else FAIL_COLOUR))
                self.setItem(r, c, item)

    def texts(self) -> list[list[str]]:
        return [[self.item(r, c).text() for c in range(self.columnCount())]   # type: ignore[union-attr]
                for r in range(self.rowCount())]


class CompareTable(QTableWidget):
    """The current design (A) against a design of the result (B): Explore's A/B rows (every metric at the pose
    and over workspace samples), side by side with their difference and ratio."""

    HEADER = ("metric", "where", "A (current)", "B", "B − A", "B / A")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, len(self.HEADER), parent)
        self.setHorizontalHeaderLabels(list(self.HEADER))
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.rows: list[dict] = []

    def show_rows(self, rows: list[dict], label_b: str) -> None:
        self.rows = rows
        self.setHorizontalHeaderLabels([*self.HEADER[:3], f"B ({label_b})", *self.HEADER[4:]])
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cells = [row["metric"], row["where"].replace("workspace:", "workspace ")] + \
                [_fmt(row[k]) for k in ("A", "B", "B-A", "B/A")]
            for c, text in enumerate(cells):
                self.setItem(r, c, QTableWidgetItem(text))

    def clear_rows(self) -> None:
        self.rows = []
        self.setRowCount(0)
