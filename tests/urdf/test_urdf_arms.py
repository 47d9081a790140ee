"""Real arms from example-robot-data: our model of the imported URDF against Pinocchio loading the
file with its rounded angles written in full, and with --literal the original file (off-chain joints
locked at zero, as buildReducedModel), then exported back and loaded by Pinocchio and MuJoCo."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric.recursive import mass_matrix
from designer.urdf import import_urdf, urdf_text
from designer.urdf.exporter import urdf_base

from tests.support.exact_angles import exact_urdf
from tests.support.urdf_reference import PinChain, compare_with_pinocchio, erd, mujoco_errors

# (file, base, tip): None takes the default (the root; the only end, or where the branches part)
ARMS = [
    ("ur_description/urdf/ur5_robot.urdf", None, "tool0"),
    ("ur_description/urdf/ur10_robot.urdf", None, None),
    ("ur_description/urdf/ur3_robot.urdf", None, None),
    ("panda_description/urdf/panda.urdf", None, "panda_link8"),
    ("z1_description/urdf/z1.urdf", None, None),
    ("xarm_description/urdf/xarm7.urdf", None, None),
    ("kinova_description/robots/kinova.urdf", None, None),
    ("so_arm_description/urdf/so101.urdf", None, None),
    ("talos_data/robots/talos_reduced.urdf", "torso_2_link", "gripper_left_base_link"),
    ("tiago_description/robots/tiago.urdf", None, "arm_tool_link"),
]
CONVENTIONS = [Convention.STANDARD, Convention.MODIFIED]


def _exact_copy(path, folder):
    """The file with its rounded angles written in full (tests/support/exact_angles.py)."""
    copy = folder / "exact.urdf"
    copy.write_text(exact_urdf(path.read_text()))
    return copy


@pytest.mark.parametrize("convention", CONVENTIONS, ids=lambda c: c.value)
@pytest.mark.parametrize("relative,base,tip", ARMS, ids=[a[0].split("/")[-1] for a in ARMS])
def test_imported_arm_is_the_arm_the_file_means_or_the_file_as_written(relative, base, tip, convention, tmp_path):
    """Angles the file rounds (the UR files write 1.57079632679, xArm7 and SO-101 1.5708) are read as
    exact ones: the import equals Pinocchio on the file with those angles written in full; with
    ``literal`` it equals Pinocchio on the original file. M, G and tau at 100 states, the tool pose."""
    path = erd(relative)
    report = import_urdf(path, base=base, tip=tip, convention=convention)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model),
                                         PinChain(_exact_copy(path, tmp_path), report.chain.joints),
                                         report.chain.tip, states=100)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose)
    assert report.moved < 1e-12 and report.checked is not None and report.checked < 1e-12
    literal = import_urdf(path, base=base, tip=tip, convention=convention, literal=True)
    assert literal.chain.joints == report.chain.joints
    worst, pose = compare_with_pinocchio(NumericArm.from_model(literal.model), PinChain(path, literal.chain.joints),
                                         literal.chain.tip, states=100)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose)
    assert literal.as_written is None and "--literal" not in literal.text() and literal.moved < 1e-12
    # the report says how far the file as written lies from the arm imported: the two imports differ so
    if report.as_written is not None:
        assert "the file as written moves the link frames" in report.text()
        arm, written = NumericArm.from_model(report.model), NumericArm.from_model(literal.model)
        q = np.random.default_rng(3).uniform(-np.pi, np.pi, arm.n)
        M = mass_matrix(written, q)
        apart = float(np.abs(mass_matrix(arm, q) - M).max() / np.abs(M).max())
        assert apart <= 10 * report.as_written + 1e-13, (apart, report.as_written)
    if relative.endswith(("xarm7.urdf", "so101.urdf")):   # 1.5708: 3.7e-6 rad
        assert report.as_written is not None and report.as_written > 1e-7, report.text()


def test_ur5_table_reads_like_the_datasheet():
    """Twists come out as exact multiples of pi/12, lengths as written in the file."""
    model = import_urdf(erd("ur_description/urdf/ur5_robot.urdf")).model
    assert [str(l.alpha) for l in model.links] == ["pi/2", "0", "0", "pi/2", "pi/2", "0"]
    # the file's rpy 1.570796325 left theta2 = theta4 = 3.1415926535849, and Derive then refused the
    # closed form ("about 380,000 terms") and wrote sin(q2 + 3.1415926535849): read as pi, said so
    assert all(not sp.sympify(l.theta).atoms(sp.Float) for l in model.links), [l.theta for l in model.links]
    assert [float(l.d) for l in model.links] == [0.089159, 0, 0, 0.10915, 0.09465, 0]
    assert [float(l.a) for l in model.links] == [0, 0.425, 0.39225, 0, 0, 0]
    assert model.links[0].joint_name == "shoulder_pan_joint" and model.links[0].name == "shoulder_link"
    assert model.links[0].drive.peak_torque == 150.0 and model.links[0].limits is not None


def test_panda_fingers_are_locked_and_lumped_or_dropped():
    path = erd("panda_description/urdf/panda.urdf")
    locked = import_urdf(path, tip="panda_link8")
    assert set(locked.chain.locked) == {"panda_finger_joint1", "panda_finger_joint2"}
    assert "panda_hand" in locked.lumped["panda_link7"] and "locked at zero" in locked.text()
    dropped = import_urdf(path, tip="panda_link8", drop_rest=True)
    assert {"panda_leftfinger", "panda_rightfinger"} <= set(dropped.chain.dropped)
    assert float(dropped.model.links[-1].mass) < float(locked.model.links[-1].mass)
    assert "dropped:" in dropped.text()


@pytest.mark.parametrize("relative,base,tip", ARMS[:8], ids=[a[0].split("/")[-1] for a in ARMS[:8]])
def test_imported_arm_exports_back_to_pinocchio_and_mujoco(relative, base, tip, tmp_path):
    path = erd(relative)
    for convention in CONVENTIONS:
        report = import_urdf(path, base=base, tip=tip, convention=convention)
        model = report.model
        arm = NumericArm.from_model(model)
        text = urdf_text(model)
        out = tmp_path / f"{convention.value}.urdf"
        out.write_text(text)
        joints = [l.joint_name for l in model.links]
        worst, _ = compare_with_pinocchio(arm, PinChain(out, joints), None)
        original, _ = compare_with_pinocchio(NumericArm.from_model(import_urdf(out, tip="tool").model),
                                             PinChain(_exact_copy(path, tmp_path), joints), None)
        assert worst < 1e-9 and original < 1e-9, (worst, original)
        pin_chain = PinChain(out, joints)
        q = np.linspace(-1, 1, arm.n)
        np.testing.assert_allclose(pin_chain.frame("tool", q), urdf_base(arm) @ arm.frames(q)[-1] @ arm.tool,
                                   atol=1e-12)
        assert mujoco_errors(text, arm, tmp_path) < 1e-9
