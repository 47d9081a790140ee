"""A/B comparison: a heavier outer link couples more (by hand), identical designs differ by nothing."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import robot_path
from designer.explore.compare import compare
from designer.explore.metrics import Ratings
from designer.kinematics import NumericArm
from designer.project import load_project


def test_compare_two_designs():
    model = load_project(robot_path("planar_two_link"))
    p = model.parameter_values
    a = NumericArm.from_model(model)
    b = NumericArm.from_model(model, {"m2": 2 * p["m2"], "I2": 2 * p["I2"]})
    rows = compare(a, b, q=[0.0, 0.0], ratings=Ratings.of(2, torque=[50, 20]), samples=256)
    by = {(r["metric"], r["where"]): r for r in rows}
    # M22 = I2 + m2 d2^2 doubles with m2 and I2
    assert by[("M[2,2]", "pose")]["B/A"] == pytest.approx(2.0)
    assert by[("gravity[2]", "pose")]["B-A"] == pytest.approx(p["g"] * p["m2"] * p["d2"])
    assert by[("total_mass", "design")]["B-A"] == pytest.approx(p["m2"])
    assert by[("coupling", "workspace:max")]["B"] > by[("coupling", "workspace:max")]["A"]
    assert ("dyn_manipulability", "pose") in by   # the rated torques were given
    assert not any(r["metric"].startswith("coriolis") for r in rows)   # needs speeds: left out
    same = compare(a, a, samples=64)
    assert all(r["B-A"] == 0 or not np.isfinite(r["B-A"]) for r in same)
    with pytest.raises(ValueError, match="same size"):
        compare(a, NumericArm.from_model(load_project(robot_path("horn_three_dof"))))
