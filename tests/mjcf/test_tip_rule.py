"""The one rule for the arm's tip in MJCF files (docs/mjcf.md), the bounds on what is imported only,
and --allow-root: Menagerie's Sawyer (its head has no joint: a 1-joint arm before), Panda (fingers
locked), Gymnasium-Robotics' Fetch (base slides with damping 1e11, refused before), random trees;
M and the bias forces against MuJoCo's compiled model of the file with every joint off the arm at zero
(their bodies' mass counts), the joint count against the longest chain read from MuJoCo's model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.cli import main
from designer.mjcf import MjcfError, import_mjcf

from tests.support.exact_angles import exact_mjcf
from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco
from tests.support.random_trees import expected_arm, random_tree, tree_mjcf

mujoco = pytest.importorskip("mujoco")
FILES = Path(__file__).resolve().parent / "files"


def moving_paths(path: Path, base: str | None = None) -> list[list[str]]:
    """The hinges and slides from ``base`` (the world) to each leaf body, from MuJoCo's compiled model."""
    mj = mujoco.MjModel.from_xml_path(str(path))
    start = 0 if base is None else mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, base)
    moving = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    own = {b: [mj.joint(j).name for j in range(mj.body_jntadr[b], mj.body_jntadr[b] + mj.body_jntnum[b])
               if int(mj.jnt_type[j]) in moving] for b in range(mj.nbody)}
    paths: dict[int, list[str]] = {start: []}
    for b in range(mj.nbody):   # MuJoCo numbers a body after its parent
        if b != start and int(mj.body_parentid[b]) in paths and b != 0:
            paths[b] = paths[int(mj.body_parentid[b])] + own[b]
    parents = {int(mj.body_parentid[b]) for b in range(1, mj.nbody)}
    return [p for b, p in paths.items() if b not in parents]


def arm_by_rule(paths: list[list[str]]) -> list[str]:
    longest = max(len(p) for p in paths)
    top = [p for p in paths if len(p) == longest]
    shared = [j for j in top[0] if all(j in p for p in top)]
    assert len(top) == 1 or len(shared) >= longest - len(shared)
    return shared


def check_against_mujoco(path: Path, report) -> None:
    worst, pose = compare_with_mujoco(report.model, MujocoChain(path, report.chain.joints), report.chain.tip)
    allowed = 1e-12 + 10 * report.moved   # the angles read as exact multiples of pi/12 turn the arm by that
    assert worst < allowed and pose < allowed, (worst, pose, report.moved)


