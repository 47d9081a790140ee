"""Opening another project leaves nothing of the last one on Explore's plots (issue 29 item 15): after a PUMA
map, the palletizer's map shows no colour bar and no axis numbers of the PUMA's joint angles until Compute."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.gui.test_design_report import shown_window
from tests.gui.test_explore_panel import run

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


def test_a_new_project_starts_explore_without_the_last_map(qtbot, tmp_path):
    w = shown_window(qtbot, tmp_path, "puma560")
    w.result_tabs.setCurrentWidget(w.explore_scroll)
    panel, view = w.explore, w.explore.map_view
    panel.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.box.built, timeout=60_000)
    assert not view.heat.colorbar.isVisible()          # no map yet: no colour bar to read
    view.steps.setValue(9)
    view.samples.setValue(0)
    assert run(qtbot, panel, view.compute, timeout=120_000) == "finished", panel.error_label.text()
    bar = view.heat.colorbar
    qtbot.waitUntil(bar.isVisible, timeout=60_000)
    levels = bar.levels()
    (x_lo, x_hi), (y_lo, y_hi) = view.box.plot.vb.viewRange()
    assert x_hi - x_lo > 90 and levels[1] > levels[0]      # q2, q3 over their limits (deg): the PUMA's map
    assert w.open_example(ROBOTS / "palletizer_parallelogram.json")
    qtbot.waitUntil(lambda: w.document.model.name != "" and view.result is None, timeout=60_000)
    qtbot.waitUntil(lambda: not bar.isVisible(), timeout=60_000)
    assert not view.heat.values.size and view.heat.image.image is None
    for side in ("left", "bottom"):
        assert view.box.plot.getAxis(side).labelText == view.box.blank_labels.get(side, "")
    # a blank plot's numbers, not the PUMA's degrees, also once painted (autorange centred on the cleared image's
    # old place, (-47, -227), at the next paint)
    view.box.plot.vb.updateAutoRange()   # what the next paint does
    (x_lo, x_hi), (y_lo, y_hi) = view.box.plot.vb.viewRange()
    assert np.allclose([x_lo, x_hi, y_lo, y_hi], [0, 1, 0, 1])
    # the palletizer's own map brings its colour bar and range back
    assert run(qtbot, panel, view.compute, timeout=120_000) == "finished", panel.error_label.text()
    qtbot.waitUntil(bar.isVisible, timeout=60_000)
    (x_lo, x_hi), _ = view.box.plot.vb.viewRange()
    assert x_hi - x_lo > 1
