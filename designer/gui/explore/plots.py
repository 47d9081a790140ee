"""A plot with PNG/SVG/CSV export buttons, and a heat map with a colour bar, for the Explore views."""

from __future__ import annotations

import csv
from pathlib import Path
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QRect, QRectF, Signal
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from ..folders import last_folder, remember_folder
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

__all__ = ["PlotBox", "HeatMap", "write_csv", "CsvData", "is_flat", "empty_plot"]

# (header, rows) of a plot's data
CsvData = tuple[Sequence[str], Sequence[Sequence[float]]]


def write_csv(path: str | Path, header: Sequence[str], rows: Sequence[Sequence]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(header)
        for row in rows:
            writer.writerow([f"{v:.10g}" if isinstance(v, (float, np.floating)) else v for v in row])


def empty_plot(plot: pg.PlotItem) -> None:
    """Every curve and scatter of ``plot`` without points, its legend and title empty: nothing of a result
    stays drawn (the items stay, as views keep some of them; a curve's next data refills its legend)."""
    for item in plot.listDataItems():
        if plot.legend is not None:
            plot.legend.removeItem(item)
        item.setData(x=[], y=[])
    plot.setTitle(None)
    blank_range(plot)


def blank_range(plot: pg.PlotItem, follow_data: bool = True) -> None:
    """The axes' numbers back to a blank plot's (the old result's joint angles or parameter values stayed on
    them: issue 29); with ``follow_data`` the next result's curves set the range again (a heat map sets its own:
    its cleared image keeps the old placement, which autorange would centre on)."""
    plot.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0)
    if follow_data:
        plot.enableAutoRange()


class PlotBox(QWidget):
    """One pyqtgraph plot with a title line and PNG / SVG / CSV buttons.

    ``csv_data`` returns the plotted data as (header, rows), or raises ValueError when nothing
    is plotted. Export failures are reported through :attr:`failed` (never raised to Qt).
    """

    failed = Signal(str)
    exported = Signal(str)

    def __init__(self, csv_data: Callable[[], CsvData], parent: QWidget | None = None):
        super().__init__(parent)
        self.csv_data = csv_data
        self.stale = ""   # why the plot is out of date ("" when it is not): exports refuse then
        # the pyqtgraph plot (about 50 ms with its context menus) is built on first show or first use:
        # most boxes sit in tabs a session may never open (issue 29: the window in a second)
        self._layout_widget: pg.GraphicsLayoutWidget | None = None
        self._plot: pg.PlotItem | None = None
        self._setups: list[Callable[[PlotBox], object]] = []
        self.blank_labels: dict[str, str] = {}   # the axis titles before any result (after the setups)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        bar = QHBoxLayout()
        bar.addWidget(self.caption, 1)
        self.buttons = {}
        for kind, text in (("png", "PNG…"), ("svg", "SVG…"), ("csv", "CSV…")):
            button = QPushButton(text, self)
            button.setToolTip(f"Save {'the data' if kind == 'csv' else 'the plot'} as {kind.upper()}")
            button.clicked.connect(lambda _=False, k=kind: self._export_dialog(k))
            bar.addWidget(button)
            self.buttons[kind] = button
        self._outer = QVBoxLayout(self)
        self._outer.setContentsMargins(0, 0, 0, 0)
        self._outer.addStretch(1)   # the plot's place until it is built
        self._outer.addLayout(bar)

    # -- the plot, built when first needed ------------------------------------------
    @property
    def built(self) -> bool:
        """Whether the plot exists (it is built on first show, or when code first asks for it)."""
        return self._plot is not None

    @property
    def plot(self) -> pg.PlotItem:
        return self.build()

    @property
    def layout_widget(self) -> pg.GraphicsLayoutWidget:
        self.build()
        assert self._layout_widget is not None
        return self._layout_widget

    def on_build(self, setup: Callable[[PlotBox], object]) -> None:
        """Call ``setup(box)`` once the plot exists (at once when it does): a view's items and axis titles."""
        if self._plot is not None:
            setup(self)
        else:
            self._setups.append(setup)

    def build(self) -> pg.PlotItem:
        """Build the plot (once) and run the setups given to :meth:`on_build`, in order."""
        if self._plot is not None:
            return self._plot
        widget = pg.GraphicsLayoutWidget(self)
        widget.setBackground("w")
        plot: pg.PlotItem = widget.addPlot(row=0, col=0)
        plot.showGrid(x=True, y=True, alpha=0.2)
        for side in ("left", "bottom"):
            plot.getAxis(side).enableAutoSIPrefix(False)  # "(x0.001)" on a ratio reads as a unit
        self._outer.takeAt(0)   # the placeholder
        self._outer.insertWidget(0, widget, 1)
        self._layout_widget, self._plot = widget, plot
        setups, self._setups = self._setups, []
        for setup in setups:
            setup(self)
        self.blank_labels = {side: plot.getAxis(side).labelText for side in ("left", "bottom")}
        return plot

    def showEvent(self, event) -> None:
        self.build()
        super().showEvent(event)

    # -- export -------------------------------------------------------------------
    def add_legend(self) -> None:
        """A legend (when the plot is built) under the plot, outside the data area."""
        self.on_build(PlotBox._legend)

    @staticmethod
    def _legend(box: PlotBox) -> None:
        from ..plot_style import legend_below
        legend_below(box.plot)

    def require_fresh(self) -> None:
        if self.stale:
            raise ValueError(f"the plot is out of date ({self.stale}); compute it again before exporting")

    def export_image(self, path: str | Path) -> Path:
        """Save the plot as PNG or SVG, by the file's suffix (PNG when it has none)."""
        self.require_fresh()
        path = Path(path)
        if path.suffix.lower() == ".svg":
            # pyqtgraph 0.14's SVGExporter fails on the path data Qt 6.12 produces; Qt's generator works
            w, h = self.layout_widget.width(), self.layout_widget.height()
            generator = QSvgGenerator()
            generator.setFileName(str(path))
            generator.setSize(self.layout_widget.size())
            generator.setViewBox(QRect(0, 0, w, h))
            painter = QPainter(generator)
            try:
                self.layout_widget.render(painter)
            finally:
                painter.end()
        else:
            path = path if path.suffix else path.with_suffix(".png")
            exporter = pg_exporters.ImageExporter(self.layout_widget.ci)
            exporter.parameters()["width"] = max(self.layout_widget.width(), 800)
            exporter.export(str(path))
        return path

    def export_csv(self, path: str | Path) -> Path:
        self.require_fresh()
        header, rows = self.csv_data()
        write_csv(path, header, rows)
        return Path(path)

    def _export_dialog(self, kind: str) -> None:
        filters = {"png": "PNG image (*.png)", "svg": "SVG image (*.svg)", "csv": "CSV data (*.csv)"}
        try:
            self.require_fresh()
        except ValueError as exc:
            self.failed.emit(str(exc))
            return
        path, _ = QFileDialog.getSaveFileName(self, f"Export {kind.upper()}", str(last_folder() / f"explore.{kind}"),
                                              filters[kind])
        if not path:
            return
        path = path if Path(path).suffix else f"{path}.{kind}"
        try:
            written = self.export_csv(path) if kind == "csv" else self.export_image(path)
        except (OSError, ValueError) as exc:
            self.failed.emit(f"export to {path}: {exc}")
            return
        remember_folder(written)
        self.exported.emit(str(written))


