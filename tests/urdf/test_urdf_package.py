"""Every URDF of example-robot-data: each serial chain imports (arms of humanoids and mobile
manipulators by naming base and tip), the rest is refused with a one-line message."""

from __future__ import annotations

import pytest

from designer.kinematics import NumericArm
from designer.urdf import UrdfError, import_urdf

from tests.support.exact_angles import exact_urdf
from tests.support.urdf_reference import PinChain, compare_with_pinocchio, erd_folder

# files whose default chain is not the arm (trees): the arm named by base and tip
NAMED = {
    "talos_reduced.urdf": ("torso_2_link", "gripper_left_base_link"),
    "talos_full_v2.urdf": ("torso_2_link", "gripper_right_base_link"),
    "tiago.urdf": (None, "arm_tool_link"),
    "tiago_dual.urdf": (None, "arm_left_tool_link"),
    "b1-z1.urdf": ("base", "gripperMover"),
    "baxter.urdf": ("torso", "left_wrist"),
    "icub.urdf": (None, "l_hand"),
    "romeo.urdf": (None, "LWristYawLink"),
    "g1_29dof_rev_1_0.urdf": ("torso_link", "left_wrist_yaw_link"),
    "pr2.urdf": ("torso_lift_link", "r_wrist_roll_link"),
    "panda.urdf": (None, "panda_link8"),
}


def urdf_files():
    return sorted(erd_folder().rglob("*.urdf"))


@pytest.mark.slow
def test_every_package_urdf_imports_or_is_refused_with_a_message(capsys, tmp_path):
    imported, refused, no_oracle = [], {}, []
    for path in urdf_files():
        base, tip = NAMED.get(path.name, (None, None))
        try:
            report = import_urdf(path, base=base, tip=tip)
        except UrdfError as exc:
            message = str(exc)
            assert "\n" not in message and str(path) in message
            refused[path.name] = message.split(": ", 1)[1]
            continue
        imported.append(path.name)
        arm = NumericArm.from_model(report.model)
        # the arm the file means: its rounded angles written in full (tests/support/exact_angles.py)
        exact = tmp_path / path.name
        exact.write_text(exact_urdf(path.read_text()))
        try:
            reference = PinChain(exact, report.chain.joints)
        except ValueError:  # Pinocchio's own reduction fails on some files (two frames of one name)
            no_oracle.append(path.name)
            continue
        worst, pose = compare_with_pinocchio(arm, reference, report.chain.tip, states=5)
        # only axes nearly parallel, made parallel, move the arm (report.moved: at most 1.2e-16 rad here)
        allowed = 10 * report.moved
        assert worst < 1e-12 + allowed and pose < 1e-12 + allowed, (path.name, worst, pose)
        # the file as written (--literal) against Pinocchio on the original (Baxter's 11-digit quarter turns, 4.9e-12
        # rad off, leave its axes 5e-13 m apart where they meet in the vendor's arm: kept as written)
        literal = import_urdf(path, base=base, tip=tip, literal=True)
        worst, pose = compare_with_pinocchio(NumericArm.from_model(literal.model), PinChain(path, literal.chain.joints),
                                             literal.chain.tip, states=5)
        assert worst < 1e-12 and pose < 1e-12, (path.name, "literal", worst, pose)
    with capsys.disabled():
        print(f"\n{len(imported)} imported, {len(refused)} refused; Pinocchio could not reduce: {no_oracle}")
        for name, why in sorted(refused.items()):
            print(f"  refused {name}: {why[:150]}")
    assert len(imported) >= 20
    for name in NAMED:
        if any(p.name == name for p in urdf_files()):
            assert name in imported, refused.get(name)
