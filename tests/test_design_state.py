"""The open design (no Qt): one numeric arm per model, shared by its observers; the pose kept while
the joint count stays; models that cannot become an arm say why instead of raising."""

from __future__ import annotations

import numpy as np
import pytest

from designer.design_state import OpenDesign
from designer.kinematics import display_arm
from designer.model import Link, Manipulator, MissingParameterError
from designer.project import load_project
from tests.support import robot_path


def two_link(**values) -> Manipulator:
    links = (Link(name="a", a="L1", mass="m1", com=("-L1/2", 0, 0)), Link(name="b", a="L2", mass="m2"))
    return Manipulator(links=links, name="t", gravity=(0, "-g", 0),
                       parameters=tuple({"L1": 0.5, "L2": 0.4, "m1": 2.0, "m2": 1.0, **values}.items()))


def test_display_arm_leaves_an_unvalued_gravity_at_zero_and_names_other_missing_symbols():
    arm = display_arm(two_link())                       # g has no value: used only by gravity
    np.testing.assert_allclose(arm.gravity, 0.0)
    np.testing.assert_allclose(arm.frames([0.0, 0.0])[-1][:3, 3], [0.9, 0.0, 0.0])   # L1 + L2 along x
    bare = Manipulator(links=two_link().links, gravity=(0, "-g", 0), parameters=(("L1", 0.5), ("m1", 2.0)))
    with pytest.raises(MissingParameterError, match="L2"):
        display_arm(bare)


def test_observers_get_one_arm_per_model_and_the_pose():
    puma = load_project(robot_path("puma560"))
    design = OpenDesign(puma)
    seen: list[tuple[str, object]] = []
    design.observe(model=lambda d: seen.append(("model", d.arm)), pose=lambda d: seen.append(("pose", d.q.copy())))
    design.observe(pose=lambda d: seen.append(("tool", d.arm.tool_pose(d.q)[:3, 3])))
    q = np.array([0.1, -0.5, 0.3, 0.0, 0.4, -0.2])
    design.set_pose(q)
    np.testing.assert_array_equal(seen[0][1], q)
    np.testing.assert_allclose(seen[1][1], display_arm(puma).tool_pose(q)[:3, 3])
    assert design.arm_builds == 1
    design.set_model(puma)                              # the same model: no new arm
    assert design.arm_builds == 1 and seen[2] == ("model", design.arm)
    heavier = puma.with_parameter("m2", 30.0)
    first = design.arm
    design.set_model(heavier)
    assert design.arm_builds == 2 and design.arm is not first and design.arm.mass[1] == 30.0
    np.testing.assert_array_equal(design.q, q)          # same joint count: the pose stays
    with pytest.raises(ValueError, match="6 joint values, got 2"):
        design.set_pose([0.0, 1.0])


def test_a_model_without_values_gives_no_arm_and_a_reason():
    bare = Manipulator(links=two_link().links, gravity=(0, "-g", 0), parameters=(("L1", 0.5),))
    design = OpenDesign(two_link())
    got = []
    design.observe(model=lambda d: got.append((d.arm, d.arm_error)))
    design.set_model(bare)
    assert got[-1][0] is None and "L2" in got[-1][1]
    np.testing.assert_array_equal(design.q, np.zeros(2))
