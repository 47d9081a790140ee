"""Shared look of the pyqtgraph plots (light background, SI numbers) and SVG export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator

__all__ = ["COLORS", "pen", "new_plot", "fit_y", "SideLegend", "legend_below", "plain_axes",
           "save_svg"]

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


def pen(k: int, dashed: bool = False):
    """The k-th curve colour, two pixels wide, optionally dashed."""
    style = {"style": pg.QtCore.Qt.PenStyle.DashLine} if dashed else {}
    return pg.mkPen(COLORS[k % len(COLORS)], width=2, **style)


def new_plot(layout: pg.GraphicsLayoutWidget, row: int, title: str) -> pg.PlotItem:
    """A plot in ``layout`` with grid, a legend under it and dark text."""
    plot = layout.addPlot(row=row, col=0)
    plot.setTitle(title, color="#222222")
    plot.showGrid(x=True, y=True, alpha=0.25)
    legend_below(plot)
    plain_axes(plot)
    return plot


def plain_axes(plot: pg.PlotItem) -> None:
    """Axes in plain SI numbers, dark text."""
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.enableAutoSIPrefix(False)  # "kg m² (x0.001)" reads badly; numbers stay in SI
        axis.setTextPen("#333333")
        axis.setPen("#777777")


class SideLegend(pg.LegendItem):
    """A legend in a cell of its own in a graphics layout (under a plot's view box, or a row under a tab's
    plots), never over the data: the layout sizes the cell from the entries (issue 29: legends over curves).
    Given a width (:meth:`wrap_to`), it puts as many entries a row as fit and the rest in further rows."""

    def __init__(self, columns: int = 1, **kwargs):
        kwargs.setdefault("labelTextColor", "#222222")
        super().__init__(offset=None, colCount=columns, **kwargs)
        self.layout.setContentsMargins(2, 2, 2, 2)   # Qt's default 6 px a side, twice a row's room again
        self.width_limit: float | None = None
        self._wrapped: tuple | None = None   # (width, entries' names) of the last wrap
        self._followers: dict = {}   # an entry's curve -> the curves shown and hidden with it (follow)
        self.sigSampleClicked.connect(self._sample_clicked)

    def updateSize(self) -> None:
        # the entries' layout's own size (LegendItem.updateSize reads the entries before they are laid out,
        # and moves the legend to its parent's corner)
        size = self.layout.preferredSize()
        self.setMinimumSize(size)
        self.setMaximumSize(size)
        self.resize(size)
        self.updateGeometry()  # the layout gives the cell that size on its next pass

    def addItem(self, item, name) -> None:
        super().addItem(item, name)
        self._rewrap()

    def removeItem(self, item) -> None:
        super().removeItem(item)
        self._rewrap()

    def clear(self) -> None:
        super().clear()
        self._followers = {}

    def follow(self, item, *others) -> None:
        """Clicking ``item``'s entry shows or hides ``others`` with it (one legend entry for a joint's curves in
        every plot of a tab)."""
        self._followers.setdefault(item, []).extend(others)

    def _sample_clicked(self, item) -> None:
        for other in self._followers.get(item, ()):
            other.setVisible(item.isVisible())

    def wrap_to(self, width: float) -> None:
        """As many entries a row as fit in ``width`` pixels, the rest in further rows (a legend wider than its
        layout would widen the whole scene past the window's edge)."""
        self.width_limit = width
        self._rewrap()

    def _rewrap(self) -> None:
        key = (self.width_limit, tuple(label.text for _sample, label in self.items))   # the same entries again
        if self.width_limit is None or not self.items or self._wrapped == key:
            return
        self._wrapped = key
        for columns in range(len(self.items), 0, -1):   # the most that fit (a handful of entries: cheap)
            self.setColumnCount(columns)
            if self.layout.preferredWidth() <= self.width_limit:
                break
        self.updateSize()


def legend_below(plot: pg.PlotItem) -> SideLegend:
    """The plot's legend, under its view box and bottom axis (outside the data area), wrapped to the view's
    width; curves plotted with a name join it."""
    if isinstance(plot.legend, SideLegend):
        return plot.legend
    legend = SideLegend()
    plot.layout.addItem(legend, 4, 1)
    plot.layout.setAlignment(legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    plot.legend = legend
    plot.vb.sigResized.connect(lambda *_: legend.wrap_to(plot.vb.width()))
    return legend


def fit_y(plot: pg.PlotItem) -> None:
    """Autorange, except that a constant curve gets a sensible band instead of rounding noise."""
    curves = [item.getData()[1] for item in plot.listDataItems()]
    ys = np.concatenate([y[np.isfinite(y)] for y in curves]) if curves else np.zeros(0)
    if len(ys) == 0:
        return
    lo, hi = float(ys.min()), float(ys.max())
    if hi - lo <= 1e-9 * max(abs(lo), abs(hi), 1e-12):
        pad = max(0.05 * abs(hi), 1e-6)
        plot.setYRange(lo - pad, hi + pad, padding=0)
    else:
        plot.enableAutoRange(axis="y")
        plot.vb.updateAutoRange()


def save_svg(widget, path: str | Path, title: str = "") -> None:
    """Paint ``widget`` into an SVG file.

    pyqtgraph 0.14's SVGExporter cannot parse the path syntax Qt 6.12 writes
    (``ValueError: not enough values to unpack``), so Qt's own generator is used.
    """
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle(title)
    painter = QPainter(generator)
    try:
        widget.render(painter)
    finally:
        painter.end()
