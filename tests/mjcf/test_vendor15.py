"""MJCF arms the suite had not seen (tests/mjcf/files/vendor15, sources in its README): MuJoCo
Menagerie's UFACTORY Lite 6 and xArm7 (a gripper closed by connects), Unitree Z1, AgileX PiPER (slide
fingers, joint springs), SO-ARM100, the Low-Cost Robot Arm (meshes left out, every inertial as
written); Gymnasium's Reacher and Pusher (masses from primitive geoms, a target on slides).

Each import equals MuJoCo's compiled model of the file: mj_fullM (with the armature as the drives'
N^2 Jm) and qfrc_bias at random states and the tip's pose, to 1e-12; the import that reads rounded
angles as exact against MuJoCo on the file with those angles written in full, ``literal`` against the
file as written, or refused in one line where a DH table cannot hold the file as written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from designer.mjcf import import_mjcf
from designer.mjcf.source import MjcfError
from designer.model import Convention

from tests.support.cli_lines import designer_command, energy_kept
from tests.support.exact_angles import exact_mjcf
from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco

ROOT = Path(__file__).resolve().parents[2]
FOLDER = Path(__file__).parent / "files" / "vendor15"

# (file, tip asked, tip taken, joints, the file's rounding of angles (M, G, pose relative) or None)
CASES = [("lite6.xml", None, "link6", 6, 9.8e-6), ("lite6.xml", "attachment_site", "attachment_site", 6, 9.8e-6),
         ("z1.xml", None, "link06", 6, None),
         ("piper.xml", None, "link6", 6, 1.5e-5), ("piper.xml", "link7", "link7", 7, 1.6e-5),
         ("so_arm100.xml", None, "Moving_Jaw", 6, 1.1e-5), ("so_arm100.xml", "Fixed_Jaw", "Fixed_Jaw", 5, 1.2e-5),
         ("low_cost_robot_arm.xml", None, "gripper_moving_finger", 6, None),
         ("xarm7.xml", None, "xarm_gripper_base_link", 7, None), ("xarm7.xml", "link_tcp", "link_tcp", 7, None),
         ("xarm7.xml", "left_finger", "left_finger", 9, None),
         # Gymnasium: masses from capsules and spheres (inertiafromgeom), a target on slides beside the arm
         ("reacher.xml", "fingertip", "fingertip", 2, None), ("pusher_v5.xml", None, "tips_arm", 7, None),
         # Menagerie's scene.xml: the arm by <include>, a floor, lights and textures beside it
         ("scene_lite6.xml", None, "link6", 6, 9.8e-6)]
# --literal refused: the Lite 6 writes link3's quat to six digits, leaving joints 2 and 3 7.3e-6 rad from
# parallel, their common normal 2.7e4 m away
LITERAL_REFUSED = {"lite6.xml": "joints 'joint2' and 'joint3': axes 7.3e-06 rad from parallel",
                   "scene_lite6.xml": "joints 'joint2' and 'joint3': axes 7.3e-06 rad from parallel"}


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("name,tip,taken,n,rounded", CASES,
                         ids=[f"{c[0]}{'-' + c[1] if c[1] else ''}" for c in CASES])
def test_vendor_mjcf_matches_mujoco(name, tip, taken, n, rounded, convention, tmp_path):
    report = import_mjcf(FOLDER / name, tip=tip, convention=convention)
    assert report.chain.tip == taken and len(report.model.links) == n, report.text()
    exact = tmp_path / "exact.xml"
    exact.write_text(exact_mjcf((FOLDER / name).read_text()))
    for included in re.findall(r'<include file="([^"]+)"', exact.read_text()):   # the scene's arm, likewise
        (tmp_path / included).write_text(exact_mjcf((FOLDER / included).read_text()))
    worst, pose = compare_with_mujoco(report.model, MujocoChain(exact, report.chain.joints, report.chain.dropped),
                                      report.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())
    assert report.checked is not None and report.checked < 1e-12
    if rounded is None:
        assert report.as_written is None, report.text()
    else:   # the report says how far the numbers as written lie from the arm imported
        assert rounded / 3 < report.as_written < rounded * 3, report.text()
    if name in LITERAL_REFUSED:
        with pytest.raises(MjcfError) as info:
            import_mjcf(FOLDER / name, tip=tip, convention=convention, literal=True)
        assert LITERAL_REFUSED[name] in str(info.value) and "\n" not in str(info.value), str(info.value)
        return
    literal = import_mjcf(FOLDER / name, tip=tip, convention=convention, literal=True)
    ref = MujocoChain(FOLDER / name, literal.chain.joints, literal.chain.dropped)
    worst, pose = compare_with_mujoco(literal.model, ref, literal.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, literal.text())


def test_menagerie_file_without_its_assets_folder(tmp_path):
    """The Lite 6 exactly as Menagerie ships it, without its assets/ folder (as one copies a model
    file): its 14 mesh geoms give no body mass (every body has an <inertial>), so they are left out with
    one warning, and the import equals MuJoCo compiling the copy whose mesh geoms were taken out by
    hand (lite6.xml). It was refused ("MuJoCo cannot read it: Error opening file 'assets/visual/
    link_base.stl'"). A mesh that does give a body its mass is still refused, naming body and file."""
    report = import_mjcf(FOLDER / "lite6_with_meshes.xml")
    [line] = [w for w in report.warnings if "mesh file(s) not there" in w]
    assert line.startswith("14 mesh file(s) not there") and ": 14 geom(s) left out" in line, line
    exact = tmp_path / "exact.xml"
    exact.write_text(exact_mjcf((FOLDER / "lite6.xml").read_text()))
    worst, pose = compare_with_mujoco(report.model, MujocoChain(exact, report.chain.joints), report.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose)
    text = (FOLDER / "lite6_with_meshes.xml").read_text()
    # a texture file not there either: a material drawn in its colour, the dynamics unchanged
    textured = tmp_path / "textured.xml"
    textured.write_text(text.replace('<material name="white" rgba="1 1 1 1"/>',
                                     '<texture name="wood" type="2d" file="wood.png"/>'
                                     '<material name="white" rgba="1 1 1 1" texture="wood"/>'))
    report = import_mjcf(textured)
    [line] = [w for w in report.warnings if "not there" in w]
    assert line.startswith("14 mesh file(s) and 1 texture file(s) not there") and "textures left out" in line, line
    worst, pose = compare_with_mujoco(report.model, MujocoChain(exact, report.chain.joints), report.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose)
    # link3 without its <inertial>: MuJoCo would take its mass from the (missing) mesh
    start = text.index("<inertial", text.index('<body name="link3"'))
    no_inertial = tmp_path / "no_inertial.xml"
    no_inertial.write_text(text[:start] + text[text.index("/>", start) + 2:])
    # the compiler told to take every inertia from the geoms: link_base, fixed to the world, weighs on no
    # joint (its geoms left out, tests/mjcf/test_vendor17.py); link1, the first body a joint moves, is refused
    from_geoms = tmp_path / "from_geoms.xml"
    from_geoms.write_text(text.replace('autolimits="true"', 'autolimits="true" inertiafromgeom="true"'))
    for path, body, mesh in ((no_inertial, "link3", "visual/link3.stl"),
                             (from_geoms, "link1", "visual/link1.stl")):
        with pytest.raises(MjcfError) as info:
            import_mjcf(path)
        message = str(info.value)
        assert "\n" not in message and f"body {body!r} takes its mass from its mesh geom" in message, message
        assert str(tmp_path / "assets" / mesh) in message and "give the body an <inertial>" in message, message


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("tip", [None, "attachment_site"])
def test_ur10e_as_shipped_without_assets(tip, convention, tmp_path):
    """Menagerie's UR10e exactly as shipped (20 .obj meshes in assets/, not here; capsule collision
    geoms of density 1000 beside explicit inertials; a light aimed at a body): equal to MuJoCo on the
    copy whose mesh lines are deleted as text, to 1e-12, as written and with --literal."""
    text = (FOLDER / "ur10e.xml").read_text()
    stripped = tmp_path / "stripped.xml"
    stripped.write_text("\n".join(line for line in text.splitlines() if "<mesh " not in line and 'mesh="' not in line))
    for literal in (False, True):
        report = import_mjcf(FOLDER / "ur10e.xml", tip=tip, convention=convention, literal=literal)
        assert len(report.model.links) == 6 and report.as_written is None
        assert any(w.startswith("20 mesh file(s) not there") for w in report.warnings), report.warnings
        worst, pose = compare_with_mujoco(report.model, MujocoChain(stripped, report.chain.joints), report.chain.tip)
        assert worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())


