"""A six-curve legend over a short plot (a Simulate plot at 1366 x 768 is about 70 px tall) covers no curve."""
import numpy as np
import pyqtgraph as pg

from designer.gui.plot_style import fit_y


def test_six_joint_legend_on_short_plot_covers_no_curve_point(qtbot):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(900, 110)
    widget.show()
    qtbot.waitExposed(widget)
    plot = widget.getPlotItem()
    plot.addLegend(offset=(6, 6))
    t = np.linspace(0, 2, 400)
    for j in range(6):   # every curve crosses every corner
        plot.plot(t, np.sin(2 * np.pi * (t + j / 6)), name=f"q{j + 1}", pen=pg.intColor(j, 6))
    fit_y(plot)
    qtbot.waitUntil(lambda: plot.vb.boundingRect().height() > 1, timeout=10000)
    fit_y(plot)   # laid out now: the real view size
    pg.QtWidgets.QApplication.processEvents()
    points = []
    for item in plot.listDataItems():
        x, y = item.getData()
        for xi, yi in zip(x, y):
            points.append(plot.vb.mapViewToScene(pg.QtCore.QPointF(xi, yi)))
    rects = [part.sceneBoundingRect() for sample, label in plot.legend.items for part in (sample, label)]
    assert rects
    covered = [p for p in points for r in rects if r.contains(p)]
    assert not covered, f"{len(covered)} curve points under the legend"
