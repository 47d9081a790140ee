"""Vendor descriptions the suite had not seen (tests/urdf/files/vendor15, sources in its README):
Universal Robots' ROS 2 xacro (parameters loaded from YAML), Franka's FR3 xacro, Kinova's Gen3
xacro and URDFs and Jaco2 xacro, UFACTORY's xArm7 ROS 2 xacro (with its gripper's mimic joints),
Doosan's M1013 xacro, ABB's and FANUC's ROS-Industrial descriptions (no <inertial> at all).

Each file is either imported and equal to Pinocchio reading the URDF (the URDF of a xacro file made
by the shipped ``xacro`` package, not by ours), or refused in one line that names the link and the
joint. Our xacro expansion itself is compared with the shipped xacro's text.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.urdf import UrdfError
from designer.urdf.pipeline import FileOptions, import_file
from designer.urdf.xacro_run import run_xacro

from tests.support.cli_lines import designer_command, energy_kept
from tests.support.exact_angles import exact_urdf
from tests.support.urdf_reference import PinChain, compare_with_pinocchio, shipped_xacro

pytest.importorskip("xacro")

ROOT = Path(__file__).resolve().parents[2]
FOLDER = Path(__file__).parent / "files" / "vendor15"
REFERENCE = ROOT / "tests" / "support" / "xacro_reference.py"
PACKAGES = {p.parent.name: str(p.parent) for p in FOLDER.glob("*/package.xml")}

UR10E = ("ur_description/urdf/ur.urdf.xacro", {"ur_type": "ur10e", "name": "ur"})
FR3 = ("franka_description/robots/fr3/fr3.urdf.xacro", {})
GEN3 = ("kortex_description/robots/gen3.xacro", {})
GEN3_6 = ("kortex_description/arms/gen3/6dof/urdf/GEN3-6DOF_NO-VISION_URDF_ARM_V01.urdf", {})
GEN3_LITE = ("kortex_description/arms/gen3_lite/6dof/urdf/GEN3-LITE.urdf", {})
IRB2400 = ("abb_irb2400_support/urdf/irb2400.urdf", {})
IRB2400_X = ("abb_irb2400_support/urdf/irb2400.xacro", {})
LRMATE = ("fanuc_lrmate200ic_support/urdf/lrmate200ic.xacro", {})
JACO2 = ("kinova_description/urdf/j2n6s300_standalone.xacro", {})
XARM7 = ("xarm_description/urdf/xarm_device.urdf.xacro", {"dof": "7"})
XARM7_GRIPPER = ("xarm_description/urdf/xarm_device.urdf.xacro", {"dof": "7", "add_gripper": "true"})
M1013 = ("dsr_description2/xacro/m1013.urdf.xacro", {})

# (file, xacro args, massless, the tip the import takes, the file's rounding of angles (M, G, pose relative))
MATCHED = [(*UR10E, False, "wrist_3_link", 5e-10), (*FR3, False, "fr3_hand", None),
           (*GEN3, False, "end_effector_link", 1.3e-5), (*GEN3_6, False, "end_effector_link", 2.9e-5),
           (*GEN3_LITE, True, "DUMMY", 9.6e-6), (*IRB2400, True, "tool0", 2.6e-12),
           (*IRB2400_X, True, "tool0", 2.6e-12), (*LRMATE, True, "tool0", None),
           (*JACO2, False, "j2n6s300_link_6", 4.5e-15), (*XARM7, False, "link_eef", 1.15e-5),
           (*XARM7_GRIPPER, False, "xarm_gripper_base_link", 1.15e-5), (*M1013, False, "link6", None)]
# --literal (the numbers as written) refused: the Gen3 6-DOF file writes joint_1's rpy as "-3.1416 0 0", which
# leaves joints 2 and 3 7.3e-6 rad from parallel, their common normal 5.6e4 m away: no DH table holds that
# (the Gen3 Lite likewise, joints J1 and J2)
LITERAL_REFUSED = {GEN3_6[0]: "joints 'joint_2' and 'joint_3': axes 7.3e-06 rad from parallel",
                   GEN3_LITE[0]: "joints 'J1' and 'J2': axes 7.3e-06 rad from parallel"}
# files without <inertial> on a moving link: refused unless --massless, the message names link and joint
REFUSED = [(*GEN3_LITE, "link 'END_EFFECTOR' (moved by joint 'J5')"),
           (*IRB2400, "link 'link_1' (moved by joint 'joint_1')"),
           (*IRB2400_X, "link 'link_1' (moved by joint 'joint_1')"),
           (*LRMATE, "link 'link_1' (moved by joint 'joint_1')")]
XACROS = [UR10E, FR3, GEN3, IRB2400_X, LRMATE, JACO2, XARM7, XARM7_GRIPPER, M1013,
          # other arguments of the same files: a UR3e, the FR3 without its hand, the Gen3 with 6 joints
          ("ur_description/urdf/ur.urdf.xacro", {"ur_type": "ur10e", "name": "ur", "safety_limits": "true"}),
          ("franka_description/robots/fr3/fr3.urdf.xacro", {"hand": "false"}),
          ("kortex_description/robots/gen3.xacro", {"dof": "6"})]


def _options(args) -> FileOptions:
    return FileOptions(xacro_args=dict(args), package_paths=[str(FOLDER)])


def shipped_urdf(relative: str, args: dict) -> str:
    """The URDF of the xacro package as its authors ship it ($(find) given the vendor15 packages)."""
    return shipped_xacro(FOLDER / relative, args, FOLDER)


def reference_file(relative: str, args: dict, folder: Path, exact: bool) -> Path:
    """The file for Pinocchio: a URDF as it is, a xacro file as the shipped xacro expands it;
    ``exact``: with the angles it rounds written in full (tests/support/exact_angles.py)."""
    text = shipped_urdf(relative, args) if relative.endswith(".xacro") else (FOLDER / relative).read_text()
    path = folder / ("exact.urdf" if exact else "written.urdf")
    path.write_text(exact_urdf(text) if exact else text)
    return path


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("relative,args,massless,tip,rounded", MATCHED, ids=[Path(m[0]).name for m in MATCHED])
def test_vendor_urdf_matches_pinocchio(relative, args, massless, tip, rounded, convention, tmp_path):
    """M, G and tau at 60 random states and the tool pose equal Pinocchio's to 1e-12: the import
    against the file with its rounded angles written in full, ``literal`` against the file as written."""
    report = import_file(FOLDER / relative, _options(args), convention=convention, massless=massless)
    assert report.chain.tip == tip, report.text()
    exact = PinChain(reference_file(relative, args, tmp_path, True), report.chain.joints)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model), exact, report.chain.tip, states=60)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())
    if rounded is None:
        assert report.as_written is None, report.text()
    else:   # the report says how far the numbers as written lie from the arm imported
        assert rounded / 3 < report.as_written < rounded * 3, report.text()
    if relative in LITERAL_REFUSED:
        with pytest.raises(UrdfError) as info:
            import_file(FOLDER / relative, _options(args), convention=convention, massless=massless, literal=True)
        assert LITERAL_REFUSED[relative] in str(info.value) and "\n" not in str(info.value), str(info.value)
        return
    literal = import_file(FOLDER / relative, _options(args), convention=convention, massless=massless, literal=True)
    written = PinChain(reference_file(relative, args, tmp_path, False), literal.chain.joints)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(literal.model), written, literal.chain.tip, states=60)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, literal.text())
    if massless:
        assert any("has no <inertial>: imported massless" in w for w in report.warnings), report.warnings


@pytest.mark.parametrize("relative,args,where", REFUSED, ids=[Path(r[0]).name for r in REFUSED])
def test_vendor_urdf_without_inertials_is_refused_in_one_line(relative, args, where):
    with pytest.raises(UrdfError) as info:
        import_file(FOLDER / relative, _options(args))
    message = str(info.value)
    assert "\n" not in message and where in message and "--massless" in message, message
    assert str(FOLDER / relative) in message


@pytest.mark.parametrize("ur_type", ["ur3", "ur3e", "ur5", "ur5e", "ur10", "ur16e", "ur20", "ur30"])
def test_every_ur_type_of_the_ros2_description(ur_type, tmp_path):
    """The UR ROS 2 xacro makes every UR from its type's four YAML files: each imports and equals
    Pinocchio on the shipped xacro's URDF (its 10-digit pi/2 written in full), 1e-12."""
    args = {"ur_type": ur_type, "name": "ur"}
    report = import_file(FOLDER / UR10E[0], _options(args))
    exact = PinChain(reference_file(UR10E[0], args, tmp_path, True), report.chain.joints)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model), exact, report.chain.tip, states=30)
    assert len(report.model.links) == 6 and worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())