def test_reacher_without_a_tip_is_refused_naming_the_ends():
    """Gymnasium's Reacher: its arm and its target (two slides) are equally long chains from the world;
    the refusal names both ends and the option that picks one."""
    with pytest.raises(MjcfError) as info:
        import_mjcf(FOLDER / "reacher.xml")
    message = str(info.value)
    assert "\n" not in message and "'fingertip', 'target'" in message and "--tip fingertip or --tip target" in message


def connects_leave_free(held=()) -> list[str]:
    """The xArm7 gripper's joints that MuJoCo's constraint Jacobian of the file's connects (efc_J rows of the
    connect equalities, at the keyframe-free qpos0) leaves free to move with the arm's joints and ``held`` fixed:
    those with a part in its null space over the other gripper joints."""
    import mujoco
    m = mujoco.MjModel.from_xml_path(str(FOLDER / "xarm7.xml"))
    m.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    rows = [r for r in range(d.nefc) if d.efc_type[r] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
            and m.eq_type[d.efc_id[r]] == mujoco.mjtEq.mjEQ_CONNECT]
    names = [m.joint(j).name for j in range(m.njnt)]
    gripper = [j for j, name in enumerate(names) if not name.startswith("joint") and name not in held]
    J = d.efc_J.reshape(d.nefc, m.nv)[np.ix_(rows, [m.jnt_dofadr[j] for j in gripper])]
    _, s, Vt = np.linalg.svd(J)
    null = Vt[int(np.sum(s > 1e-9 * s[0])):]
    return [names[j] for j, col in zip(gripper, null.T) if np.abs(col).max(initial=0.0) > 1e-6]


