"""Nearly parallel joint axes, as a URDF gets them when pi/2 is written short (1.5708, 1.570796): the
DH frames of skew axes lie on the axes; axes within 1e-5 rad of parallel are made parallel, the
report says by how much, and the imported model is checked against the file's own tree."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.urdf.dh import Axis, dh_frames
from designer.urdf import import_urdf
from designer.urdf.source import read_urdf

from tests.support.urdf_reference import PinChain, compare_with_pinocchio

pytest.importorskip("pinocchio")


def _off_axis(point: np.ndarray, axis: Axis) -> float:
    return float(np.linalg.norm(np.cross(point - axis.point, axis.direction)))


@pytest.mark.parametrize("angle", [3.7e-6, 1e-8])
@pytest.mark.parametrize("convention", list(Convention))
def test_frames_of_nearly_parallel_axes_lie_on_the_axes(angle, convention):
    a = Axis(np.array([0.1, -0.2, 0.05]), np.array([0.0, 0.0, 1.0]))
    direction = np.array([math.sin(angle) * 0.6, math.sin(angle) * 0.8, math.cos(angle)])
    b = Axis(np.array([0.4, 0.1, 0.3]), direction / np.linalg.norm(direction))
    frames = dh_frames([a, b], np.eye(4), np.eye(4), convention)
    origin = frames[1][:3, 3]
    assert np.linalg.norm(origin) > 1e4          # the common normal really is far out
    # standard DH: frame 1 on axis 2, modified: frame 1 on axis 1; its x meets the other axis too
    on, other = (b, a) if convention is Convention.STANDARD else (a, b)
    assert _off_axis(origin, on) < 1e-10 * np.linalg.norm(origin)
    x = frames[1][:3, 0]
    # the line through the origin along x meets the other axis: distance between the two lines
    n = np.cross(x, other.direction)
    assert abs((other.point - origin) @ n) / np.linalg.norm(n) < 1e-10 * np.linalg.norm(origin)


_LINK = ('<link name="{n}"><inertial><origin xyz="0.05 0.02 0.1" rpy="0.3 0 0"/><mass value="2"/>'
         '<inertia ixx="0.02" iyy="0.03" izz="0.025" ixy="0.001" ixz="0" iyz="0"/></inertial></link>')


def _joint(name, parent, child, xyz, rpy):
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="0 0 1"/>'
            '<limit lower="-3" upper="3" effort="10" velocity="1"/></joint>')


def _three_joints(name: str, joints: tuple[str, str, str], lift_rpy: str) -> str:
    """A shoulder pan, a shoulder lift turned by ``lift_rpy`` and an elbow (a UR-like arm's first three)."""
    a, b, c = joints
    return (f'<?xml version="1.0"?><robot name="{name}"><link name="base"/>' +
            "".join(_LINK.format(n=f"l{k}") for k in (1, 2, 3)) +
            _joint(a, "base", "l1", "0 0 0.1", "0 0 0") +
            _joint(b, "l1", "l2", "0 0.13 0.09", lift_rpy) +
            _joint(c, "l2", "l3", "0.42 0 0", "0 0 0") + "</robot>")


@pytest.mark.parametrize("tilt", [3.7e-6, 1.8e-9, 5.9e-10])
def test_a_short_pi_over_two_is_made_parallel_and_said_so(tmp_path, tilt):
    # a shoulder and an elbow meant parallel (a UR-like arm), the elbow tilted by what 1.5708,
    # 1.570796325 and 1.5707963262 leave, across the line between the axes, so that the two are skew;
    # the tilt hides in angles that are no multiple of pi/12 (0.4 and 0.3 rad, an axis turned back by them),
    # so that reading the file's angles as exact ones does not remove it and the frames must
    text = _three_joints("short", ("shoulder_pan", "shoulder_lift", "elbow"), "1.5707963267948966 0 0")
    text = text.replace('<origin xyz="0.42 0 0" rpy="0 0 0"/>',
                        f'<origin xyz="0.42 0 0" rpy="{0.4 + tilt!r} {0.3 - tilt!r} 0"/>')
    axis = [-math.sin(0.3), math.cos(0.3) * math.sin(0.4), math.cos(0.3) * math.cos(0.4)]   # Rx(-0.4) Ry(-0.3) z
    text = text.replace('<axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint></robot>',
                        f'<axis xyz="{" ".join(repr(v) for v in axis)}"/>'
                        '<limit lower="-3" upper="3" effort="10" velocity="1"/></joint></robot>')
    path = tmp_path / "short.urdf"
    path.write_text(text)
    report = import_urdf(path)
    assert not read_urdf(path).snaps
    [note] = [n for n in report.notes if "'shoulder_lift' and 'elbow'" in n and "made parallel" in n]
    assert not any("from parallel" in w for w in report.warnings)
    angle = float(re.search(r"axes (\S+) rad", note).group(1))
    assert angle == pytest.approx(tilt * math.sqrt(2), rel=0.1)
    model = report.model
    # no frame far out: every length of the table within the arm's size (0.6 m)
    assert max(abs(float(v)) for l in model.links for v in (l.a, l.d)) < 1.0
    arm = NumericArm.from_model(model)
    worst, pose = compare_with_pinocchio(arm, PinChain(path, report.chain.joints), "l3", states=10)
    # the arm moved by what the note says, no more (a turn of e rad moves parts by e times their distance)
    assert worst < 1e-9 + 10 * report.moved and pose < 1e-9 + 10 * report.moved, (worst, pose)
    assert report.checked is not None and report.checked < 1e-9 + 10 * report.moved


def test_a_desktop_arm_with_nine_decimal_angles_has_a_positive_definite_mass_matrix(tmp_path):
    """The issue's case: four joints, angles written to 9 decimals, joints 3 and 4 5.9e-10 rad from
    parallel; the common normal went 3e8 m out and M came out 2,000 times off, not positive definite."""
    links = "".join(f'<link name="l{k}"><inertial><origin xyz="0.02 0 0.01"/><mass value="0.{k}"/>'
                    '<inertia ixx="1e-4" iyy="1.2e-4" izz="0.9e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                    for k in (1, 2, 3, 4))
    text = ('<robot name="desk"><link name="base"/>' + links +
            _joint("j1", "base", "l1", "0 0 0.05", "0 0 0") +
            _joint("j2", "l1", "l2", "0 0 0.04", "1.570796325 0 0") +
            _joint("j3", "l2", "l3", "0.12 0 0", "0 0 0") +
            _joint("j4", "l3", "l4", "0.1 0 0", "0 5.9e-10 0") + "</robot>")
    path = tmp_path / "desk.urdf"
    path.write_text(text)
    for convention in Convention:
        report = import_urdf(path, convention=convention)
        arm = NumericArm.from_model(report.model)
        assert max(abs(float(v)) for l in report.model.links for v in (l.a, l.d)) < 0.5
        rng = np.random.default_rng(1)
        from designer.numeric.recursive import mass_matrix
        for _ in range(20):
            assert np.linalg.eigvalsh(mass_matrix(arm, rng.uniform(-np.pi, np.pi, 4))).min() > 0
        worst, _ = compare_with_pinocchio(arm, PinChain(path, report.chain.joints), None, states=10)
        # the angles read as exact ones (1.570796325 as pi/2, 5.9e-10 as 0) move it by what the report says
        assert report.as_written is not None and report.as_written < 1e-8
        assert worst < 1e-9 + 10 * report.moved + 10 * report.as_written


def test_the_check_refuses_a_model_that_disagrees_with_the_file(tmp_path):
    """The post-import check can fail: the same import with one link's mass off by a millionth."""
    from designer.urdf import UrdfError, read_urdf
    from designer.urdf.check import check_against_tree
    text = _three_joints("ok", ("j1", "j2", "j3"), "1.5707963267948966 0 0")
    path = tmp_path / "ok.urdf"
    path.write_text(text)
    report = import_urdf(path)
    arm = NumericArm.from_model(report.model)
    assert check_against_tree(arm, read_urdf(path), report.chain) < 1e-12
    mass = arm.mass.copy()
    mass[1] *= 1 + 1e-6
    arm = dataclasses.replace(arm, mass=mass)
    message = r"disagrees with the file's own kinematic tree: [MG] off by \d\.\de-0[678] relative"
    with pytest.raises(UrdfError, match=message):
        check_against_tree(arm, read_urdf(path), report.chain)


def test_arms_without_near_parallel_axes_get_no_such_warning(tmp_path):
    text = _three_joints("ok", ("j1", "j2", "j3"), "1.5707963267948966 0 0")
    path = tmp_path / "ok.urdf"
    path.write_text(text)
    report = import_urdf(path)
    assert not any("from parallel" in w for w in report.warnings) and not report.notes


def test_axes_skew_by_more_whose_normal_lies_far_out_are_made_parallel_too(tmp_path):
    """1e-4 rad (an angle written to three decimals, 1.571) between axes 0.42 m apart: the common
    normal 4 km out, where the model would lose about 1e-7 and the check would refuse it."""
    text = _three_joints("coarse", ("shoulder_pan", "shoulder_lift", "elbow"), "1.5707963267948966 0 0")
    text = text.replace('<origin xyz="0.42 0 0" rpy="0 0 0"/>', '<origin xyz="0.42 0 0" rpy="0 1e-4 0"/>')
    path = tmp_path / "coarse.urdf"
    path.write_text(text)
    report = import_urdf(path)
    assert any("made parallel" in n and "1.0e-04 rad" in n for n in report.notes), report.notes
    assert max(abs(float(v)) for l in report.model.links for v in (l.a, l.d)) < 1.0
    worst, _ = compare_with_pinocchio(NumericArm.from_model(report.model), PinChain(path, report.chain.joints), None,
                                      states=10)
    assert worst < 1e-9 + 10 * report.moved