def test_rounded_to_one_digit_says_which_inertias_no_body_has(tmp_path):
    """Doosan's M1013 with every number rounded to one significant digit: links 2 and 5 get principal
    moments that break the triangle inequality. The import keeps the file's numbers (equal to Pinocchio
    on that file) and says so in its report, naming link and joint, where before only a later
    ``validate`` said it."""
    from tests.support.rounding import significant
    rounded = tmp_path / "m1013.urdf"
    rounded.write_text(significant(shipped_urdf(*M1013), 1))
    report = import_file(rounded)
    broken = [w for w in report.warnings if "breaks the triangle inequality" in w]
    assert [w.split(":")[0] for w in broken] == ["link 'link2' (moved by joint 'joint2'), inertia",
                                                 "link 'link5' (moved by joint 'joint5'), inertia"], report.warnings
    worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model), PinChain(rounded, report.chain.joints),
                                         report.chain.tip, states=30)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose)
    assert not any("triangle" in w for w in import_file(FOLDER / M1013[0], _options({})).warnings)


#: the xArm gripper's right side in the URDF (outer knuckle, finger, inner knuckle) and in Menagerie's MJCF
RIGHT_URDF = ("right_inner_knuckle_joint", "right_outer_knuckle_joint", "right_finger_joint")
RIGHT_MJCF = {"right_inner_knuckle_joint": "right_inner_knuckle_joint",
              "right_outer_knuckle_joint": "right_driver_joint", "right_finger_joint": "right_finger_joint"}


