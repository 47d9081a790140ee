"""Which link carries a closed chain's tool: the deepest, but never a link a loop pins to the base.

A four-bar's tree is crank - coupler - rocker with the rocker's end pinned to the ground: the
deepest link (the rocker) would put the tool on the pin, a point that never moves, and every
Cartesian metric of it (the effective mass at the tool: 2e30 kg on the bundled four-bar) would be
nonsense. The tool goes on the coupler instead, the classic coupler point.
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.explore.joints import explore_arm
from designer.numeric.actuated_arm import ActuatedArm
from designer.explore.metrics import compute
from designer.model.mechanism import model_tool_link
from designer.model.manipulator import Convention
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import four_bar, parallelogram_arm


def _tool_point(arm: ActuatedArm, qa) -> np.ndarray:
    """The tool point at the actuated values ``qa``, the loop closed afresh (frames of the tree)."""
    cd = arm.cd
    return (cd.tree.frames(cd.positions(np.asarray(qa, float)))[arm.tool_link + 1] @ arm.tool)[:3, 3]


@pytest.mark.parametrize("seed", range(6))
def test_a_four_bars_tool_is_on_its_coupler_and_moves(seed):
    rng = np.random.default_rng(seed)
    convention = Convention.STANDARD if seed % 2 else Convention.MODIFIED
    model = four_bar(rng, convention, mounted=seed >= 4)
    arm = explore_arm(model)
    coupler = 2 if seed >= 4 else 1                       # 0-based: after the column when mounted
    assert arm.tool_link == model_tool_link(model) == coupler
    q = np.zeros(arm.n)
    h = 1e-6
    # the tool point's velocity per unit crank rate, by central differences through the closure
    J = np.array([(_tool_point(arm, q + e) - _tool_point(arm, q - e)) / (2 * h) for e in np.eye(arm.n) * h]).T
    assert np.linalg.norm(J[:, -1]) > 1e-3                # the crank moves the tool (the rocker's pin would not)
    if arm.n == 1:
        # the effective mass at the tool along its path: M_a / |dp/dq|^2 (M_a from the closed dynamics)
        expected = arm.cd.M(q)[0, 0] / float(J[:, 0] @ J[:, 0])
        assert compute(arm, q[None], "cartesian_min")[0] == pytest.approx(expected, rel=1e-6)


def test_the_bundled_four_bars_effective_mass_is_finite():
    arm = explore_arm(load_project(robot_path("four_bar")))
    value = compute(arm, np.zeros((1, 1)), "cartesian_min")[0]
    assert np.isfinite(value) and 0.1 < value < 10.0     # kg: crank, coupler and rocker weigh 3.3 kg


def test_an_arm_end_pinned_nowhere_keeps_the_deepest_link():
    rng = np.random.default_rng(7)
    model = parallelogram_arm(rng, wrist=True)
    assert model_tool_link(model) == 5                    # the wrist, not a bar
    assert model_tool_link(load_project(robot_path("acma_sr400"))) == 5
