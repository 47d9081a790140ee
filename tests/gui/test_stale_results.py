"""Every Explore view marks a result of an earlier model out of date and refuses to export it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.gui.explore.conditions_view import parse_targets
from designer.gui.explore_panel import ExplorePanel, plain_message
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def planar():
    return load_project(ROBOTS / "planar_two_link.json")


@pytest.fixture
def panel(qtbot, planar):
    p = ExplorePanel()
    qtbot.addWidget(p)
    p.resize(900, 700)
    p.set_model(planar)
    p.set_joint_values(np.array([0.3, 0.6]))
    p.ratings_edits["speed"].setText("2")
    p.ratings_edits["acceleration"].setText("5")
    p.show()
    qtbot.waitExposed(p)
    yield p
    if p.busy:
        p.cancel()
        qtbot.waitUntil(lambda: not p.busy, timeout=120_000)


def run(qtbot, panel, start, timeout=30_000) -> str:
    with qtbot.waitSignal(panel.jobEnded, timeout=timeout) as blocker:
        assert start() is not None, panel.error_label.text()
    return blocker.args[1]


def _compute(qtbot, panel, name: str):
    """Compute a small result in view ``name``; returns the view and its export functions."""
    panel.picker.set_metric("gravity[1]")
    if name == "workspace":
        view = panel.workspace_view
        view.samples.setValue(200)
        assert run(qtbot, panel, view.compute) == "finished"
        exports = [view.box.export_csv, view.box.export_image]
    elif name == "sweep":
        view = panel.sweep_view
        view.params[0].setCurrentText("L1")
        view.counts[0].setValue(3)
        view.samples.setValue(20)
        assert run(qtbot, panel, view.run) == "finished"
        exports = [view.curves.export_csv, view.curves.export_image]
    elif name == "pareto":
        _compute(qtbot, panel, "sweep")
        view = panel.pareto_view
        exports = [view.box.export_csv]
    elif name == "ab":
        view = panel.compare_view
        view.from_variant.setChecked(True)
        view.parameter.setCurrentText("m2")
        view.samples.setValue(20)
        assert run(qtbot, panel, view.compare) == "finished"
        exports = [view.box.export_csv, view.export_table_csv]
    elif name == "sizing":
        view = panel.sizing_view
        view.target.setText("10, 20")
        view.steps.setValue(11)
        assert run(qtbot, panel, view.run) == "finished"
        exports = [view.curves.export_csv, view.curves.export_image]
    else:
        view = panel.significance_view
        view.samples.setValue(64)
        assert run(qtbot, panel, view.run) == "finished"
        exports = [view.box.export_csv]
    return view, exports


@pytest.mark.parametrize("name", ["workspace", "sweep", "pareto", "ab", "sizing", "significance"])
def test_an_edit_marks_each_view_out_of_date_and_stops_its_export(qtbot, panel, planar, tmp_path, name):
    view, exports = _compute(qtbot, panel, name)
    assert not view.stale and view.stale_banner.isHidden()
    for k, export in enumerate(exports):   # fresh: exports work
        export(tmp_path / f"fresh{k}.csv" if "csv" in export.__name__ else tmp_path / f"fresh{k}.png")
    panel.set_model(planar.with_parameter("m2", 3.0))   # an edit the result knows nothing of
    assert view.stale and not view.stale_banner.isHidden()
    assert "out of date" in view.stale_banner.text().lower()
    for k, export in enumerate(exports):
        target = tmp_path / f"stale{k}.csv"
        with pytest.raises(ValueError, match="out of date"):
            export(target)
        assert not target.exists()
    panel.set_model(planar)   # undo: the result describes the model again
    assert not view.stale and view.stale_banner.isHidden()


def test_loading_a_swept_design_keeps_the_sweep_current(qtbot, panel, planar):
    view, _ = _compute(qtbot, panel, "pareto")
    design = view.result.designs[1]
    with qtbot.waitSignal(panel.loadDesignRequested) as blocker:
        view.load_design(1)
    panel.set_model(blocker.args[0])
    assert blocker.args[0].parameter_values["L1"] == pytest.approx(design["L1"])
    assert not view.stale and not panel.sweep_view.stale
    panel.set_model(blocker.args[0].with_parameter("m1", 7.0))   # not a swept parameter
    assert view.stale and panel.sweep_view.stale


def test_a_model_changed_while_the_job_ran_is_marked(qtbot, panel, planar):
    view = panel.workspace_view
    view.samples.setValue(200)
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000):
        view.compute()
        panel.set_model(planar.with_parameter("L2", 1.5))
    assert view.stale


def test_static_balance_field_reads_joints_and_names_bad_ones():
    assert parse_targets("1,2", "balanced") == [(1,), (2,)]
    assert parse_targets("2 3", "balanced", 3) == [(2,), (3,)]
    assert parse_targets("1,2; 2,3", "decoupled", 3) == [(1, 2), (2, 3)]
    with pytest.raises(ValueError, match="outside 1..2") as info:
        parse_targets("1,3", "decoupled", 2)
    assert "Error" not in str(info.value)
    with pytest.raises(ValueError, match="not a pair"):
        parse_targets("1,2,3", "decoupled", 3)
    assert plain_message("ValueError: balanced: entry (1, 2) is not a joint") == "balanced: entry (1, 2) is not a joint"
    assert plain_message("ZeroDivisionError: division by zero").startswith("ZeroDivisionError")


def test_a_new_condition_search_clears_the_old_answers(qtbot, panel, planar):
    view = panel.conditions_view
    view.kind.setCurrentIndex(view.kind.findData("balanced"))
    view.targets.setText("2")
    view.unknowns.setText("d2")
    assert run(qtbot, panel, view.find_conditions, timeout=60_000) == "finished"
    assert view.list.count() >= 1
    view.targets.setText("1, 5")
    assert view.find_conditions() is None
    assert "outside 1..2" in panel.error_label.text() and "Error" not in panel.error_label.text()
    view.targets.setText("1")
    view.unknowns.setText("d1")
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000):
        assert view.find_conditions() is not None
        assert view.list.count() == 0   # the old answers went when the new search started
