"""Legends never lie over curves (issue 29 item 15): every entry's rectangle, in scene coordinates, holds no
point of any curve, in the Simulate tab after a PUMA fall at 1366 x 768 (plots about 70 px tall, six joints),
the Coupling tab and the Explore Sweep plot."""

from __future__ import annotations


import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, QRectF

from tests.gui.test_design_report import shown_window
from tests.gui.test_explore_panel import run

pytestmark = pytest.mark.usefixtures("no_dialogs")


def entry_rects(legend: pg.LegendItem) -> list:
    return [part.sceneBoundingRect() for sample, label in legend.items for part in (sample, label)]


def covered(plots, legend: pg.LegendItem) -> list:
    """The curve points (scene coordinates) of ``plots`` under an entry of ``legend``."""
    rects = entry_rects(legend)
    out = []
    for plot in plots:
        for item in plot.listDataItems():
            x, y = item.getData()
            for px, py in zip(x, y):
                point = plot.vb.mapViewToScene(QPointF(float(px), float(py)))
                out += [point for r in rects if r.contains(point)]
    return out


def whole(plot: pg.PlotItem, widget: pg.GraphicsView) -> bool:
    """The plot (title, axes, view, legend) lies inside the widget's visible area: nothing cut at the edges."""
    return QRectF(widget.viewport().rect()).contains(plot.sceneBoundingRect())


def settled(qtbot, plots, legend) -> None:
    """Wait until the layout has given the legend its cell (its entries laid out, off every view box)."""
    def ready():
        rects = entry_rects(legend)
        return bool(rects) and all(r.height() > 1 for r in rects) and not any(
            r.intersects(plot.vb.sceneBoundingRect()) for r in rects for plot in plots)
    qtbot.waitUntil(ready, timeout=60_000)


@pytest.mark.parametrize("shape", ["rising", "falling", "hump", "oscillating"])
def test_a_legend_under_the_plot_leaves_every_curve_visible(qtbot, shape):
    from designer.gui.plot_style import new_plot
    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    widget.resize(500, 160)
    plot = new_plot(widget, 0, "")
    t = np.linspace(0, 1, 400)
    y = {"rising": t, "falling": 1 - t, "hump": np.sin(np.pi * t), "oscillating": np.sin(12 * np.pi * t)}[shape]
    for k in range(6):
        plot.plot(t, y + 0.02 * k, pen=k, name=f"q{k + 1}")
    widget.show()
    qtbot.waitExposed(widget)
    settled(qtbot, [plot], plot.legend)
    assert len(plot.legend.items) == 6 and not covered([plot], plot.legend)
    assert plot.vb.sceneBoundingRect().width() > 250   # the plot keeps most of the width


def test_the_simulate_legend_covers_no_curve_after_a_puma_fall_at_1366x768(qtbot, tmp_path):
    w = shown_window(qtbot, tmp_path, "puma560")
    w.result_tabs.setCurrentWidget(w.simulate)
    panel = w.simulate
    panel.duration.setValue(0.5)
    with qtbot.waitSignal(panel.finished, timeout=120_000):
        assert panel.run() is not None
    plots = panel._shown_plots()
    assert len(panel.legend.items) >= 7   # six joints and the energy
    settled(qtbot, plots, panel.legend)
    assert len(panel.q_plot.listDataItems()) == 6 and panel.e_plot.listDataItems()   # a fall: no torques
    assert not covered(plots, panel.legend)
    # the legend wraps into rows: nothing widens the scene past the tab's edge (the time axis reads to its end)
    edge = panel.plots.viewport().width()
    assert panel.legend.sceneBoundingRect().right() <= edge
    assert all(plot.vb.sceneBoundingRect().right() <= edge for plot in plots)
    # the x-linked plots' data areas line up (one time line down the tab): their left axes are as wide
    assert len({round(plot.vb.sceneBoundingRect().left()) for plot in plots}) == 1
    # each plot keeps a useful height at 1366 x 768 (the legend takes a row, not the plots' room)
    assert min(plot.vb.sceneBoundingRect().height() for plot in plots) > 40


