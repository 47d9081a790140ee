"""ISO 9283 test cube: the cube and its test points by geometry, numeric IK against Pinocchio's
forward kinematics, the path's tool on straight lines, rates against finite differences, and the
sizing torques along the path against Pinocchio's inverse dynamics."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import robot_path
from tests.support.explore_pin import PinArm, pin
from designer.explore.iso9283 import IKError, TestCube, cube_path, solve_position
from designer.explore.iso9283 import test_cube as make_cube
from designer.explore.sizing import size_motors
from designer.kinematics import NumericArm
from designer.project import load_project

CENTRE, EDGE = np.array([0.5, 0.0, 0.1]), 0.3  # in front of the PUMA's shoulder, within its reach


@pytest.fixture(scope="module")
def puma():
    return NumericArm.from_model(load_project(robot_path("puma560")))


@pytest.fixture(scope="module")
def path(puma):
    return cube_path(puma, make_cube(puma, CENTRE, EDGE), speed=0.5, samples=81)


def test_cube_test_plane_and_points_by_geometry():
    c, e = np.array([1.0, -2.0, 0.5]), 0.4
    cube = TestCube(c, e)
    C = cube.corners()
    # edges parallel to the base axes: every corner differs from the centre by e/2 on each axis
    assert np.abs(C - c) == pytest.approx(np.full((8, 3), e / 2))
    assert len({tuple(p) for p in C}) == 8
    c1, c2, c7, c8 = cube.plane()
    # C1-C2-C7-C8 is a diagonal plane: a rectangle e by e sqrt 2 through the centre
    assert np.linalg.norm(c2 - c1) == pytest.approx(e) and np.linalg.norm(c7 - c8) == pytest.approx(e)
    assert np.linalg.norm(c7 - c2) == pytest.approx(e * np.sqrt(2))
    assert np.dot(c2 - c1, c8 - c1) == pytest.approx(0.0, abs=1e-15)
    normal = np.cross(c2 - c1, c8 - c1)
    assert np.dot(normal, c - c1) == pytest.approx(0.0, abs=1e-15)
    P = cube.points()
    assert P[0] == pytest.approx(c)
    L = e * np.sqrt(3)   # the plane's diagonals are body diagonals of the cube
    for p, corner, opposite in zip(P[1:], (c1, c2, c7, c8), (c7, c8, c1, c2)):
        assert np.linalg.norm(p - corner) == pytest.approx(0.1 * L)
        assert np.linalg.norm(p - opposite) == pytest.approx(0.9 * L)
        assert np.dot(normal, p - c1) == pytest.approx(0.0, abs=1e-15)


def test_ik_recovers_a_puma_pose_computed_by_pinocchio(puma):
    ref = PinArm(puma)
    q_true = np.array([0.4, 0.6, -0.3, 0.7, -0.5, 0.2])
    target = ref.tool_position(q_true)
    q = solve_position(puma, target, q_true + np.array([0.3, -0.25, 0.2, -0.3, 0.2, 0.1]))
    assert ref.tool_position(q) == pytest.approx(target, abs=1e-9)
    lim = puma.limits
    assert np.all(q >= lim[:, 0]) and np.all(q <= lim[:, 1])


def test_path_tool_stays_on_the_straight_segments(puma, path):
    ref = PinArm(puma)
    pts = path.cube.points()
    order = [0, 1, 2, 3, 4, 0]
    np.testing.assert_allclose(path.x[list(path.knots)], pts[order], atol=1e-15)
    for s, (a, b) in enumerate(zip(order, order[1:])):
        d = (pts[b] - pts[a]) / np.linalg.norm(pts[b] - pts[a])
        for k in range(path.knots[s], path.knots[s + 1] + 1):
            p = ref.tool_position(path.trajectory.q[k])
            off = (p - pts[a]) - np.dot(p - pts[a], d) * d
            assert np.linalg.norm(off) < 1e-6
            assert -1e-9 <= np.dot(p - pts[a], d) <= np.linalg.norm(pts[b] - pts[a]) + 1e-9
    # peak tool speed is the one asked for, and each segment is rest to rest
    speed = np.linalg.norm(path.xd, axis=1)
    assert speed.max() == pytest.approx(0.5, rel=1e-3)
    assert speed[list(path.knots)] == pytest.approx(np.zeros(6), abs=1e-12)


def test_joint_rates_match_the_tool_velocity_and_finite_differences(puma, path):
    ref = PinArm(puma)
    tr = path.trajectory
    for k in range(0, len(tr.t), 17):
        assert ref.J(tr.q[k])[:3] @ tr.qd[k] == pytest.approx(path.xd[k], abs=1e-9)
    # central differences: error O(dt^2) where the motion is smooth; at the knots the jerk jumps
    # (one quintic ends, the next begins), so the difference of qd there is only O(dt)
    fd = np.gradient(tr.q, tr.t, axis=0, edge_order=2)
    fdd = np.gradient(tr.qd, tr.t, axis=0, edge_order=2)
    smooth = np.ones(len(tr.t), bool)
    smooth[list(path.knots)] = False
    assert np.abs(fd - tr.qd)[smooth].max() < 2e-3 * np.abs(tr.qd).max()
    assert np.abs(fdd - tr.qdd)[smooth].max() < 5e-3 * np.abs(tr.qdd).max()


def test_sizing_torques_on_the_cube_path_agree_with_pinocchio(puma, path):
    ref = PinArm(puma)
    tr = path.trajectory
    gear, rotor = np.array([62.6, 107.8, 53.7, 76.0, 71.9, 76.7]), 2e-4
    res = size_motors(puma, tr, gear, rotor)
    for k in range(0, len(tr.t), 23):
        tau = pin.rnea(ref.model, ref.data, tr.q[k], tr.qd[k], tr.qdd[k]) + gear**2 * rotor * tr.qdd[k]
        assert res.torque[k] == pytest.approx(tau, abs=1e-9)


def test_unreachable_cube_gives_a_clear_error(puma):
    with pytest.raises(IKError, match=r"cube centre P1 at \(3, 0, 0\) m: inverse kinematics"):
        make_cube(puma, [3.0, 0.0, 0.0], 0.2)
    with pytest.raises(IKError, match=r"cube corner C\d at .* m: inverse kinematics"):
        make_cube(puma, CENTRE, 1.5)
    with pytest.raises(ValueError, match="both the cube's centre and its edge"):
        make_cube(puma, CENTRE, None)


def test_searched_cube_is_reachable_and_bounded_by_the_reach(puma):
    cube = make_cube(puma, candidates=8, bisections=5)
    assert cube.edge > 0.05
    # the cube fits in the reach ball |p| <= a2 + sqrt(d4^2 + a3^2) + d3 (a loose bound)
    reach = 0.4318 + np.hypot(0.4318, 0.0203) + 0.15005
    assert np.linalg.norm(cube.corners(), axis=1).max() <= reach
    checked = make_cube(puma, cube.centre, cube.edge, seed=cube.q_centre)   # raises if a corner is out of reach
    assert checked.edge == cube.edge


def test_cli_sizing_on_the_cube_path(capsys, puma, path):
    import json
    from designer.cli import main
    argv = ["explore", str(robot_path("puma560")), "sizing", "--iso-cube", "--cube-centre", *map(str, CENTRE),
            "--cube-edge", str(EDGE), "--cube-speed", "0.5", "--steps", "401", "--format", "json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    tr = path.trajectory   # the same cube, speed and 81 states per segment
    assert len(data["series"]) == len(tr.t)
    ref = PinArm(puma)
    peak = np.max([np.abs(pin.rnea(ref.model, ref.data, q, qd, qdd)) for q, qd, qdd in zip(tr.q, tr.qd, tr.qdd)],
                  axis=0)
    np.testing.assert_allclose([row["peak_torque"] for row in data["joints"]], peak, rtol=1e-9, atol=1e-12)
    for bad, message in ((["--iso-cube", "--cube-edge", "0.2"], "give both --cube-centre and --cube-edge"),
                         (["--iso-cube", "--cube-centre", "3", "0", "0", "--cube-edge", "0.2"],
                          "cube centre P1 at (3, 0, 0) m")):
        assert main(["explore", str(robot_path("puma560")), "sizing", *bad]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
