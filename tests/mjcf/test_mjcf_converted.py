"""URDF arms of example-robot-data converted to MJCF by MuJoCo itself (MjSpec.from_string on the
URDF, spec.to_xml(): six significant digits, static links fused, limits as actuatorfrcrange):
imported and compared with MuJoCo's model of the converted file to 1e-12 (its six-digit quaternions
written in full; with --literal as written), and with Pinocchio on the original URDF (its angles in
full) to the digits the conversion kept."""

from __future__ import annotations

import re

import pytest

from designer.kinematics import NumericArm
from designer.mjcf import import_mjcf
from designer.model import Convention

from tests.support.exact_angles import exact_mjcf, exact_urdf
from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco
from tests.support.urdf_reference import PinChain, compare_with_pinocchio, erd

mujoco = pytest.importorskip("mujoco")

ARMS = ["ur_description/urdf/ur5_robot.urdf", "ur_description/urdf/ur10_robot.urdf",
        "panda_description/urdf/panda.urdf", "z1_description/urdf/z1.urdf", "xarm_description/urdf/xarm7.urdf",
        "kinova_description/robots/kinova.urdf"]


def _converted(relative: str, folder):
    text = erd(relative).read_text()
    # the meshes are not needed for the dynamics (and MuJoCo would look for them)
    text = re.sub(r"<(visual|collision)\b.*?</\1>", "", text, flags=re.DOTALL)
    xml = mujoco.MjSpec.from_string(text).to_xml()
    path = folder / (erd(relative).stem + ".xml")
    path.write_text(xml)
    return path


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("relative", ARMS, ids=[a.split("/")[-1] for a in ARMS])
def test_urdf_converted_by_mujoco(relative, convention, tmp_path):
    path = _converted(relative, tmp_path)
    # the quaternions to_xml writes to six digits are read as the exact ones they stand for: MuJoCo on the
    # file with those written in full; with --literal MuJoCo on the file as written
    exact = tmp_path / "exact.xml"
    exact.write_text(exact_mjcf(path.read_text()))
    for literal, reference in ((False, exact), (True, path)):
        report = import_mjcf(path, convention=convention, literal=literal)
        ref = MujocoChain(reference, report.chain.joints, report.chain.dropped)
        worst, pose = compare_with_mujoco(report.model, ref, report.chain.tip)
        assert worst < 1e-12 and pose < 1e-12, (literal, worst, pose, report.text())
    # the original URDF (its angles in full) by Pinocchio: to_xml wrote six digits (inertias, quaternions)
    report = import_mjcf(path, convention=convention)
    urdf = tmp_path / "exact.urdf"
    urdf.write_text(exact_urdf(erd(relative).read_text()))
    original, _ = compare_with_pinocchio(NumericArm.from_model(report.model), PinChain(urdf, report.chain.joints),
                                         None, states=10)
    assert original < 2e-5, original