def test_xarm7_gripper_loop_refused_in_one_line():
    """The xArm gripper is two four-bars (outer knuckle, finger, inner knuckle), each closed by the mimic
    joints, and a right side that follows the left by <mimic> alone (a gear in the gripper, no loop): a project
    cannot hold that coupling. Naming a finger as the tip is refused in one line, in both conventions alike,
    naming the joints the loops leave free and the tip to import to instead; those are the joints MuJoCo's
    constraint Jacobian of the same gripper's connects leaves free with the left driver held (Menagerie's
    xArm7, tests/mjcf/files/vendor15)."""
    from tests.mjcf.test_vendor15 import connects_leave_free
    free = connects_leave_free(held=("left_driver_joint",))
    assert sorted(free) == sorted(RIGHT_MJCF.values())
    for convention in Convention:
        with pytest.raises(UrdfError) as info:
            import_file(FOLDER / XARM7_GRIPPER[0], _options(XARM7_GRIPPER[1]), tip="left_finger", convention=convention)
        message = str(info.value)
        assert "\n" not in message and "joint 'left_finger_joint' mimics joint 'drive_joint'" in message, message
        named = message.split("leave joint(s) ")[1].split(" free to move")[0]
        assert sorted(x.strip("'") for x in named.split(", ")) == sorted(RIGHT_URDF), message
        assert [RIGHT_MJCF[j] for j in RIGHT_URDF if j in named] == [RIGHT_MJCF[j] for j in RIGHT_URDF]
        assert "by <mimic> alone" in message and "(--tip xarm_gripper_base_link)" in message, message
        assert "the 2 loop(s)" in message and "--convention" not in message, message   # the same refusal in both


def test_xarm7_gripper_left_four_bar_imports_as_a_closed_chain(tmp_path):
    """The shipped xArm7 URDF with the gripper's right side deleted: the left four-bar (drive joint actuated,
    finger and inner knuckle its mimics) hangs from the gripper base across the arm's last axis, a branch only
    the modified convention's gamma and b can hold; it imports as a closed chain whose M_a and G_a equal
    Pinocchio's reduced mimic model, and the standard import points at the modified one. (Before, the branch's
    first link took plain DH numbers from the frame the arm made for its next joint: refused in both.)"""
    import xml.etree.ElementTree as ET
    from tests.urdf.test_mimic_import import compare_with_pinocchio as compare_mimic_with_pinocchio
    root = ET.fromstring(shipped_urdf(*XARM7_GRIPPER))
    for joint in [j for j in root.findall("joint") if j.get("name").startswith("right_")]:
        root.remove(joint)
        root.remove(root.find(f"link[@name='{joint.find('child').get('link')}']"))
    for element in root.findall("gazebo") + root.findall("transmission") + root.findall("ros2_control"):
        root.remove(element)
    text = ET.tostring(root, encoding="unicode")
    path = tmp_path / "xarm7_left_four_bar.urdf"
    path.write_text(text)
    report = import_file(path, tip="left_finger", convention=Convention.MODIFIED)
    model = report.model
    assert len(model.links) == 10 and len(model.loops) == 1, report.text()
    compare_mimic_with_pinocchio(exact_urdf(text), model, tol=1e-9)   # the angles it reads as exact, in full
    with pytest.raises(UrdfError, match=r"the standard convention needs for a branch \(import with --convention "
                                        r"modified\)"):
        import_file(path, tip="left_finger", convention=Convention.STANDARD)