def test_piper_springs_and_xarm7_connects_are_named():
    """What the import leaves out it says, once per joint or constraint: PiPER's joint springs
    (stiffness 1), the xArm7 gripper's connects (two four-bars whose drivers a tendon and a joint equality
    couple: the joints the note names free are those MuJoCo's connect rows leave free)."""
    piper = import_mjcf(FOLDER / "piper.xml")
    springs = [w for w in piper.warnings if "stiffness 1 (a spring to springref) not imported" in w]
    assert [w.split("'")[1] for w in springs] == [f"joint{k}" for k in range(1, 7)], piper.warnings
    # the gripper's six joints: the connects close two four-bars, the drivers follow a tendon and a joint equality
    free = connects_leave_free()
    assert len(free) == 6
    for convention in Convention:
        xarm = import_mjcf(FOLDER / "xarm7.xml", tip="left_finger", convention=convention)
        [note] = [n for n in xarm.notes if n.startswith("connects (equality constraints) not imported as a loop")]
        named = note.split("leave joint(s) ")[1].split(" free to move")[0]
        assert sorted(x.strip("'") for x in named.split(", ")) == sorted(free), note
        # the same in both conventions: the modified one holds the branches, the couplings stop both
        assert "the 2 loop(s)" in note and "--convention" not in note and "(--tip xarm_gripper_base_link)" in note
        assert any("2 equality constraint(s) (connect, joint) not imported" in w for w in xarm.warnings)


