"""Rounded angles read as the exact ones they stand for, where the file gives them: the snapping
functions against constructions of their own (scipy's rotations, sympy's exact values), the report's
line, --literal on the command line, and the refusal of a file as written whose DH frames cannot hold
it (nearly parallel axes)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy.spatial.transform import Rotation

from designer.cli import main
from designer.project import load_project
from designer.urdf import UrdfError, import_urdf
from designer.urdf.numbers import ANGLE_SNAP, snap_direction, snap_rotation, snap_value

from tests.support.urdf_reference import erd
from tests.urdf.test_urdf_near_parallel import _joint

XARM = "xarm_description/urdf/xarm7.urdf"


def test_an_angle_near_a_multiple_of_pi_over_12_is_read_as_it():
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(-30, 31))
        exact = float(sp.N(sp.pi * k / 12, 30))
        off = float(rng.uniform(-0.9, 0.9) * ANGLE_SNAP)
        value, moved = snap_value(exact + off)
        assert value == exact and moved == pytest.approx(abs(off), rel=1e-6, abs=1e-15)
        degrees, moved = snap_value(15.0 * k + math.degrees(off), math.pi / 180)
        assert degrees == 15.0 * k and moved == pytest.approx(abs(off), rel=1e-6, abs=1e-15)
    # further than ANGLE_SNAP, or written in full: as written, nothing moved
    assert snap_value(math.pi / 2 + 2 * ANGLE_SNAP) == (math.pi / 2 + 2 * ANGLE_SNAP, 0.0)
    assert snap_value(0.649262481663582) == (0.649262481663582, 0.0)
    assert snap_value(1.5707963267948966) == (1.5707963267948966, 0.0)


def test_directions_and_rotations_near_exact_ones_are_read_as_those():
    rng = np.random.default_rng(1)
    for _ in range(100):
        # a product of three turns by multiples of pi/12 about random coordinate axes (scipy's own
        # composition), written with an error below ANGLE_SNAP
        R = Rotation.identity()
        for axis, angle in zip(rng.choice(list("xyz"), 3), rng.integers(-12, 13, 3) * 15.0):
            R = R * Rotation.from_euler(str(axis), float(angle), degrees=True)
        tilt = Rotation.from_rotvec(rng.normal(size=3) * 1e-7)
        snapped, moved = snap_rotation((tilt * R).as_matrix())
        np.testing.assert_allclose(snapped, R.as_matrix(), atol=1e-15)
        assert moved == pytest.approx(tilt.magnitude(), rel=1e-3)
        # a direction: a coordinate axis turned twice so (an axis 0 0.7071 0.7071, a zaxis 0.5 0 0.866)
        two = Rotation.from_euler(str(rng.choice(list("xyz"))), float(rng.integers(-12, 13) * 15.0), degrees=True) * \
            Rotation.from_euler(str(rng.choice(list("xyz"))), float(rng.integers(-12, 13) * 15.0), degrees=True)
        d = two.apply(np.eye(3)[int(rng.integers(3))])
        direction, moved = snap_direction(tilt.apply(d) * 3.0)
        np.testing.assert_allclose(direction, d, atol=1e-15)
        assert 0 < moved <= tilt.magnitude() * 1.001
    # a rotation or direction that is no such product stays as written
    R = Rotation.from_rotvec([0.3, -0.2, 0.5]).as_matrix()
    assert snap_rotation(R)[1] == 0.0 and snap_rotation(R)[0] is R
    assert snap_direction([0.3, 0.4, 0.5])[1] == 0.0


def test_the_report_says_how_far_the_file_as_written_lies_and_literal_takes_it(tmp_path, capsys):
    path = erd(XARM)
    out = tmp_path / "meant.json"
    assert main(["import-urdf", str(path), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    [line] = [l for l in err.splitlines() if "read as it" in l]
    # the xArm7 writes 1.5708 for pi/2 (3.7e-6 rad): one line with the largest change and what it moves
    assert "largest 3.7e-06 rad" in line and "1.5708" in line and "--literal" in line
    assert "M, G and the tool pose by 1.1e-05 relative" in line
    meant = load_project(out)
    assert all(not sp.sympify(l.alpha).atoms(sp.Float) for l in meant.links), [l.alpha for l in meant.links]
    # the file as written left d of 1e-6 m in the table (the figure); the arm meant has none
    assert all(abs(float(l.d)) == 0 or abs(float(l.d)) > 1e-3 for l in meant.links)
    out = tmp_path / "written.json"
    assert main(["import-urdf", str(path), "--literal", "--out", str(out)]) == 0
    assert "read as it" not in capsys.readouterr().err
    written = load_project(out)
    assert any(0 < abs(float(l.d)) < 1e-5 for l in written.links)
    assert written == import_urdf(path, literal=True).model and meant == import_urdf(path).model


def test_a_file_as_written_with_nearly_parallel_axes_is_refused_with_the_way_out(tmp_path):
    """9 decimals of pi/2 and a tilt of 5.9e-10 rad: as written, the common normal of joints 3 and 4
    lies 3e8 m out, where no DH table holds the arm (M 25 times off): refused with --literal, saying
    why; without it the angles are read as exact and the arm imports."""
    links = "".join(f'<link name="l{k}"><inertial><origin xyz="0.02 0 0.01"/><mass value="0.{k}"/>'
                    '<inertia ixx="1e-4" iyy="1.2e-4" izz="0.9e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                    for k in (1, 2, 3, 4))
    path = tmp_path / "desk.urdf"
    path.write_text('<robot name="desk"><link name="base"/>' + links +
                    _joint("j1", "base", "l1", "0 0 0.05", "0 0 0") +
                    _joint("j2", "l1", "l2", "0 0 0.04", "1.570796325 0 0") +
                    _joint("j3", "l2", "l3", "0.12 0 0", "0 0 0") +
                    _joint("j4", "l3", "l4", "0.1 0 0", "0 5.9e-10 0") + "</robot>")
    with pytest.raises(UrdfError, match=r"disagrees with the file's own kinematic tree.*as written, joints 'j3' and "
                                        r"'j4': axes 5.9e-10 rad from parallel .*without --literal"):
        import_urdf(path, literal=True)
    report = import_urdf(path)
    assert report.checked is not None and report.checked < 1e-12
