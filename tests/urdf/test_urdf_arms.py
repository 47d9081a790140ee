"""Real arms from example-robot-data: our model of the imported URDF against Pinocchio loading the
original file (off-chain joints locked at zero, as buildReducedModel), then exported back and
loaded by Pinocchio and MuJoCo."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.urdf import import_urdf, urdf_text
from designer.urdf.exporter import urdf_base

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


@pytest.mark.parametrize("convention", CONVENTIONS, ids=lambda c: c.value)
@pytest.mark.parametrize("relative,base,tip", ARMS, ids=[a[0].split("/")[-1] for a in ARMS])
def test_imported_arm_matches_pinocchio_on_the_original(relative, base, tip, convention):
    path = erd(relative)
    report = import_urdf(path, base=base, tip=tip, convention=convention)
    arm = NumericArm.from_model(report.model)
    worst, pose = compare_with_pinocchio(arm, PinChain(path, report.chain.joints), report.chain.tip, states=100)
    # angles the import read as exact multiples of pi/12 (the UR files write 1.570796325, xArm7 and
    # SO-101 1.5708) turn the arm by what the report says; nothing else may differ
    allowed = 10 * report.moved
    assert worst < 1e-9 + allowed and pose < 1e-12 + allowed, (worst, pose, report.moved)
    assert bool(report.moved) == any("read as" in n or "made parallel" in n for n in report.notes)
    assert report.checked is not None and report.checked < 1e-9 + 10 * report.moved


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
                                             PinChain(path, joints), None)
        assert worst < 1e-9 and original < 1e-9 + 10 * report.moved, (worst, original)
        pin_chain = PinChain(out, joints)
        q = np.linspace(-1, 1, arm.n)
        np.testing.assert_allclose(pin_chain.frame("tool", q), urdf_base(arm) @ arm.frames(q)[-1] @ arm.tool,
                                   atol=1e-12)
        assert mujoco_errors(text, arm, tmp_path) < 1e-9
