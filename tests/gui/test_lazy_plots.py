"""The Explore plots are made when first shown or first used (issue 29: the window in a second; each pyqtgraph plot
with its context menus took about 50 ms, a heat map's colour bar as much again)."""

from __future__ import annotations

from designer.gui.explore.plots import PlotBox


def test_explore_plots_are_built_on_first_show_with_their_items(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    boxes = window.explore.findChildren(PlotBox)
    assert len(boxes) >= 9 and not any(box.built for box in boxes)   # the Explore tab was never shown
    window.result_tabs.setCurrentWidget(window.explore_scroll)
    map_view = window.explore.map_view
    qtbot.waitUntil(lambda: map_view.box.built, timeout=10_000)
    assert map_view.marker in map_view.box.plot.items   # what the view gave on_build is in the plot
    assert not window.explore.sizing_view.curves.built   # a tab not shown yet
    window.explore.tabs.setCurrentWidget(window.explore.significance_view)
    view = window.explore.significance_view
    qtbot.waitUntil(lambda: view.box.built, timeout=10_000)
    assert view.box.plot.getAxis("left").labelText == "share of T_i" and view.scatter in view.box.plot.items
    assert view.box.blank_labels["left"] == "share of T_i"   # what forget_project puts back


def test_a_heat_map_is_built_when_its_data_comes_before_any_show(qtbot):
    import numpy as np

    from designer.gui.explore.plots import HeatMap
    box = PlotBox(lambda: ([], []))
    qtbot.addWidget(box)
    heat = HeatMap(box)
    assert not box.built
    heat.clear()   # nothing drawn: nothing to clear, and nothing built for it
    assert not box.built
    values = np.arange(6.0).reshape(2, 3)
    heat.set_data(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0]), values)
    assert box.built and np.array_equal(heat.image.image, values)
    assert heat.colorbar.levels() == (0.0, 5.0)
