"""Nearly parallel joint axes, as a URDF gets them when pi/2 is written short (1.5708, 1.570796): the
DH frames must still lie on the axes, and the far-out common normal is named in the report."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.urdf.dh import Axis, dh_frames
from designer.urdf.importer import import_urdf

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


def test_a_short_pi_over_two_is_warned_about_and_the_arm_stays_close(tmp_path):
    # a shoulder and an elbow meant parallel (a UR-like arm), one origin written 1.5708, one 1.570796
    text = _three_joints("short", ("shoulder_pan", "shoulder_lift", "elbow"), "1.5708 0 0")
    # the elbow's origin is a pure shift: lift and elbow axes are exactly parallel; tilt the elbow by
    # what 1.5708 and 1.570796 leave, across the line between the axes, so that the two are skew
    text = text.replace('<origin xyz="0.42 0 0" rpy="0 0 0"/>', '<origin xyz="0.42 0 0" rpy="3.7e-6 -3.7e-6 0"/>')
    path = tmp_path / "short.urdf"
    path.write_text(text)
    report = import_urdf(path)
    [warning] = [w for w in report.warnings if "'shoulder_lift' and 'elbow'" in w and "from parallel" in w]
    estimate = float(re.search(r"about (\S+) relative", warning).group(1))
    arm = NumericArm.from_model(report.model)
    worst, _ = compare_with_pinocchio(arm, PinChain(path, report.chain.joints), None, states=10)
    # the warning's figure bounds what is lost (the frames themselves are right: the test above)
    assert 1e-12 < worst < estimate


def test_arms_without_near_parallel_axes_get_no_such_warning(tmp_path):
    text = _three_joints("ok", ("j1", "j2", "j3"), "1.5707963267948966 0 0")
    path = tmp_path / "ok.urdf"
    path.write_text(text)
    assert not any("from parallel" in w for w in import_urdf(path).warnings)
