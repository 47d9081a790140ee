"""An Explore view made with a fake context, no Explore panel: everything it needs comes through the context."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from designer.explore.maps import grid_map
from designer.explore.metrics import Ratings
from designer.gui.explore.context import ExploreContext
from designer.gui.explore.map_view import MapView
from designer.gui.explore.workspace_view import WorkspaceView
from designer.gui.job_runner import JobRunner
from designer.kinematics import NumericArm
from designer.project import load_project

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
VIEWS = Path(__file__).resolve().parents[2] / "designer" / "gui" / "explore"

pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


class FakeContext(ExploreContext):
    """A fixed model and pose; records the poses and designs the view asks for."""

    def __init__(self, model, q):
        self.runner = JobRunner()
        self.open_model, self.pose = model, np.asarray(q, float)
        self.posed: list[np.ndarray] = []
        self.loaded: list = []
        super().__init__(self.runner, model=lambda: self.open_model, pose=lambda: self.pose,
                         metric=lambda: "gravity[1]", ratings=lambda n: Ratings.of(n),
                         pose_arm=self.posed.append, load_design=self.loaded.append)


@pytest.fixture
def planar():
    return load_project(ROBOTS / "planar_two_link.json")


def test_a_map_view_works_with_a_fake_context_alone(qtbot, planar):
    context = FakeContext(planar, [0.2, -0.4])
    view = MapView(context)
    qtbot.addWidget(view)
    qtbot.addWidget(context.runner)
    view.set_model(planar)
    view.resize(700, 600)
    view.show()
    qtbot.waitExposed(view)
    view.steps.setValue(11)
    view.samples.setValue(0)
    with qtbot.waitSignal(context.runner.ended, timeout=120_000) as ended:
        assert view.compute() is not None, context.runner.error.text()
    assert ended.args == ["Map", "finished"]
    expected = grid_map(NumericArm.from_model(planar), "gravity[1]", (1, 2), q0=context.pose, steps=11)
    np.testing.assert_allclose(view.heat.image.image, expected.values, rtol=1e-12, atol=1e-12)
    assert view.result_model == planar and not view.stale
    # the marker is the context's pose, in degrees
    assert view.marker.getData()[0][0] == pytest.approx(np.degrees(0.2))
    # a click on the map asks the context to pose the arm there
    vb = view.box.plot.vb
    scene_point = vb.mapViewToScene(QPointF(30.0, -45.0))
    widget = view.box.layout_widget
    QTest.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     widget.mapFromScene(scene_point))
    qtbot.waitUntil(lambda: bool(context.posed), timeout=120_000)
    np.testing.assert_allclose(context.posed[-1], np.radians([30.0, -45.0]), atol=np.radians(1.0))
    assert "Pose from the map" in context.runner.status.text()
    # an edit of the context's model marks the map out of date
    context.open_model = planar.with_parameters({"L1": 0.9})
    view.set_model(context.open_model)
    assert view.stale and view.stale_banner.isVisible()


def test_input_errors_go_to_the_context_runner(qtbot, planar):
    context = FakeContext(planar, [0.0, 0.0])
    context.open_model = None
    view = WorkspaceView(context)
    qtbot.addWidget(view)
    qtbot.addWidget(context.runner)
    context.runner.show()
    assert view.compute() is None
    assert context.runner.error_box.isVisible() and "no model loaded" in context.runner.error.text()


def test_no_explore_view_reaches_into_its_panel():
    """The views know their context only: no ``self.panel`` left (there were 51 such calls)."""
    for path in VIEWS.glob("*.py"):
        tree = ast.parse(path.read_text())
        uses = [node.lineno for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and node.attr == "panel"
                and isinstance(node.value, ast.Name) and node.value.id == "self"]
        assert not uses, f"{path.name} uses self.panel on lines {uses}"