def test_coupling_legends_cover_no_curve(qtbot, tmp_path):
    w = shown_window(qtbot, tmp_path, "puma560")
    w.result_tabs.setCurrentWidget(w.coupling)
    coupling = w.coupling
    coupling.set_pair(1, 2)
    coupling.set_swept_joint(2)
    coupling.refresh()
    plots = [coupling.plot_coupling, coupling.plot_normalised, coupling.plot_coefficients]
    for plot in plots:
        settled(qtbot, [plot], plot.legend)
        assert plot.listDataItems() and not covered([plot], plot.legend)
    # x-linked plots keep their view boxes aligned: the joint marker lines are one vertical line
    assert all(whole(plot, coupling.joint_plots) for plot in plots)
    lefts = {round(plot.vb.sceneBoundingRect().left()) for plot in plots}
    rights = {round(plot.vb.sceneBoundingRect().right()) for plot in plots}
    assert len(lefts) == 1 and len(rights) == 1, (lefts, rights)


def test_the_sweep_legend_covers_no_curve(qtbot, tmp_path):
    w = shown_window(qtbot, tmp_path, "puma560")
    w.result_tabs.setCurrentWidget(w.explore_scroll)
    panel = w.explore
    sweep = panel.sweep_view
    panel.tabs.setCurrentWidget(sweep)
    sweep.params[0].setCurrentText("a2")
    sweep.counts[0].setValue(5)
    sweep.params[1].setCurrentIndex(0)
    sweep.samples.setValue(60)
    assert run(qtbot, panel, sweep.run, timeout=120_000) == "finished", panel.error_label.text()
    plot = sweep.curves.plot
    settled(qtbot, [plot], plot.legend)
    assert plot.listDataItems() and not covered([plot], plot.legend)
    # at 1366 x 768 the Sweep plot shows whole: its title, bottom axis and legend (it was clipped, issue 29)
    assert whole(plot, sweep.curves.layout_widget)
    assert plot.titleLabel.isVisible() and plot.getAxis("bottom").labelText
    # the summary shown reads whole in its combo ("Inertial coupling, maximum" read "Inertial coupling, n")
    combo = sweep.show_key
    longest = max(combo.fontMetrics().horizontalAdvance(combo.itemText(k)) for k in range(combo.count()))
    assert combo.width() >= longest + 30


def test_a_legend_rewraps_when_longer_names_replace_its_entries(qtbot):
    """The next result's entries, as many as the last's but longer, go into more rows: the legend stays within
    the plot's width (the wrap is not kept from the shorter names)."""
    from designer.gui.plot_style import new_plot
    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    widget.resize(420, 300)
    plot = new_plot(widget, 0, "")
    widget.show()
    qtbot.waitExposed(widget)
    t = np.linspace(0, 1, 50)
    for names in (["a", "b", "c"], ["a rather long curve name " + k for k in "abc"]):
        plot.clearPlots()
        for k, name in enumerate(names):
            plot.plot(t, t * k, pen=k, name=name)
        settled(qtbot, [plot], plot.legend)
        qtbot.waitUntil(lambda: plot.legend.sceneBoundingRect().right() <= widget.viewport().width(), timeout=60_000)
        assert whole(plot, widget) and not covered([plot], plot.legend)
    assert plot.legend.columnCount < 3


class _LeftClick:
    """What a legend sample's mouseClickEvent reads of a left click."""

    def button(self):
        from PySide6.QtCore import Qt
        return Qt.MouseButton.LeftButton

    def accept(self):
        pass


def test_a_joints_legend_entry_hides_and_shows_its_curves_in_every_plot(qtbot, tmp_path):
    # the Simulate tab's one legend names each joint once ("joint k"): clicking it hides that joint's position and
    # torque curves together, the other joints' stay; a second click shows both again
    w = shown_window(qtbot, tmp_path, "puma560")
    w.result_tabs.setCurrentWidget(w.simulate)
    panel = w.simulate
    panel.motion.setCurrentText("PD move")
    panel.target.setText("10 -20 30 0 15 0")   # degrees
    panel.duration.setValue(0.3)
    with qtbot.waitSignal(panel.finished, timeout=120_000):
        assert panel.run() is not None
    q_curves, tau_curves = panel.q_plot.listDataItems(), panel.tau_plot.listDataItems()
    assert len(q_curves) == 6 and len(tau_curves) == 6
    sample, label = panel.legend.items[1]
    assert label.text == "joint 2"
    sample.mouseClickEvent(_LeftClick())
    assert [c.isVisible() for c in q_curves] == [True, False, True, True, True, True]
    assert [c.isVisible() for c in tau_curves] == [True, False, True, True, True, True]
    sample.mouseClickEvent(_LeftClick())
    assert all(c.isVisible() for c in (*q_curves, *tau_curves))