def check_both_modes(path: Path, tmp_path: Path, default_exact: bool = True) -> None:
    """--literal against MuJoCo on the original to 1e-12; the default (angles read as exact) against
    MuJoCo on a full-precision copy (tests/support/exact_angles.py) to 1e-12 when ``default_exact``."""
    exact = tmp_path / path.name
    exact.write_text(exact_mjcf(path.read_text()))
    literal = import_mjcf(path, literal=True)
    worst, pose = compare_with_mujoco(literal.model, MujocoChain(path, literal.chain.joints), literal.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, ("literal", worst, pose)
    if default_exact:
        report = import_mjcf(path)
        worst, pose = compare_with_mujoco(report.model, MujocoChain(exact, report.chain.joints), report.chain.tip)
        assert worst < 1e-12 and pose < 1e-12, ("default", worst, pose, report.moved)


def test_sawyer_is_its_seven_joints_and_its_head_part_of_the_first_link(tmp_path):
    path = FILES / "sawyer.xml"
    report = import_mjcf(path)
    assert report.chain.joints == arm_by_rule(moving_paths(path)) == [f"right_j{k}" for k in range(7)]
    assert "head" in report.lumped["right_l0"] and not report.chain.locked
    check_against_mujoco(path, report)
    # the default mode still differs by 2e-6 from MuJoCo on exact_mjcf's copy (the importer turns the arm by
    # report.moved = 8e-6, the copy does not change the same angles): only --literal is held to 1e-12 here
    check_both_modes(path, tmp_path)


def test_panda_fingers_locked_and_lumped_and_named(tmp_path):
    path = FILES / "panda.xml"
    report = import_mjcf(path)
    paths = moving_paths(path)
    assert max(len(p) for p in paths) == 8 and report.chain.joints == arm_by_rule(paths)
    assert len(report.chain.joints) == 7 and report.chain.tip == "hand"
    assert "locked at zero (and lumped): finger_joint1, finger_joint2 into link7" in report.text()
    assert "the arm ends at 'hand', where 2 equally long chains" in report.text()
    check_both_modes(path, tmp_path)


def test_menagerie_wx250s_is_its_six_joints_as_its_urdf():
    path = FILES / "wx250s.xml"
    report = import_mjcf(path)
    assert report.chain.joints == arm_by_rule(moving_paths(path)) == ["waist", "shoulder", "elbow", "forearm_roll",
                                                                      "wrist_angle", "wrist_rotate"]
    assert set(report.chain.locked) == {"left_finger", "right_finger"} and report.chain.tip == "wx250s/gripper_link"
    check_against_mujoco(path, report)


def test_fetch_arm_below_its_mobile_base(capsys):
    path = FILES / "fetch.xml"
    # from the world, the base's slides are the arm's first joints: their damping 1e11 would be imported
    assert main(["import-mjcf", str(path), "--out", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "joint 'robot0:slide0': damping = 1e+11 is larger than 1e+09" in err
    assert "--base robot0:base_link" in err
    report = import_mjcf(path, base="robot0:base_link")
    assert report.chain.joints == arm_by_rule(moving_paths(path, "robot0:base_link"))
    assert report.chain.joints[0] == "robot0:torso_lift_joint" and len(report.chain.joints) == 8
    assert report.chain.tip == "robot0:gripper_link"
    assert set(report.chain.locked) == {"robot0:head_pan_joint", "robot0:head_tilt_joint",
                                        "robot0:r_gripper_finger_joint", "robot0:l_gripper_finger_joint"}
    (line,) = [l for l in report.text().splitlines() if "1e+09" in l]   # the slides: one line
    assert "damping of joint robot0:slide0, robot0:slide1, robot0:slide2" in line
    check_against_mujoco(path, report)


ARM = """<mujoco model="a"><compiler angle="radian"/>{include}<worldbody>
  <body name="table" pos="1 0 0"><inertial mass="{table}" pos="0 0 0" diaginertia="1 1 1"/></body>
  <body name="l1" pos="0 0 0.1"><joint name="j1" axis="0 0 1" damping="{d1}"/>
    <inertial mass="1" pos="0.1 0 0" diaginertia="0.01 0.02 0.03"/>
    <body name="l2" pos="0.3 0 0"><joint name="j2" axis="0 1 0"/>
      <inertial mass="1" pos="0.1 0 0" diaginertia="0.01 0.02 0.03"/>
      <body name="f1" pos="0.3 0 0"><joint name="fj1" type="slide" axis="0 1 0" damping="{df}"/>
        <inertial mass="{m1}" pos="0 0 0" diaginertia="0.001 0.001 0.001"/></body>
      <body name="f2" pos="0.3 0 0"><joint name="fj2" type="slide" axis="0 -1 0"/>
        <inertial mass="0.1" pos="0 0 0" diaginertia="0.001 0.001 0.001"/></body>
    </body>
  </body>
</worldbody><actuator>{act}</actuator></mujoco>"""


def arm(tmp_path, name="a.xml", include="", table="5", d1="0.1", m1="0.1", df="1", act=""):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ARM.format(include=include, table=table, d1=d1, m1=m1, df=df, act=act))
    return path


def test_large_numbers_refused_where_imported_reported_elsewhere(tmp_path):
    report = import_mjcf(arm(tmp_path, table="1e12", df="1e11", act='<motor joint="fj1" gear="2e10"/>'))
    assert report.chain.joints == ["j1", "j2"] and set(report.chain.locked) == {"fj1", "fj2"}
    (line,) = [l for l in report.text().splitlines() if "1e+09" in l]
    assert "damping of joint fj1" in line and "mass of body table" in line
    assert "gear of the actuator of joint fj1" in line
    with pytest.raises(MjcfError, match="the actuator of joint 'j2': forcerange = -3e\\+10 3e\\+10 is larger"):
        import_mjcf(arm(tmp_path, act='<motor joint="j2" forcerange="-3e10 3e10"/>'))
    with pytest.raises(MjcfError, match="joint 'j1': damping = 1e\\+11 is larger than 1e\\+09"):
        import_mjcf(arm(tmp_path, d1="1e11"))
    with pytest.raises(MjcfError, match="body 'f1': mass = 1e\\+10 is larger than 1e\\+09"):   # a locked body
        import_mjcf(arm(tmp_path, m1="1e10"))
    for bad in ("nan", "inf"):   # not finite: refused before MuJoCo reads it, wherever it is
        with pytest.raises(MjcfError, match="must be finite"):
            import_mjcf(arm(tmp_path, df=bad))


def test_include_outside_the_folder_needs_allow_root(tmp_path, capsys):
    scene = tmp_path / "scene" / "basic.xml"
    scene.parent.mkdir()
    scene.write_text('<mujoco><option timestep="0.001"/></mujoco>')
    path = arm(tmp_path, "models/a.xml", include='<include file="../scene/basic.xml"/>')
    assert main(["import-mjcf", str(path), "--out", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lies outside the model's folder" in err
    assert f"--allow-root {scene.parent}" in err and not (tmp_path / "p.json").exists()
    assert main(["import", str(path), "--allow-root", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --allow-root {tmp_path / 'nowhere'}: no such folder\n"
    assert main(["import", str(path), "--allow-root", str(scene.parent), "--out", str(tmp_path / "p.json")]) == 0
    assert (tmp_path / "p.json").is_file()
    # an allowed folder is no door to the rest: what it includes from outside is refused again
    scene.write_text('<mujoco><include file="../secret/x.xml"/></mujoco>')
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "x.xml").write_text("<mujoco/>")
    with pytest.raises(MjcfError, match="outside the model's folder .* and the folders allowed"):
        import_mjcf(path, allow_roots=[scene.parent])


@pytest.mark.parametrize("seed", range(12))
def test_random_trees_import_the_longest_moving_chain(seed, tmp_path):
    rng = np.random.default_rng(2000 + seed)
    bodies = random_tree(rng)
    path = tmp_path / "tree.xml"
    path.write_text(tree_mjcf(bodies))
    joints, tip = expected_arm(bodies)
    report = import_mjcf(path)
    assert report.chain.joints == joints == arm_by_rule(moving_paths(path)) and report.chain.tip == tip
    off = {f"j_{b.name}" for b in bodies if b.joint} - set(joints)
    assert set(report.chain.locked) | {f"j_{n}" for n in report.chain.fixed_to_base} >= off
    check_against_mujoco(path, report)