@pytest.mark.parametrize("relative,args", XACROS, ids=[f"{Path(x[0]).name}-{'-'.join(x[1].values()) or 'default'}"
                                                       for x in XACROS])
def test_vendor_xacro_gives_the_urdf_of_the_shipped_xacro(relative, args):
    """$(find) of sibling packages, xacro.load_yaml of the parameter files, macros with blocks,
    conditionals, ${} math: the same URDF text as the shipped xacro (comments aside)."""
    from tests.urdf.test_xacro_safety import _without_comments
    ours = run_xacro(FOLDER / relative, args, package_paths=[str(FOLDER)]).decode()
    assert _without_comments(ours) == _without_comments(shipped_urdf(relative, args))


def test_relative_package_path_on_the_command_line(tmp_path):
    """``--package-path tests/urdf/files/vendor15`` (relative to where the command runs): the xacro
    child runs in a folder of its own, and was handed the relative name ("package 'abb_resources'
    not found") until the folders were made absolute before it starts."""
    relative = FOLDER.relative_to(ROOT)
    out = tmp_path / "irb2400.json"
    run = subprocess.run([sys.executable, "-m", "designer", "import", str(relative / IRB2400_X[0]), "--massless",
                          "--package-path", str(relative), "--out", str(out)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(out.read_text())["links"][5]["name"] == "link_6"
    named = subprocess.run([sys.executable, "-m", "designer", "import", str(relative / IRB2400_X[0]), "--massless",
                            "--package-path", f"abb_resources={relative / 'abb_resources'}", "--out", str(out)],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert named.returncode == 0, named.stderr


def test_command_line_import_validate_eval_simulate(tmp_path):
    """The UR10e xacro as a user would take it: import with its arguments, validate, info, eval at a
    state (tau against Pinocchio on the shipped xacro's URDF), a short simulation keeping its energy."""
    relative, args = UR10E
    project = tmp_path / "ur10e.json"

    designer_command("import", str(FOLDER / relative), "--package-path", str(FOLDER), *sum((["--xacro-arg", f"{k}:={v}"]
                                                                               for k, v in args.items()), []),
        "--literal", "--out", str(project))
    assert "valid (6 links" in designer_command("validate", str(project)).stdout
    info = designer_command("info", str(project)).stdout
    assert "6 links" in info and "wrist_3_link" in info, info
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.uniform(-np.pi, np.pi, 6), rng.normal(size=6), rng.normal(size=6)
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": q.tolist(), "qd": qd.tolist(), "qdd": qdd.tolist()}]}))
    [result] = json.loads(designer_command("eval", str(project), "--states", str(states), "--quiet").stdout)["results"]
    report = import_file(FOLDER / relative, _options(args), literal=True)
    pin_chain = PinChain(reference_file(relative, args, tmp_path, False), report.chain.joints)
    ref = pin_chain.tau(q, qd, qdd)
    assert np.abs(np.array(result["tau"]) - ref).max() < 1e-10 * max(1.0, np.abs(ref).max())
    run = designer_command("simulate", str(project), "--q0", *["0.3"] * 6, "--t", "0.2", "--dt", "0.05",
              "--out", str(tmp_path / "sim.csv"))
    energy_kept(run)


# Rounded files: every number of the URDF to 3 or 4 significant digits (tests/support/rounding.py).
# (file, xacro args, digits, how close the import must equal Pinocchio on the rounded file, the
# lost-digits warning expected). "3.142" for pi leaves the Gen3's joints 2 and 3 4.1e-4 rad from parallel,
# their common normal 1 km out: kept skew as written (past SNAP_TOL, docs/urdf.md), the numbers lose
# about 1e-9, and the import says so; "3.14" (1.6e-3 rad, 250 m out) loses 1.1e-10 and is not warned of.
ROUNDED = [(*UR10E, 3, 1e-12, None), (*UR10E, 4, 1e-12, None), (*GEN3_6, 3, 3e-10, None),
           (*GEN3_6, 4, 3e-9, "joints 'joint_2' and 'joint_3': axes 0.00041 rad from parallel put their common "
                              "normal 1.01e+03 m out; numbers computed with these DH frames lose digits (about 1e-09"),
           (*FR3, 3, 1e-12, None), (*FR3, 4, 1e-12, None)]


@pytest.mark.parametrize("relative,args,digits,tolerance,warned", ROUNDED,
                         ids=[f"{Path(r[0]).name}-{r[2]}" for r in ROUNDED])
def test_rounded_vendor_urdf(relative, args, digits, tolerance, warned, tmp_path):
    """The URDF rounded to ``digits`` significant digits imports; equals Pinocchio on the rounded file
    (with the angles within 1e-5 rad of a multiple of pi/12 written in full, as the import reads them;
    ``literal`` on the file as written); lies within the rounding's reach of the original file's
    dynamics; a 1.57 written for pi/2 (8e-4 rad off) is kept as written, not read as pi/2."""
    from tests.support.rounding import rounded_files
    text = shipped_urdf(relative, args) if relative.endswith(".xacro") else (FOLDER / relative).read_text()
    rounded, exact, original = rounded_files(text, digits, exact_urdf, tmp_path, ".urdf")
    report = import_file(rounded)
    arm = NumericArm.from_model(report.model)
    worst, pose = compare_with_pinocchio(arm, PinChain(exact, report.chain.joints), report.chain.tip, states=40)
    assert worst < tolerance and pose < tolerance, (worst, pose, report.text())
    lost = [w for w in report.warnings if "lose digits" in w]
    assert (lost[0].startswith(warned) if warned else not lost), report.warnings
    literal = import_file(rounded, literal=True)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(literal.model), PinChain(rounded, literal.chain.joints),
                                         literal.chain.tip, states=40)
    assert worst < tolerance and pose < tolerance, (worst, pose, literal.text())
    # the rounding moved every number by up to 5e-3 (3 digits) or 5e-4 (4): the dynamics by about as much
    worst, pose = compare_with_pinocchio(arm, PinChain(original, report.chain.joints), report.chain.tip, states=40)
    reach = 4 * 10.0 ** (1 - digits)
    assert 10 * tolerance < worst < reach and pose < reach, (worst, pose)
    if relative == UR10E[0] and digits == 3:   # rpy "1.57 0 0": twists kept 8e-4 rad from pi/2, never snapped
        near = [float(l.alpha) for l in report.model.links if abs(abs(float(l.alpha)) - np.pi / 2) < 1e-2]
        assert near and all(abs(abs(t) - np.pi / 2) > 5e-4 for t in near), near


def test_xacro_failure_says_where(tmp_path):
    """Kinova's gen3.xacro with dof:=5 includes arms/gen3/5dof/..., which does not exist, from inside its
    macro load_robot (robots/kortex_robot.xacro): the one line names the file missing, the macro and the
    file that defines it, as the shipped xacro prints below its message (it said only the missing path,
    twice, with Python's "[Errno 2]"); an include missing in an included file names both files."""
    with pytest.raises(UrdfError) as info:
        run_xacro(FOLDER / GEN3[0], {"dof": "5"}, package_paths=[str(FOLDER)])
    message = str(info.value)
    robots = FOLDER.resolve() / "kortex_description" / "robots"
    assert "\n" not in message and "[Errno" not in message, message
    assert message.endswith(f"No such file or directory: {FOLDER.resolve()}/kortex_description/arms/gen3/5dof/urdf/"
                            f"gen3_macro.xacro (in macro 'load_robot' of {robots}/kortex_robot.xacro)"), message
    shipped = subprocess.run([sys.executable, str(REFERENCE)], capture_output=True, text=True, timeout=300,
                             input=json.dumps({"file": str(FOLDER / GEN3[0]), "args": {"dof": "5"},
                                               "packages": PACKAGES}))
    assert shipped.returncode != 0 and "5dof/urdf/gen3_macro.xacro" in shipped.stderr
    (tmp_path / "arm.urdf.xacro").write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                                             '<xacro:include filename="parts.xacro"/></robot>')
    (tmp_path / "parts.xacro").write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro">'
                                          '<xacro:include filename="gone.xacro"/></robot>')
    with pytest.raises(UrdfError) as info:
        run_xacro(tmp_path / "arm.urdf.xacro")
    assert str(info.value).endswith(f"No such file or directory: {tmp_path}/gone.xacro (in {tmp_path}/parts.xacro "
                                    f"included from {tmp_path}/arm.urdf.xacro)"), str(info.value)
    # a wrapped exception said once, by its class's name ("<class 'xacro.substitution_args.Substitution
    # Exception'>: Cannot substitute $(dirname), ... Cannot substitute $(dirname), ..." before)
    (tmp_path / "dirname.urdf.xacro").write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                                                 '<link name="a" tag="$(dirname)"/></robot>')
    with pytest.raises(UrdfError) as info:
        run_xacro(tmp_path / "dirname.urdf.xacro")
    assert str(info.value).endswith("xacro: SubstitutionException: Cannot substitute $(dirname),no file/directory "
                                    "information available."), str(info.value)