FLAT = 1e-9   # a map whose values differ by less than this share of their size is constant (round-off)


def is_flat(values: np.ndarray) -> bool:
    """Whether the finite values are one constant up to round-off."""
    v = values[np.isfinite(values)]
    return bool(v.size) and float(v.max() - v.min()) <= FLAT * float(np.abs(v).max())


def _finite_range(values: np.ndarray) -> tuple[float, float]:
    v = values[np.isfinite(values)]
    if v.size == 0:
        return 0.0, 1.0
    lo, hi = float(v.min()), float(v.max())
    if is_flat(values):  # constant up to round-off: one colour, not noise
        lo = hi = 0.5 * (lo + hi)
    if hi <= lo:  # a constant map still needs a colour range: a readable one about the value (the
        pad = 0.05 * abs(lo) or 1.0   # bar's axis shows no labels over a range of 1e-6 of it)
        lo, hi = lo - pad, hi + pad
    return lo, hi


class HeatMap:
    """An ImageItem with a ColorBarItem in a :class:`PlotBox`; pixels centred on the grid values."""

    def __init__(self, box: PlotBox, colormap: str = "viridis"):
        self.box = box
        self.colormap = colormap
        self._image: pg.ImageItem | None = None
        self._colorbar: pg.ColorBarItem | None = None   # a plot of its own: built with the box's
        self.values = np.zeros((0, 0))
        box.on_build(self._build)

    def _build(self, box: PlotBox) -> None:
        self._image = pg.ImageItem(axisOrder="row-major")
        box.plot.showGrid(x=False, y=False)
        box.plot.addItem(self._image)
        self._colorbar = pg.ColorBarItem(values=(0, 1), colorMap=self.colormap, interactive=False, width=18)
        self._colorbar.setImageItem(self._image, insert_in=box.plot)
        self._colorbar.axis.enableAutoSIPrefix(False)   # "(x0.001)" beside a unit reads as part of it
        self._colorbar.hide()   # until there is a map to read

    @property
    def image(self) -> pg.ImageItem:
        self.box.build()
        assert self._image is not None
        return self._image

    @property
    def colorbar(self) -> pg.ColorBarItem:
        self.box.build()
        assert self._colorbar is not None
        return self._colorbar

    def set_data(self, x: np.ndarray, y: np.ndarray, values: np.ndarray) -> None:
        """``values[iy, ix]`` at (x[ix], y[iy]); non-finite cells are left transparent."""
        self.values = np.asarray(values, float)
        shown = np.where(np.isfinite(self.values), self.values, np.nan)
        lo, hi = _finite_range(shown)
        if is_flat(shown):   # one colour, the middle of a bar about the value (round-off is no texture)
            shown = np.where(np.isfinite(shown), 0.5 * (lo + hi), np.nan)
        self.image.setImage(shown, autoLevels=False, levels=(lo, hi))
        self.colorbar.setLevels((lo, hi))
        self.colorbar.show()
        dx = (x[-1] - x[0]) / (len(x) - 1) if len(x) > 1 else 1.0
        dy = (y[-1] - y[0]) / (len(y) - 1) if len(y) > 1 else 1.0
        self.image.setRect(QRectF(x[0] - dx / 2, y[0] - dy / 2, dx * len(x), dy * len(y)))
        self.box.plot.setRange(xRange=(x[0] - dx / 2, x[-1] + dx / 2), yRange=(y[0] - dy / 2, y[-1] + dy / 2),
                               padding=0)

    def set_label(self, text: str) -> None:
        """The colour bar's axis title (the quantity and its unit)."""
        self.colorbar.axis.setLabel(text)

    def clear(self) -> None:
        self.values = np.zeros((0, 0))
        if not self.box.built:
            return   # nothing drawn yet
        self.image.clear()
        # no map, no colour bar: the last one's range belonged to another result (issue 29: it stayed on
        # after opening another project, until Compute)
        self.colorbar.axis.setLabel("")
        self.colorbar.setLevels((0.0, 1.0))
        self.colorbar.hide()
        blank_range(self.box.plot, follow_data=False)
