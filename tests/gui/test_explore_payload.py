"""The Explore panel's payload field: the payload typed changes the deflection map as the core's with that
payload (designer.explore.metrics.evaluate, run in the test); a bad entry is red, says why and runs nothing;
the field keeps its value when the project changes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from designer.explore.metrics import drive_ratings
from designer.explore.metrics import Ratings, evaluate
from designer.gui.cells import BAD_STYLE
from designer.gui.explore_panel import ExplorePanel
from designer.kinematics import NumericArm
from designer.project import load_project
from tests.explore.test_elastic_metrics import _elastic_two_link
from tests.support import robot_path
from tests.support.sweeps import one_axis_sweep

pytestmark = pytest.mark.usefixtures("no_dialogs")


@pytest.fixture
def panel(qtbot):
    p = ExplorePanel()
    qtbot.addWidget(p)
    p.set_model(_elastic_two_link())
    p.set_joint_values(np.array([0.2, 0.4]))
    p.show()
    qtbot.waitExposed(p)
    p.picker.set_metric("deflection")
    p.map_view.steps.setValue(6)
    p.map_view.samples.setValue(0)
    yield p
    if p.busy:
        p.cancel()
        qtbot.waitUntil(lambda: not p.busy, timeout=120_000)


def _map(qtbot, panel) -> np.ndarray:
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000) as blocker:
        assert panel.map_view.compute() is not None, panel.error_label.text()
    assert blocker.args[1] == "finished", panel.error_label.text()
    return panel.map_view.result.grid


@pytest.mark.parametrize("kg", [0.0, 3.5])
def test_the_payload_typed_gives_the_cores_deflection_with_that_payload(qtbot, panel, kg):
    panel.payload.edit.setText("" if kg == 0 else f"{kg}")
    grid = _map(qtbot, panel)
    model = panel.model
    arm = NumericArm.from_model(model)
    i, j = grid.joints
    Q = np.array([[x, y] for y in grid.y for x in grid.x])
    assert (i, j) == (1, 2)
    core = evaluate(arm, Q, "deflection", Ratings.of(2, **drive_ratings(model), payload=kg))
    np.testing.assert_allclose(panel.map_view.heat.image.image.ravel(), core, rtol=1e-9)
    if kg:   # and it is not the unloaded arm's: the payload's weight bends the springs further
        unloaded = evaluate(arm, Q, "deflection", Ratings.of(2, **drive_ratings(model)))
        assert np.all(np.abs(core - unloaded) > 1e-6 * unloaded.max())


@pytest.mark.parametrize("text, words", [("abc", "'abc' is not a number"), ("-2", "must be a finite number >= 0"),
                                         ("inf", "must be a finite number >= 0")])
def test_a_bad_payload_is_red_says_why_and_runs_nothing(qtbot, panel, text, words):
    panel.payload.edit.setText("1.5")
    good = _map(qtbot, panel)
    panel.payload.edit.setText(text)
    assert panel.payload.edit.styleSheet() == BAD_STYLE
    assert words in panel.payload.edit.toolTip() and words in panel.error_label.text()
    assert panel.map_view.compute() is None
    assert words in panel.error_label.text() and panel.map_view.result.grid is good   # the last map stays
    panel.payload.edit.setText("2")
    assert panel.payload.edit.styleSheet() == "" and panel.error_label.text() == ""


def test_the_payload_stays_across_projects(qtbot, panel):
    panel.payload.edit.setText("4")
    panel.set_model(load_project(robot_path("puma560")))
    panel.set_model(_elastic_two_link())
    assert panel.payload.value() == 4.0
    assert panel.ratings().payload == 4.0


def test_a_sweep_of_the_deflection_carries_the_payload_to_the_core(qtbot, panel):
    """The sweep's spec (what the worker runs) has the payload typed; its curve is the core's sweep with it."""
    import concurrent.futures as cf

    from designer.explore.sweep import sweep
    from designer.jobs import run as run_job
    panel.payload.edit.setText("2.5")
    view = panel.sweep_view
    one_axis_sweep(view, "m2", 0.5, 2.0, 3, samples=32)
    spec = view.spec()
    assert spec.ratings.payload == 2.5
    with qtbot.waitSignal(panel.jobEnded, timeout=120_000) as blocker:
        assert view.run() is not None, panel.error_label.text()
    assert blocker.args[1] == "finished", panel.error_label.text()
    with cf.ThreadPoolExecutor(1) as pool:
        core = run_job(sweep(panel.model, spec, executor=pool))
    for column in ("deflection:max", "deflection:mean"):
        np.testing.assert_allclose(view.result.column(column), core.column(column), rtol=1e-9)
    bare = Ratings.of(2, **drive_ratings(panel.model))
    unloaded = run_job(sweep(panel.model, dataclasses.replace(spec, ratings=bare)))
    assert np.all(core.column("deflection:max") > unloaded.column("deflection:max"))
