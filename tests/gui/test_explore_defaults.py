"""Explore's first impression (issue 20, item 10): a map over joints the dynamics depend on, a flat
map's colour bar about its value, readable metric names on every plot and picker, a default Pareto
pair that conflicts."""
# ruff: noqa: F811  (the tests take the Explore panel fixture of test_explore_panel as an argument)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from designer.model import Convention
from designer.explore.coupling import default_map_joints, joints_moving_inertia
from designer.explore.sweep import pareto_front
from designer.gui.explore_panel import ExplorePanel
from designer.kinematics import NumericArm
from designer.project import load_project
from tests.gui.test_explore_panel import panel, puma, run  # noqa: F401  (the Explore panel on the PUMA)
from tests.support.pin_reference import pin_model, random_arm

ROBOTS = Path(__file__).resolve().parents[2] / "robots"

pytestmark = pytest.mark.usefixtures("no_dialogs")  # tests/conftest.py


def _pin_moving(arm: NumericArm, rng) -> set[int]:
    """The joints (1-based) Pinocchio's mass matrix changes with, stepped by 0.3 rad / 0.05 m from random poses."""
    model = pin_model(arm)
    data = model.createData()
    out = set()
    for q in rng.uniform(-np.pi, np.pi, size=(3, arm.n)):
        M0 = pin.crba(model, data, q).copy()
        M0 = np.triu(M0) + np.triu(M0, 1).T
        for k in range(arm.n):
            dq = q.copy()
            dq[k] += 0.3 if arm.revolute[k] else 0.05
            M1 = pin.crba(model, data, dq).copy()
            M1 = np.triu(M1) + np.triu(M1, 1).T
            if np.abs(M1 - M0).max() > 1e-8 * np.abs(M0).max():
                out.add(k + 1)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_the_joints_moving_the_inertia_agree_with_pinocchio(seed):
    rng = np.random.default_rng(seed)
    arm = random_arm(rng, int(rng.integers(3, 7)), [Convention.STANDARD, Convention.MODIFIED][seed % 2], loads=False)
    moving = joints_moving_inertia(arm)
    assert set(moving) == _pin_moving(arm, rng)
    assert 1 not in moving   # moving the whole chain about or along the base axis leaves M as it is
    i, j = default_map_joints(arm)
    assert i != j and (i in moving or not moving)


def test_the_puma_map_defaults_to_joints_2_and_3_even_after_a_two_link_arm(qtbot):
    explore = ExplorePanel()
    qtbot.addWidget(explore)
    explore.set_model(load_project(ROBOTS / "planar_two_link.json"))
    view = explore.map_view
    assert (view.joint_x.currentData(), view.joint_y.currentData()) == (1, 2)
    explore.set_model(load_project(ROBOTS / "puma560.json"))   # q1/q2 stayed from the two-link arm
    assert (view.joint_x.currentData(), view.joint_y.currentData()) == (2, 3)
    view.joint_x.setCurrentIndex(view.joint_x.findData(4))
    view.joint_x.activated.emit(view.joint_x.currentIndex())   # the user's choice stays
    explore.set_model(load_project(ROBOTS / "puma560.json").with_parameters({"a2": 0.5}))
    assert view.joint_x.currentData() == 4


def _run(qtbot, panel, start):
    assert run(qtbot, panel, start, timeout=60_000) == "finished", panel.error_label.text()


def test_a_flat_map_has_one_colour_and_a_colour_bar_about_its_value(qtbot, panel):
    view = panel.map_view
    for combo, joint in ((view.joint_x, 1), (view.joint_y, 6)):   # M depends on neither
        combo.setCurrentIndex(combo.findData(joint))
    panel.picker.set_metric("coupling[2,3]")
    view.steps.setValue(9)
    view.samples.setValue(0)
    _run(qtbot, panel, view.compute)
    values = view.result.grid.values
    value = float(np.mean(values))
    assert np.ptp(values) <= 1e-9 * abs(value)            # flat indeed
    lo, hi = view.heat.colorbar.levels()
    assert lo < value < hi and hi - lo <= 0.2 * abs(value)  # not 0.12 ... 0.73 about 0.4244
    assert abs(0.5 * (lo + hi) - value) <= 1e-6 * abs(value)
    assert np.ptp(view.heat.image.image) == 0               # one colour, no round-off texture
    assert f"constant {value:.4g}" in view.box.caption.text()


def test_plots_and_pickers_name_metrics_readably(qtbot, panel):
    view = panel.map_view
    view.steps.setValue(7)
    view.samples.setValue(0)
    panel.picker.set_metric("coupling")
    _run(qtbot, panel, view.compute)
    assert view.heat.colorbar.axis.labelText.startswith("Inertial coupling")
    assert "Inertial coupling" in view.box.plot.titleLabel.text
    sweep = panel.sweep_view
    sweep.params[0].setCurrentText("a2")
    sweep.counts[0].setValue(5)
    sweep.params[1].setCurrentIndex(0)
    sweep.samples.setValue(60)
    _run(qtbot, panel, sweep.run)
    items = [sweep.show_key.itemText(k) for k in range(sweep.show_key.count())]
    assert "Inertial coupling, maximum" in items and "Total mass" in items and "Reach" in items
    assert not any(":" in text or "_" in text for text in items), items
    left = sweep.curves.plot.getAxis("left").labelText
    assert left.startswith("Inertial coupling") and "coupling:" not in left
    pareto = panel.pareto_view
    for combo in pareto.axis_keys:
        texts = [combo.itemText(k) for k in range(combo.count())]
        assert "Total mass" in texts and not any(":" in t or "_" in t for t in texts)
    for side in ("bottom", "left"):
        assert ":" not in pareto.box.plot.getAxis(side).labelText.split(",")[0]


def test_the_default_pareto_pair_conflicts(qtbot, panel):
    """A sweep of a2 alone: the total mass does not change, so the old default (the metric against the
    mass) had a front of one design. The default pair has a front of several, checked by brute force."""
    panel.picker.set_metric("gravity[2]")
    sweep = panel.sweep_view
    sweep.params[0].setCurrentText("a2")
    sweep.starts[0].setValue(0.3)
    sweep.stops[0].setValue(0.6)
    sweep.counts[0].setValue(7)
    sweep.params[1].setCurrentIndex(0)
    sweep.samples.setValue(80)
    _run(qtbot, panel, sweep.run)
    pareto = panel.pareto_view
    result = pareto.result
    assert pareto_front(result.column("gravity[2]:max"), result.column("total_mass")).sum() == 1   # the old pair
    x, y = pareto.points()
    big = [s.currentIndex() == 1 for s in pareto.senses]
    sx, sy = (-1 if big[0] else 1), (-1 if big[1] else 1)
    beaten = [any(sx * x[k] <= sx * x[i] and sy * y[k] <= sy * y[i] and (x[k] != x[i] or y[k] != y[i])
                  for k in range(len(x))) for i in range(len(x))]
    assert list(pareto.front) == [not b for b in beaten]
    assert pareto.front.sum() >= 2, pareto.keys()
    assert "reach" in pareto.keys() and big[pareto.keys().index("reach")]   # reach is maximised
