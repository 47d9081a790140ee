"""Shared look of the pyqtgraph plots (light background, SI numbers) and SVG export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator

__all__ = ["COLORS", "pen", "new_plot", "fit_y", "save_svg"]

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]


def pen(k: int, dashed: bool = False):
    """The k-th curve colour, two pixels wide, optionally dashed."""
    style = {"style": pg.QtCore.Qt.PenStyle.DashLine} if dashed else {}
    return pg.mkPen(COLORS[k % len(COLORS)], width=2, **style)


def new_plot(layout: pg.GraphicsLayoutWidget, row: int, title: str) -> pg.PlotItem:
    """A plot in ``layout`` with grid, legend and dark text."""
    plot = layout.addPlot(row=row, col=0)
    plot.setTitle(title, color="#222222")
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.addLegend(offset=(-10, 10), labelTextColor="#222222", brush=pg.mkBrush(255, 255, 255, 200))
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.enableAutoSIPrefix(False)  # "kg m² (x0.001)" reads badly; numbers stay in SI
        axis.setTextPen("#333333")
        axis.setPen("#777777")
    return plot


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
