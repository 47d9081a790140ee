"""Shared look of the pyqtgraph plots (light background, SI numbers) and SVG export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator

__all__ = ["COLORS", "pen", "new_plot", "fit_y", "place_legend", "plain_axes", "save_svg"]

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
    plain_axes(plot)
    return plot


def plain_axes(plot: pg.PlotItem) -> None:
    """Axes in plain SI numbers, dark text."""
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.enableAutoSIPrefix(False)  # "kg m² (x0.001)" reads badly; numbers stay in SI
        axis.setTextPen("#333333")
        axis.setPen("#777777")


# the legend's corner: (its anchor on the legend, on the view box, offset in pixels)
_CORNERS = {"top right": ((1, 0), (1, 0), (-10, 10)), "top left": ((0, 0), (0, 0), (10, 10)),
            "bottom left": ((0, 1), (0, 1), (10, -10)), "bottom right": ((1, 1), (1, 1), (-10, -10))}


def place_legend(plot: pg.PlotItem) -> str | None:
    """Put the plot's legend in the corner its curves cross least: the fraction of each curve's points in a
    box of the legend's size (and offset) at each corner of the data's extent, summed; ties go to the top
    right. When the curves cross every corner, the y range gets headroom above the data so the legend
    (top right) covers none. Returns the corner chosen (None without legend or data)."""
    legend = plot.legend
    xs, ys = [], []
    for item in plot.listDataItems():
        x, y = item.getData()
        if x is None or y is None or len(x) == 0:
            continue
        keep = np.isfinite(x) & np.isfinite(y)
        xs.append(np.asarray(x, float)[keep])
        ys.append(np.asarray(y, float)[keep])
    if legend is None or not xs or not sum(len(x) for x in xs):
        return None
    x_lo, x_hi = min(x.min() for x in xs), max(x.max() for x in xs)
    y_lo, y_hi = min(y.min() for y in ys), max(y.max() for y in ys)
    w, h = max(x_hi - x_lo, 1e-300), max(y_hi - y_lo, 1e-300)
    view, box = plot.vb.boundingRect(), legend.boundingRect()
    # the legend's share of the view (its offset included), a third of it before the plot is laid out
    share_x = min((box.width() + 12) / view.width(), 1.0) if view.width() > 1 else 0.33
    share_y = min((box.height() + 12) / view.height(), 1.0) if view.height() > 1 else 0.33

    def crowd(right: bool, top: bool) -> float:
        total = 0.0
        for x, y in zip(xs, ys):
            u, v = (x - x_lo) / w, (y - y_lo) / h
            inside = (((u >= 1 - share_x) if right else (u <= share_x))
                      & ((v >= 1 - share_y) if top else (v <= share_y)))
            total += float(inside.mean()) if len(u) else 0.0
        return total
    scores = {name: crowd("right" in name, "top" in name) for name in _CORNERS}
    corner = min(_CORNERS, key=lambda name: (scores[name], list(_CORNERS).index(name)))
    if scores[corner] > 0 and share_y < 0.5:
        # every corner has curve in it: make room above the data for the legend instead of covering a curve
        corner = "top right"
        top = y_hi + h * share_y / (1 - share_y)
        bottom = y_lo - 0.02 * h
        (_, _), (now_lo, now_hi) = plot.vb.viewRange()
        if not (np.isclose(now_lo, bottom, rtol=1e-9, atol=1e-12 * h)
                and np.isclose(now_hi, top, rtol=1e-9, atol=1e-12 * h)):   # no loop via sigRangeChanged
            plot.vb.setYRange(bottom, top, padding=0)
    item_pos, parent_pos, offset = _CORNERS[corner]
    legend.anchor(item_pos, parent_pos, offset)
    return corner


def fit_y(plot: pg.PlotItem) -> None:
    """Autorange, except that a constant curve gets a sensible band instead of rounding noise; the legend
    goes to the corner the curves leave emptiest (placed last: it may give the range headroom)."""
    curves = [item.getData()[1] for item in plot.listDataItems()]
    ys = np.concatenate([y[np.isfinite(y)] for y in curves]) if curves else np.zeros(0)
    if len(ys) == 0:
        place_legend(plot)
        return
    lo, hi = float(ys.min()), float(ys.max())
    if hi - lo <= 1e-9 * max(abs(lo), abs(hi), 1e-12):
        pad = max(0.05 * abs(hi), 1e-6)
        plot.setYRange(lo - pad, hi + pad, padding=0)
    else:
        plot.enableAutoRange(axis="y")
        plot.vb.updateAutoRange()
    place_legend(plot)


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
