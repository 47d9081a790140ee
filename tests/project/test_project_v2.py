"""Project format version 2: base and tool poses, joint names, drive data; version 1 still reads."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from designer.kinematics import NumericArm
from designer.model import Drive, Pose, symbol
from designer.model.extras import rpy_from_matrix, rpy_matrix
from designer.project import ProjectError, from_dict, loads_project, to_dict
from designer.project.io import dumps_project


def doc(version: int = 2, **extra) -> dict:
    d = {
        "format": "manipulator-designer", "version": version, "name": "two",
        "convention": "standard", "gravity": [0, 0, "-g"], "parameters": {"L": 0.5, "g": 9.81},
        "links": [
            {"name": "upper", "joint": "R", "a": "L", "alpha": "pi/2", "mass": 1.5},
            {"name": "lower", "joint": "P", "a": 0.3, "mass": 1.0},
        ],
    }
    d.update(extra)
    return d


def test_version_2_fields_read_and_write_back():
    d = doc(base={"xyz": [0.1, 0, "L"], "rpy": [0, 0, "pi/2"]}, tool={"xyz": [0, 0, 0.12], "rpy": [0, 0, 0]})
    d["links"][0].update(joint_name="shoulder_pan", drive={"rated_torque": 40, "peak_torque": 120, "gear_ratio": 100,
                                                           "motor_inertia": 1.2e-5, "viscous": 0.5})
    model = from_dict(d)
    assert model.base.rpy[2] == sp.pi / 2 and model.base.xyz[2] == symbol("L")
    assert model.tool.xyz[2] == sp.Float(0.12)
    assert model.links[0].joint_name == "shoulder_pan"
    assert model.links[0].drive.reflected_inertia == pytest.approx(100 ** 2 * 1.2e-5)
    assert model.links[1].drive is None
    out = json.loads(dumps_project(model))
    assert out["version"] == 2 and out["base"]["rpy"] == [0, 0, "pi/2"]
    assert out["links"][0]["drive"]["peak_torque"] == 120
    assert loads_project(dumps_project(model)) == model


def test_version_1_file_still_opens_and_saves_as_version_2():
    model = from_dict(doc(version=1))
    assert model.base is None and model.tool is None
    assert to_dict(model)["version"] == 2


@pytest.mark.parametrize("field,value", [("base", {"xyz": [0, 0, 1]}), ("tool", {"xyz": [0, 0, 1]})])
def test_version_1_file_may_not_use_new_fields(field, value):
    with pytest.raises(ProjectError, match=f"unknown field.*{field}"):
        from_dict(doc(version=1, **{field: value}))


@pytest.mark.parametrize("field,value,fragment", [
    ("base", {"xyz": [0, 0]}, "base.xyz"),
    ("base", {"pos": [0, 0, 1]}, "base: unknown key"),
    ("tool", [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], "tool: not a rigid transform"),
    ("tool", "up", "tool: must be"),
])
def test_bad_pose_is_named(field, value, fragment):
    with pytest.raises(ProjectError, match=fragment):
        from_dict(doc(**{field: value}))


@pytest.mark.parametrize("drive,fragment", [
    ({"gear": 3}, "links\\[1\\].drive: unknown key"),
    ({"gear_ratio": "N"}, "links\\[1\\].drive.gear_ratio: must be a number"),
    ({"motor_inertia": -1}, "links\\[1\\].drive.motor_inertia: must not be negative"),
    (5, "links\\[1\\].drive: must be an object"),
])
def test_bad_drive_is_named(drive, fragment):
    d = doc()
    d["links"][0]["drive"] = drive
    with pytest.raises(ProjectError, match=fragment):
        from_dict(d)


def test_matrix_pose_reads_as_the_same_transform():
    rng = np.random.default_rng(4)
    R = rpy_matrix(*rng.uniform(-3, 3, 3))
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, [0.1, -0.2, 0.3]
    model = from_dict(doc(base=T.tolist()))
    np.testing.assert_allclose(model.base.matrix(), T, atol=1e-15)
    assert rpy_matrix(*rpy_from_matrix(R)) == pytest.approx(R, abs=1e-15)


def test_tool_and_base_move_the_tool_pose():
    """tool_pose = base * T_0^n * tool, checked against the frames the arm already had."""
    model = from_dict(doc(base={"xyz": [0.1, 0.2, 0.3], "rpy": [0.3, -0.2, 1.0]},
                          tool={"xyz": [0.01, 0.02, 0.12], "rpy": [0, "pi/2", 0]}))
    arm = NumericArm.from_model(model)
    q = [0.4, 0.2]
    expected = Pose((0.1, 0.2, 0.3), (0.3, -0.2, 1.0)).matrix() @ arm.frames(q)[-1] @ \
        Pose((0.01, 0.02, 0.12), (0, sp.pi / 2, 0)).matrix()
    np.testing.assert_allclose(arm.tool_pose(q), expected, atol=1e-15)
    plain = NumericArm.from_model(from_dict(doc()))
    np.testing.assert_allclose(plain.tool_pose(q), plain.frames(q)[-1], atol=0)


def test_drive_must_not_be_all_empty():
    assert Drive().is_empty and Drive(gear_ratio=3).reflected_inertia == 0.0
