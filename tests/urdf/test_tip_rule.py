"""The one rule for the arm's tip (docs/urdf.md "The arm's tip"): the longest chain of moving joints
from the base, equally long chains near the end (fingers, a gripper's propeller) locked and lumped,
links hanging by fixed joints part of their link. Trossen's vx300s and wx250s (refused before: "ends at
gripper_prop_link and left_finger_link alike") and random trees, against Pinocchio's model of the file
with every joint off the arm locked at zero (buildReducedModel: a locked branch's mass counts)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from designer.cli import main
from designer.kinematics import NumericArm
from designer.urdf import UrdfError, import_urdf

from tests.support.random_trees import expected_arm, random_tree, tree_urdf
from tests.support.urdf_reference import PinChain, compare_with_pinocchio

FILES = Path(__file__).resolve().parent / "files"
TROSSEN = ["vx300s", "wx250s"]


def longest_chains(path: Path) -> tuple[int, list[list[str]]]:
    """(the most moving joints on a path from the root to a leaf, the moving joints of each such path),
    read from the file's XML directly."""
    root = etree.parse(str(path)).getroot()
    kids: dict[str, list[tuple[str, str, str]]] = {}
    children = set()
    for j in root.iter("joint"):
        parent, child = j.find("parent").get("link"), j.find("child").get("link")
        kids.setdefault(parent, []).append((j.get("name"), j.get("type"), child))
        children.add(child)
    (start,) = [l.get("name") for l in root.iter("link") if l.get("name") not in children]
    paths: list[list[str]] = []

    def walk(link: str, moving: list[str]) -> None:
        if link not in kids:
            paths.append(moving)
        for name, kind, child in kids.get(link, []):
            walk(child, moving + ([name] if kind != "fixed" else []))
    walk(start, [])
    longest = max(len(p) for p in paths)
    return longest, [p for p in paths if len(p) == longest]


@pytest.mark.parametrize("name", TROSSEN)
def test_trossen_arm_is_its_six_joints_with_the_gripper_locked(name):
    path = FILES / f"{name}.urdf"
    report = import_urdf(path)
    longest, chains = longest_chains(path)
    # the prop and both fingers each make a chain of 7; they part after the 6 arm joints
    assert longest == 7 and len(chains) == 3
    shared = [j for j in chains[0] if all(j in c for c in chains)]
    assert report.chain.joints == shared == ["waist", "shoulder", "elbow", "forearm_roll", "wrist_angle",
                                             "wrist_rotate"]
    assert set(report.chain.locked) == {"gripper", "left_finger", "right_finger"}
    text = report.text()
    assert f"the arm ends at '{name}/ee_arm_link', where" in text
    assert f"locked at zero (and lumped): gripper, left_finger, right_finger into {name}/gripper_link" in text
    worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model), PinChain(path, report.chain.joints),
                                         report.chain.tip, states=30)
    assert worst < 1e-12 + 10 * report.moved and pose < 1e-12 + 10 * report.moved, (worst, pose, report.moved)


def test_trossen_tip_still_chosen(capsys):
    """--tip names another end: the finger's chain of 7, said to be what it is."""
    path = FILES / "vx300s.urdf"
    assert main(["import-urdf", str(path), "--tip", "vx300s/ee_gripper_link"]) == 0
    err = capsys.readouterr().err
    assert "6 joints from 'vx300s/base_link' to 'vx300s/ee_gripper_link'" in err
    assert "the tip 'vx300s/ee_gripper_link' ends an arm of 6 moving joint(s); the longest chain" in err


ARM = '<link name="{n}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>'


def joint(name, kind, parent, child, xyz="0 0 0.3"):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}"/><axis xyz="0 1 0"/><limit effort="1" velocity="1" lower="-1" upper="1"/></joint>')


def test_two_arms_are_refused_naming_both_tips(tmp_path):
    """A torso with one joint carrying two arms of three: the chains part after fewer joints than follow."""
    links = ["torso", "chest", "l1", "l2", "l3", "r1", "r2", "r3"]
    joints = [joint("waist", "revolute", "torso", "chest"),
              joint("la1", "revolute", "chest", "l1", "0 0.2 0"), joint("la2", "revolute", "l1", "l2"),
              joint("la3", "revolute", "l2", "l3"),
              joint("ra1", "revolute", "chest", "r1", "0 -0.2 0"), joint("ra2", "revolute", "r1", "r2"),
              joint("ra3", "revolute", "r2", "r3")]
    path = tmp_path / "two.urdf"
    path.write_text(f'<robot name="t">{"".join(ARM.format(n=n) for n in links)}{"".join(joints)}</robot>')
    with pytest.raises(UrdfError, match=r"2 equally long chains of 4 moving joints, parting at 'chest', to 'l3', "
                                        r"'r3': name the tip \(--tip l3 or --tip r3\)"):
        import_urdf(path)
    assert import_urdf(path, tip="r3").chain.joints == ["waist", "ra1", "ra2", "ra3"]


@pytest.mark.parametrize("seed", range(12))
def test_random_trees_import_the_longest_moving_chain(seed, tmp_path):
    rng = np.random.default_rng(1000 + seed)
    bodies = random_tree(rng)
    path = tmp_path / "tree.urdf"
    path.write_text(tree_urdf(bodies))
    joints, tip = expected_arm(bodies)
    report = import_urdf(path)
    assert report.chain.joints == joints and report.chain.tip == tip
    on_arm = set(joints)
    # a branch hanging from the base before the arm's first joint does not move with the arm: fixed to the base
    before = {b.name for b in bodies if b.parent == 0 and b.joint and f"j_{b.name}" not in on_arm}
    on_base = set(report.chain.fixed_to_base)
    locked = {f"j_{b.name}" for b in bodies if b.joint and f"j_{b.name}" not in on_arm and b.name not in on_base}
    assert before <= on_base
    assert set(report.chain.locked) == locked
    if locked:   # each locked joint named in the report
        line = next(l for l in report.text().splitlines() if l.startswith("  locked at zero (and lumped):"))
        assert all(j in line for j in locked)
    # the camera's links hang by fixed joints: lumped into the link they hang from, never a branch
    assert all(not j.startswith("j_camera") for j in report.chain.locked)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model), PinChain(path, joints), tip,
                                         states=20)
    assert worst < 1e-12 + 10 * report.moved and pose < 1e-12 + 10 * report.moved, (worst, pose, report.moved)
