"""The Requirements tab (gui/requirements.py): live pass/fail computed in the worker, undoable edits through the
document, clicking a requirement poses the arm where it is worst."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from designer.project import load_project
from tests.support.windows import open_window
from designer.review import review

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, ROBOTS / "tube_arm_requirements.json")


def results(panel):
    return [panel.table.item(r, 4).text() for r in range(panel.table.rowCount())]


def wait_reviewed(qtbot, panel, model):
    qtbot.waitUntil(lambda: panel.reviewed_model is not None and panel._current(model, panel.reviewed_model)
                    and panel.outcomes is not None and not panel.runner.busy, timeout=120_000)


def test_the_tab_reviews_edits_undoes_and_poses_the_arm(qtbot, window):
    panel = window.requirements
    doc = window.document
    wait_reviewed(qtbot, panel, doc.model)
    expected = review(doc.model, strict=False)   # the core's review, run here in the test's thread
    assert [o.passed for o in panel.outcomes] == [o.passed for o in expected]
    shown = results(panel)
    assert shown[0].startswith("FAIL") and all(t.startswith("pass") for t in shown[1:])
    assert panel.summary.text() == "7 of 8 requirement(s) pass"

    # loosen the sag bound in the table: one undoable edit, reviewed again, now all pass
    panel.table.item(0, 2).setText("1.5")
    assert doc.model.requirements.items[0].value == 1.5
    wait_reviewed(qtbot, panel, doc.model)
    assert all(t.startswith("pass") for t in results(panel))
    assert panel.summary.text() == "8 of 8 requirement(s) pass"
    doc.undo_stack.undo()
    assert doc.model.requirements.items[0].value == 0.7
    wait_reviewed(qtbot, panel, doc.model)
    assert results(panel)[0].startswith("FAIL")

    # a refused entry loses nothing
    panel.table.item(0, 2).setText("lots")
    assert doc.model.requirements.items[0].value == 0.7 and panel.table.item(0, 2).text() == "0.7"
    assert "finite number" in panel.summary.text()

    # clicking the torque-load requirement poses the arm at its worst state along the cycle
    row = 2
    worst = panel.outcomes[row]
    assert worst.time is not None
    assert panel.show_worst(row)
    np.testing.assert_allclose(window.sliders.values(), worst.pose, atol=1e-12)

    # add and remove, each undoable; a project opened without requirements shows none
    n = len(doc.model.requirements.items)
    panel.add_button.click()
    assert len(doc.model.requirements.items) == n + 1 and panel.table.rowCount() == n + 1
    panel.table.selectRow(n)
    panel.remove_button.click()
    assert len(doc.model.requirements.items) == n
    doc.undo_stack.undo()
    assert len(doc.model.requirements.items) == n + 1
    wait_reviewed(qtbot, panel, doc.model)
    assert len(panel.outcomes) == n + 1 and panel.table.item(n, 4).text().startswith(("pass", "FAIL"))


def test_payload_edit_changes_the_reviewed_sag(qtbot, window, tmp_path):
    panel = window.requirements
    doc = window.document
    wait_reviewed(qtbot, panel, doc.model)
    sag = panel.outcomes[0].value
    panel.payload_mass.setValue(1.0)
    assert doc.model.requirements.payload.mass == 1.0
    wait_reviewed(qtbot, panel, doc.model)
    assert panel.outcomes[0].value < sag   # the arm sags less with 1 kg than with 5 kg
    # saved and opened again: the edit is in the file (format version 4)
    path = tmp_path / "edited.json"
    from designer.project import save_project
    save_project(doc.model, path)
    assert json.loads(path.read_text())["payload"]["mass"] == 1.0
    doc.reset(load_project(ROBOTS / "puma560.json"))
    assert panel.table.rowCount() == 0 and panel.outcomes == []
    qtbot.waitUntil(lambda: not panel.runner.busy, timeout=120_000)


def test_where_and_the_cycle_are_edited_from_the_slider_pose(qtbot, window):
    panel = window.requirements
    doc = window.document
    wait_reviewed(qtbot, panel, doc.model)
    window.sliders.set_values([0.3, -0.8, 1.0])
    q = tuple(window.sliders.values())
    panel._where_chosen(0, "this pose")
    assert doc.model.requirements.items[0].where.poses == (q,)
    window.sliders.set_values([0.0, -0.5, 0.5])
    panel._where_chosen(0, "+ this pose")
    assert doc.model.requirements.items[0].where.poses == (q, tuple(window.sliders.values()))
    wait_reviewed(qtbot, panel, doc.model)
    o = panel.outcomes[0]
    assert o.pose in doc.model.requirements.items[0].where.poses    # the worst of the two poses
    before = len(doc.model.requirements.cycle.waypoints)
    panel.add_waypoint()
    assert len(doc.model.requirements.cycle.waypoints) == before + 1
    assert doc.model.requirements.cycle.waypoints[-1] == tuple(window.sliders.values())
    panel.cycle_time.setValue(4.0)
    assert doc.model.requirements.cycle.time == 4.0
    panel.clear_cycle()   # refused: requirements hold along it
    assert doc.model.requirements.cycle is not None and "Where" in panel.summary.text()
    for _ in range(4):
        doc.undo_stack.undo()
    assert doc.model.requirements == load_project(ROBOTS / "tube_arm_requirements.json").requirements
    wait_reviewed(qtbot, panel, doc.model)


def test_the_window_s_design_report_includes_the_tab_s_review(qtbot, window, tmp_path):
    from designer.gui.design_export import export_design_report
    panel = window.requirements
    wait_reviewed(qtbot, panel, window.document.model)
    target = tmp_path / "report.html"
    with qtbot.waitSignal(window.exported, timeout=120_000):
        assert export_design_report(window, "html", target)
    html = target.read_text(encoding="utf-8")
    assert '<h2 id="review">Design review</h2>' in html and "7 of 8 requirement(s) pass" in html
    for o in panel.outcomes:
        assert o.requirement.name in html and f"{o.value:.4g}" in html
