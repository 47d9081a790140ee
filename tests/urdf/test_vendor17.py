"""Vendor descriptions the suite had not seen (tests/urdf/files/vendor17, sources in its README):
ROS-Industrial's KUKA KR 210 L150, KR 16-2, KR 5 arc and LBR iiwa 14 R820 xacro files (the iiwa without
any <inertial>), Motoman SIA10D and Staubli RX160 / RX160L xacro files; ROBOTIS' OpenMANIPULATOR-Y
(OMY-3M) and OpenMANIPULATOR-X ROS 2 xacro files (with ros2_control and Gazebo includes, a prismatic
gripper whose right finger mimics the left); and from example-robot-data (installed) the arms of
Baxter, PR2 and TIAGo Pro, each from its torso.

Each file is either imported and equal to Pinocchio reading the URDF (the URDF of a xacro file made by
the shipped ``xacro`` package, not by ours), or refused in one line that says what and where. Our
xacro expansion itself is compared with the shipped xacro's text; the import is exported and read back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.kinematics import NumericArm
from designer.model import Convention
from designer.urdf import UrdfError, import_urdf, urdf_text
from designer.urdf.pipeline import FileOptions, import_file
from designer.urdf.xacro_run import run_xacro

from tests.support.exact_angles import exact_urdf
from tests.support.urdf_reference import PinChain, compare_with_pinocchio, erd, shipped_xacro

pytest.importorskip("xacro")

FOLDER = Path(__file__).parent / "files" / "vendor17"

KR210 = "kuka_kr210_support/urdf/kr210l150.xacro"
KR16 = "kuka_kr16_support/urdf/kr16_2.xacro"
KR5 = "kuka_kr5_support/urdf/kr5_arc.xacro"
IIWA = "kuka_lbr_iiwa_support/urdf/lbr_iiwa_14_r820.xacro"
SIA10D = "motoman_sia10d_support/urdf/sia10d.xacro"
RX160 = "staubli_rx160_support/urdf/rx160.xacro"
RX160L = "staubli_rx160_support/urdf/rx160l.xacro"
OMY = "open_manipulator_description/urdf/omy_3m/omy_3m.urdf.xacro"
OMX = "open_manipulator_description/urdf/open_manipulator_x/open_manipulator_x.urdf.xacro"
OMY_F3M = "open_manipulator_description/urdf/omy_f3m/omy_f3m.urdf.xacro"
BAXTER = "baxter_description/urdf/baxter.urdf"
PR2 = "pr2_description/urdf/pr2.urdf"
TIAGO_PRO = "tiago_pro_description/robots/tiago_pro.urdf"
ERD = (BAXTER, PR2, TIAGO_PRO)   # from the installed example-robot-data, not copied

# (file, base, tip asked, massless, tip taken, joints, the file's rounding of angles (M, G, pose relative;
#  0.0: angles read as exact that move nothing above 1e-14))
MATCHED = [(KR210, None, None, False, "tool0", 6, None), (KR16, None, None, False, "tool0", 6, None),
           (KR5, None, None, False, "tool0", 6, None), (IIWA, None, None, True, "tool0", 7, None),
           (SIA10D, None, None, False, "link_t", 7, 0.0), (RX160, None, None, False, "tool0", 6, None),
           (RX160L, None, None, False, "tool0", 6, None),
           (OMY, None, None, False, "end_effector_link", 6, None),
           # with ROBOTIS' RH-P12-RN-A gripper: its four finger joints (three mimic the first) locked and lumped
           (OMY_F3M, None, None, False, "rh_p12_rn_base", 6, None),
           # the arm ends where the two fingers part (locked and lumped), or at the end effector frame
           (OMX, None, None, False, "link5", 4, None),
           (OMX, None, "end_effector_link", False, "end_effector_link", 4, None),
           (BAXTER, None, "right_gripper", False, "right_gripper", 7, 1.8e-6),
           (BAXTER, None, "left_gripper", False, "left_gripper", 7, 1.8e-6),
           (PR2, "torso_lift_link", "r_gripper_tool_frame", False, "r_gripper_tool_frame", 7, 0.0),
           (TIAGO_PRO, "torso_lift_link", "arm_right_tool_link", False, "arm_right_tool_link", 7, 7.1e-6)]


def path_of(relative: str) -> Path:
    return erd(relative) if relative in ERD else FOLDER / relative


def _options() -> FileOptions:
    return FileOptions(package_paths=[str(FOLDER)])


def reference_file(relative: str, folder: Path, exact: bool) -> Path:
    """The file for Pinocchio: a URDF as it is, a xacro file as the shipped xacro expands it;
    ``exact``: with the angles it rounds written in full (tests/support/exact_angles.py)."""
    path = path_of(relative)
    text = shipped_xacro(path, {}, FOLDER) if relative.endswith(".xacro") else path.read_text()
    out = folder / ("exact.urdf" if exact else "written.urdf")
    out.write_text(exact_urdf(text) if exact else text)
    return out


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("relative,base,tip,massless,taken,n,rounded", MATCHED,
                         ids=[f"{Path(m[0]).name}-{m[4]}" for m in MATCHED])
def test_vendor_urdf_matches_pinocchio(relative, base, tip, massless, taken, n, rounded, convention, tmp_path):
    """M, G and tau at 30 random states and the tool pose equal Pinocchio's to 1e-12: the import
    against the file with its rounded angles written in full, ``literal`` against the file as written."""
    options = dict(base=base, tip=tip, convention=convention, massless=massless)
    report = import_file(path_of(relative), _options(), **options)
    assert report.chain.tip == taken and len(report.model.links) == n, report.text()
    exact = PinChain(reference_file(relative, tmp_path, True), report.chain.joints)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model), exact, report.chain.tip, states=30)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())
    if rounded is None:
        assert report.as_written is None, report.text()
    elif rounded == 0.0:   # angles read as exact that move nothing measurable (PR2)
        assert report.as_written is not None and report.as_written < 1e-14, report.text()
    else:   # the report says how far the numbers as written lie from the arm imported
        assert rounded / 3 < report.as_written < rounded * 3, report.text()
    literal = import_file(path_of(relative), _options(), literal=True, **options)
    assert literal.chain.joints == report.chain.joints
    written = PinChain(reference_file(relative, tmp_path, False), literal.chain.joints)
    worst, pose = compare_with_pinocchio(NumericArm.from_model(literal.model), written, literal.chain.tip, states=30)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, literal.text())
    if massless:
        named = [w for w in report.warnings if "has no <inertial>: imported massless" in w]
        assert [w.split("'")[1] for w in named] == [f"link_{k}" for k in range(1, 8)], report.warnings


@pytest.mark.parametrize("relative", [KR210, OMY, BAXTER])
def test_vendor_urdf_exports_back_to_pinocchio(relative, tmp_path):
    """The imported arm written as URDF: Pinocchio on the export equals Pinocchio on the original (angles
    written in full), and importing the export gives the same dynamics again."""
    [(_, base, tip, massless, *_)] = [m for m in MATCHED if m[0] == relative][:1]
    original = reference_file(relative, tmp_path, True)
    for convention in Convention:
        report = import_file(path_of(relative), _options(), base=base, tip=tip, convention=convention,
                             massless=massless)
        out = tmp_path / f"{convention.value}.urdf"
        out.write_text(urdf_text(report.model))
        joints = [link.joint_name for link in report.model.links]
        worst, _ = compare_with_pinocchio(NumericArm.from_model(report.model), PinChain(out, joints), None, states=20)
        back = import_urdf(out, tip="tool", convention=convention)
        again, _ = compare_with_pinocchio(NumericArm.from_model(back.model), PinChain(original, report.chain.joints),
                                          None, states=20)
        assert worst < 1e-9 and again < 1e-9, (convention, worst, again)


def test_meshes_not_there_are_said_in_one_line():
    """A vendor package copied without its meshes folder (every file here): the KR 210's seven visual meshes
    are said in one warning naming the first file and the links drawn as sticks, as the MJCF import says its
    mesh files (it said seven lines, each with its full path); one or a few stay a line each."""
    report = import_file(FOLDER / KR210, _options())
    lines = [w for w in report.warnings if "mesh" in w]
    folder = FOLDER / "kuka_kr210_support" / "meshes" / "kr210l150" / "visual"
    assert lines == [f"7 mesh file(s) not there (the first {folder / 'link_1.dae'}, of link 'link_1'): 'link_1', "
                     "'link_2', 'link_3', 'link_4', 'link_5', 'link_6', ... (7 links) drawn as sticks"], lines
    # as many as the shipped xacro's URDF names visual meshes (the fingers' too: lumped into link5)
    import xml.etree.ElementTree as ET
    root = ET.fromstring(shipped_xacro(FOLDER / OMX, {}, FOLDER))
    files = {m.get("filename") for m in root.findall("link/visual/geometry/mesh")}
    omx = import_file(FOLDER / OMX, _options(), tip="end_effector_link")
    lines = [w for w in omx.warnings if "mesh" in w]
    assert len(lines) == 1 and lines[0].startswith(f"{len(files)} mesh file(s) not there"), (lines, files)


def test_lbr_iiwa_without_inertials_is_refused_in_one_line():
    with pytest.raises(UrdfError) as info:
        import_file(FOLDER / IIWA, _options())
    message = str(info.value)
    assert "\n" not in message and "link 'link_1' (moved by joint 'joint_a1')" in message, message
    assert "--massless" in message and str(FOLDER / IIWA) in message, message
    # --density takes each link's inertia from its collision mesh: those files are not here either
    with pytest.raises(UrdfError) as info:
        import_file(FOLDER / IIWA, FileOptions(package_paths=[str(FOLDER)], density=2700))
    message = str(info.value)
    mesh = FOLDER / "kuka_lbr_iiwa_support" / "meshes" / "lbr_iiwa_14_r820" / "collision" / "link_1.stl"
    assert "\n" not in message and message.endswith(f"link 'link_1': cannot compute its inertia from its collision "
                                                    f"geometry: {mesh}: no such file"), message


def test_open_manipulator_x_gripper_refused_in_one_line():
    """The OMX gripper: two prismatic fingers, the right one mimics the left. A project holds no such
    coupling: naming a finger as the tip is refused in one line, in both conventions, saying which joint
    mimics which; the left finger's line points at --drop-rest (the right finger's links left out)."""
    for convention in Convention:
        with pytest.raises(UrdfError) as info:
            import_file(FOLDER / OMX, _options(), tip="gripper_left_link", convention=convention)
        message = str(info.value)
        assert "\n" not in message and "joint 'gripper_right_joint' mimics joint 'gripper_left_joint'" in message
        assert "--drop-rest" in message, message
        with pytest.raises(UrdfError) as info:
            import_file(FOLDER / OMX, _options(), tip="gripper_right_link", convention=convention)
        message = str(info.value)
        assert "\n" not in message and "mimic joints cannot be imported" in message, message


def test_rh_p12_rn_a_finger_refused_in_one_line():
    """The RH-P12-RN-A's fingers are two serial pairs whose three other joints mimic rh_r1_joint: no loop closes,
    so a finger as the tip is refused in one line, in both conventions, naming the mimic joint on the way."""
    for convention in Convention:
        for tip, joint in (("rh_p12_rn_r2", "rh_r2"), ("rh_p12_rn_l2", "rh_l1")):
            with pytest.raises(UrdfError) as info:
                import_file(FOLDER / OMY_F3M, _options(), tip=tip, convention=convention)
            message = str(info.value)
            assert "\n" not in message, message
            assert f"joint {joint!r} mimics joint 'rh_r1_joint': mimic joints cannot be imported" in message, message


def test_open_manipulator_x_left_finger_with_drop_rest(tmp_path):
    """--drop-rest, as the refusal says: 5 joints to the left finger (a slide last), the right finger's link
    left out and said so; equal to Pinocchio on the shipped xacro's URDF with the right finger deleted (1e-12),
    and not on the whole file (the finger's mass is gone: 2.7e-3 relative), in both conventions."""
    import xml.etree.ElementTree as ET
    text = shipped_xacro(FOLDER / OMX, {}, FOLDER)
    root = ET.fromstring(text)
    root.remove(root.find("joint[@name='gripper_right_joint']"))
    root.remove(root.find("link[@name='gripper_right_link']"))
    without = tmp_path / "omx_without_right_finger.urdf"
    without.write_text(ET.tostring(root, encoding="unicode"))
    whole = tmp_path / "omx.urdf"
    whole.write_text(text)
    for convention in Convention:
        report = import_file(FOLDER / OMX, _options(), tip="gripper_left_link", drop_rest=True, convention=convention)
        assert report.chain.joints[-1] == "gripper_left_joint" and len(report.model.links) == 5, report.text()
        assert report.chain.dropped == ["gripper_right_link"], report.text()
        arm = NumericArm.from_model(report.model)
        worst, pose = compare_with_pinocchio(arm, PinChain(without, report.chain.joints), report.chain.tip, states=30)
        assert worst < 1e-12 and pose < 1e-12, (worst, pose)
        worst, _ = compare_with_pinocchio(arm, PinChain(whole, report.chain.joints), None, states=30)
        assert worst > 1e-4, worst


# (file, base, the hands the refusal offers): two arms from the torso, each hand with two fingers
TWO_ARMS = [(BAXTER, None, ("left_gripper_base_link", "right_gripper_base_link")),
            (PR2, "torso_lift_link", ("l_gripper_palm_link", "r_gripper_palm_link")),
            (TIAGO_PRO, "torso_lift_link", ("gripper_left_base_link", "gripper_right_base_link"))]


@pytest.mark.parametrize("relative,base,hands", TWO_ARMS, ids=[Path(t[0]).stem for t in TWO_ARMS])
def test_two_arms_without_a_tip_offer_each_hand(relative, base, hands, tmp_path):
    """Two arms, each ending in a gripper whose fingers mimic each other: without --tip the import is refused
    offering each arm's hand (where its fingers part, as the one rule picks on one arm), and either offer
    imports, equal to Pinocchio. It offered two finger tips of one hand ("--tip l_gripper_l_finger_tip or
    --tip l_gripper_r_finger_tip"), each of them refused in turn for the finger mimic joints, and appended
    the loop search's own, different, request to name the tip ("(the mimic joints make no closed chain:
    the tree below 'base' holds 2 equally long chains ...: name the tip (...))")."""
    with pytest.raises(UrdfError) as info:
        import_file(erd(relative), base=base)
    message = str(info.value)
    assert "\n" not in message and "closed chain" not in message, message
    assert message.endswith(f"name the tip (--tip {hands[0]} or --tip {hands[1]})"), message
    assert message.count("name the tip") == 1, message
    for hand in hands:
        report = import_file(erd(relative), base=base, tip=hand)
        assert report.chain.tip == hand and len(report.model.links) == 7, report.text()
        exact = PinChain(reference_file(relative, tmp_path, True), report.chain.joints)
        worst, pose = compare_with_pinocchio(NumericArm.from_model(report.model), exact, hand, states=20)
        assert worst < 1e-12 and pose < 1e-12, (worst, pose)


def test_misspelt_tip_is_said_alone_with_the_nearest_names():
    """Baxter's hand is 'right_hand_link' (its 60-link tree holds mimic joints); '--tip right_hand' was
    refused listing the first ten links (base, torso, ...) and "(the mimic joints make no closed chain:
    no mimic or passive joint on the arm ...)", the loop search's reason, which has nothing to do with the
    name. Now the line names the links nearest in spelling and says nothing of loops; MJCF alike (the
    xArm7's connects, tests/mjcf/files/vendor15)."""
    from designer.mjcf import import_mjcf
    from designer.mjcf.source import MjcfError
    with pytest.raises(UrdfError) as info:
        import_file(erd(BAXTER), tip="right_hand")
    message = str(info.value)
    assert "\n" not in message and "closed chain" not in message, message
    assert "no link named 'right_hand' for the tip (the nearest: 'right_hand_link'" in message, message
    assert message.endswith(" links)"), message
    with pytest.raises(MjcfError) as info:
        import_mjcf(Path(__file__).parents[1] / "mjcf" / "files" / "vendor15" / "xarm7.xml", tip="left_fnger")
    message = str(info.value)
    assert "\n" not in message and "closed chain" not in message and "'left_finger'" in message, message
    # no name near: the first links, as before
    with pytest.raises(UrdfError, match=r"no link named 'zz' for the tip \(links: base, torso, .*, \.\.\.\)$"):
        import_file(erd(BAXTER), tip="zz")


XACROS = [(KR210, {}), (KR16, {}), (KR5, {}), (IIWA, {}), (SIA10D, {}), (RX160, {}), (RX160L, {}), (OMY, {}),
          (OMX, {}), (OMY, {"prefix": "left_", "use_sim": "true"}), (OMY_F3M, {})]


@pytest.mark.parametrize("relative,args", XACROS,
                         ids=[f"{Path(x).name}-{'-'.join(a.values()) or 'default'}" for x, a in XACROS])
def test_vendor_xacro_gives_the_urdf_of_the_shipped_xacro(relative, args):
    """KUKA's files name xacro's namespace http://wiki.ros.org/xacro (not www.ros.org); Motoman's macro
    includes its materials from inside the macro body; ROBOTIS' include
    ros2_control and Gazebo macros and $(find) a package (open_manipulator_bringup) of which only the
    package.xml is here: the same URDF text as the shipped xacro (comments aside)."""
    from tests.urdf.test_xacro_safety import _without_comments
    ours = run_xacro(FOLDER / relative, args, package_paths=[str(FOLDER)]).decode()
    assert _without_comments(ours) == _without_comments(shipped_xacro(FOLDER / relative, args, FOLDER))