def test_command_line_import_validate_eval_simulate(tmp_path):
    """The Low-Cost Robot Arm as a user would take it: import, validate, info, eval at a state (the
    bias forces against MuJoCo's qfrc_bias, M against mj_fullM less the armature), a short simulation
    keeping its energy."""
    name = "low_cost_robot_arm.xml"
    project = tmp_path / "arm.json"

    designer_command("import", str(FOLDER / name), "--out", str(project))
    assert "valid (6 links" in designer_command("validate", str(project)).stdout
    info = designer_command("info", str(project)).stdout
    assert "6 links" in info and "gripper_moving_finger" in info, info
    rng = np.random.default_rng(4)
    q, qd = rng.uniform(-np.pi, np.pi, 6), rng.normal(size=6)
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": q.tolist(), "qd": qd.tolist(), "qdd": [0.0] * 6}]}))
    [result] = json.loads(designer_command("eval", str(project), "--states", str(states), "--quiet").stdout)["results"]
    report = import_mjcf(FOLDER / name)
    ref = MujocoChain(FOLDER / name, report.chain.joints)
    ref.forward(q, qd)
    bias, M = ref.bias(), ref.M() - np.diag(ref.armature())
    assert np.abs(np.array(result["tau"]) - bias).max() < 1e-10 * np.abs(bias).max()
    assert np.abs(np.array(result["M"]) - M).max() < 1e-10 * np.abs(M).max()
    run = designer_command("simulate", str(project), "--q0", *["0.3"] * 6, "--t", "0.2", "--dt", "0.05",
              "--out", str(tmp_path / "sim.csv"))
    energy_kept(run)


# Rounded files: every number to 3 or 4 significant digits (tests/support/rounding.py). The Lite 6's
# quaternion "-2.6e-06 -0.707 -0.707 -2.6e-06" still lies within 1e-5 rad of a quarter turn: read as it,
# and --literal refused as for the original; the SO-ARM100's euler "1.57 0 0" (8e-4 rad off) is kept.
ROUNDED = [("lite6.xml", 3, 7.3e-6), ("lite6.xml", 4, 7.3e-6), ("so_arm100.xml", 3, None), ("so_arm100.xml", 4, None),
           ("piper.xml", 3, 4e-13), ("piper.xml", 4, 4e-13)]


@pytest.mark.parametrize("name,digits,as_written", ROUNDED, ids=[f"{r[0]}-{r[1]}" for r in ROUNDED])
def test_rounded_vendor_mjcf(name, digits, as_written, tmp_path):
    """The file rounded to ``digits`` significant digits imports; equals MuJoCo on the rounded file
    (with its angles within 1e-5 rad of a multiple of pi/12 written in full; ``literal`` as written)
    to 1e-12, and lies within the rounding's reach of MuJoCo on the original."""
    from tests.support.rounding import rounded_files
    rounded, exact, original = rounded_files((FOLDER / name).read_text(), digits, exact_mjcf, tmp_path, ".xml")
    report = import_mjcf(rounded)
    worst, pose = compare_with_mujoco(report.model, MujocoChain(exact, report.chain.joints, report.chain.dropped),
                                      report.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())
    if as_written is None:
        assert report.as_written is None, report.text()
    else:
        assert as_written / 3 < report.as_written < as_written * 3, report.text()
    if name in LITERAL_REFUSED:
        with pytest.raises(MjcfError) as info:
            import_mjcf(rounded, literal=True)
        assert "joints 'joint2' and 'joint3'" in str(info.value) and "\n" not in str(info.value)
    else:
        literal = import_mjcf(rounded, literal=True)
        worst, pose = compare_with_mujoco(literal.model, MujocoChain(rounded, literal.chain.joints,
                                                                     literal.chain.dropped), literal.chain.tip)
        assert worst < 1e-12 and pose < 1e-12, (worst, pose, literal.text())
    # every number moved by up to 5e-3 (3 digits) or 5e-4 (4): the dynamics by about as much
    worst, pose = compare_with_mujoco(report.model, MujocoChain(original, report.chain.joints, report.chain.dropped),
                                      report.chain.tip)
    reach = 4 * 10.0 ** (1 - digits)
    assert 1e-10 < worst < reach and pose < reach, (worst, pose)


def test_rounded_too_far_is_refused_naming_the_body(tmp_path):
    """Z1 rounded to one significant digit: link03's principal moments break the triangle inequality,
    which MuJoCo refuses; the one line keeps where MuJoCo says it is (the body and its line), which the
    import used to cut off with MuJoCo's second line."""
    from tests.support.rounding import significant
    path = tmp_path / "z1.xml"
    path.write_text(significant((FOLDER / "z1.xml").read_text(), 1))
    with pytest.raises(MjcfError) as info:
        import_mjcf(path)
    message = str(info.value)
    assert "\n" not in message and "inertia must satisfy A + B >= C" in message, message
    assert "(Element name 'link03', id 4, line 24)" in message, message
