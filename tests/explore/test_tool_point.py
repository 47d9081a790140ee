"""The project's tool frame in the explore tools: workspace points, the Jacobian of the metrics and the
ISO 9283 cube path are those of the tool point, not of the last DH frame's origin."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support import robot_path
from designer.explore.batch import Batch
from designer.explore.iso9283 import cube_path
from designer.explore.iso9283 import test_cube as make_cube
from designer.explore.maps import sample_configurations, workspace_map
from designer.kinematics import NumericArm
from designer.model.extras import Pose
from designer.project import load_project

TOOL_XYZ, TOOL_RPY = np.array([0.03, -0.02, 0.15]), np.array([0.3, -0.2, 1.1])


def _tool_matrix() -> np.ndarray:
    """URDF origin semantics written out: Rz(yaw) Ry(pitch) Rx(roll), then the translation."""
    r, p, y = TOOL_RPY
    Rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    Ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
    Rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = Rz @ Ry @ Rx, TOOL_XYZ
    return T


@pytest.fixture(scope="module", params=["puma560", "stanford_modified", "scara"])
def arm(request):
    model = load_project(robot_path(request.param))
    model = replace(model, tool=Pose(tuple(TOOL_XYZ.tolist()), tuple(TOOL_RPY.tolist())))
    return NumericArm.from_model(model)


def _tool_point(arm, q) -> np.ndarray:
    return (arm.frames(q)[-1] @ _tool_matrix())[:3, 3]


def test_workspace_points_are_the_tool_point(arm):
    points, _ = workspace_map(arm, "cartesian_min", count=64)
    q = sample_configurations(arm, 64, "sobol", 0)
    expected = np.array([_tool_point(arm, qi) for qi in q])
    np.testing.assert_allclose(points, expected, atol=1e-12)
    last = np.array([arm.frames(qi)[-1, :3, 3] for qi in q])
    assert np.abs(points - last).max() > 0.05   # not the flange origin


def test_metric_jacobian_is_the_tool_points_by_finite_differences(arm):
    q = sample_configurations(arm, 8, "random", 3)
    J = Batch(arm, q).tool_jacobian
    h = 1e-6
    for k, qk in enumerate(q):
        Jv = np.column_stack([(_tool_point(arm, qk + h * e) - _tool_point(arm, qk - h * e)) / (2 * h)
                              for e in np.eye(arm.n)])
        np.testing.assert_allclose(J[k, :3], Jv, atol=1e-7)
        np.testing.assert_allclose(J[k], arm.tool_jacobian(qk), atol=1e-12)


def test_iso_cube_path_is_followed_by_the_tool_point():
    model = load_project(robot_path("puma560"))
    arm = NumericArm.from_model(replace(model, tool=Pose(tuple(TOOL_XYZ.tolist()), tuple(TOOL_RPY.tolist()))))
    path = cube_path(arm, make_cube(arm, [0.5, 0.0, 0.1], 0.2), speed=0.5, samples=41)
    pts = path.cube.points()
    order = [0, 1, 2, 3, 4, 0]
    for knot, p in zip(path.knots, pts[order]):
        np.testing.assert_allclose(_tool_point(arm, path.trajectory.q[knot]), p, atol=1e-9)
    # the tool velocity of the path is J(q) qd of the tool point
    for k in range(0, len(path.trajectory.q), 7):
        v = arm.tool_jacobian(path.trajectory.q[k])[:3] @ path.trajectory.qd[k]
        np.testing.assert_allclose(v, path.xd[k], atol=1e-9)
