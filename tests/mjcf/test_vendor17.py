"""MJCF arms the suite had not seen (tests/mjcf/files/vendor17, sources in its README), each exactly as
shipped, without its meshes: from MuJoCo Menagerie the KUKA LBR iiwa 14 (sphere collision geoms beside
explicit inertials), the Franka Panda (fullinertia, a hand at -pi/4 to seven digits), the Kinova Gen3,
the Franka FR3 (its link0, fixed to the world, weighed only by its meshes), the ARX L5 (a base weighed
by a capsule fitted to a mesh, slide fingers coupled by a joint equality, gravcomp on the fingers); from robosuite
the AUBO i10 and the Rainbow RB3 (a force/torque sensor, a default class no body uses).

Each import equals MuJoCo's compiled model of the file with its mesh lines deleted as text: mj_fullM
(the armature as the drives' N^2 Jm) and qfrc_bias at random states and the tip's pose, to 1e-12, in both
conventions; the import that reads rounded angles as exact against MuJoCo on that copy with those
angles written in full, ``literal`` against it as written. The export is read back by MuJoCo, equal again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.mjcf import import_mjcf
from designer.mjcf.exporter import mjcf_text
from designer.mjcf.source import MjcfError
from designer.model import Convention

from tests.support.exact_angles import exact_mjcf
from tests.support.mjcf_reference import MujocoChain, compare_with_mujoco

FOLDER = Path(__file__).parent / "files" / "vendor17"

# (file, tip asked, tip taken, joints, the file's rounding of angles (M, G, pose relative) or None,
#  mesh files not there, geoms left out, bodies fixed to the world weighed by geoms left out)
CASES = [("iiwa14.xml", None, "link7", 7, None, 13, 15, ()),
         ("iiwa14.xml", "attachment_site", "attachment_site", 7, None, 13, 15, ()),
         ("fr3.xml", None, "fr3_link7", 7, None, 36, 36, ("fr3_link0",)),
         ("fr3.xml", "attachment_site", "attachment_site", 7, None, 36, 36, ("fr3_link0",)),
         # the fingers (slides, gravcomp 1) locked and lumped into link6; or the left finger the tip
         ("arx_l5.xml", None, "link6", 6, 1.4e-5, 10, 18, ("base_link",)),
         ("arx_l5.xml", "link7", "link7", 7, 1.0e-5, 10, 18, ("base_link",)),
         # Panda: the hand's quat "0.9238795 0 0 -0.3826834" read as -pi/4 (3.5e-8 rad off); fingers a joint
         # equality and a tendon couple: locked and lumped into the hand, or the left finger the tip (a slide)
         ("panda.xml", None, "hand", 7, 3.4e-8, 67, 71, ()),
         ("panda.xml", "left_finger", "left_finger", 8, 2.8e-8, 67, 71, ()),
         # Kinova Gen3: joints with no range (continuous), a camera and a pinch site on the bracelet
         ("gen3.xml", None, "bracelet_link", 7, None, 8, 16, ()),
         ("gen3.xml", "pinch_site", "pinch_site", 7, None, 8, 16, ()),
         # robosuite: its eef sites' quats "0.707105 0.707108 0 0" read as quarter turns, which move nothing
         # of the arm (0.0: below 1e-14); mesh geoms of density 0, or beside explicit inertials
         ("aubo_i10_robosuite.xml", None, "right_hand", 6, 0.0, 7, 7, ()),
         ("rb3_robosuite.xml", None, "right_hand", 6, 0.0, 7, 14, ())]


def stripped(name: str, folder: Path, exact: bool) -> Path:
    """The file with every line naming a mesh deleted (as MuJoCo's reference can read it without the
    assets); ``exact``: its angles within 1e-5 rad of a multiple of pi/12 written in full."""
    text = "\n".join(line for line in (FOLDER / name).read_text().splitlines()
                     if "<mesh " not in line and 'mesh="' not in line)
    path = folder / ("exact.xml" if exact else "written.xml")
    path.write_text(exact_mjcf(text) if exact else text)
    return path


@pytest.mark.parametrize("convention", list(Convention), ids=lambda c: c.value)
@pytest.mark.parametrize("name,tip,taken,n,rounded,meshes,geoms,fixed", CASES,
                         ids=[f"{c[0]}{'-' + c[1] if c[1] else ''}" for c in CASES])
def test_menagerie_arm_as_shipped_matches_mujoco(name, tip, taken, n, rounded, meshes, geoms, fixed, convention,
                                                 tmp_path):
    report = import_mjcf(FOLDER / name, tip=tip, convention=convention)
    assert report.chain.tip == taken and len(report.model.links) == n, report.text()
    [line] = [w for w in report.warnings if "mesh file(s) not there" in w]
    assert line.startswith(f"{meshes} mesh file(s) not there") and f": {geoms} geom(s) left out" in line, line
    assert all(f"{body!r}" in line for body in fixed) and ("fixed to the world" in line) == bool(fixed), line
    exact = MujocoChain(stripped(name, tmp_path, True), report.chain.joints, report.chain.dropped)
    worst, pose = compare_with_mujoco(report.model, exact, report.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, report.text())
    assert report.checked is not None and report.checked < 1e-12
    if rounded is None:
        assert report.as_written is None, report.text()
    elif rounded == 0.0:   # angles read as exact that move no frame of the arm
        assert report.as_written is not None and report.as_written < 1e-14, report.text()
    else:   # the report says how far the numbers as written lie from the arm imported
        assert rounded / 3 < report.as_written < rounded * 3, report.text()
    literal = import_mjcf(FOLDER / name, tip=tip, convention=convention, literal=True)
    written = MujocoChain(stripped(name, tmp_path, False), literal.chain.joints, literal.chain.dropped)
    worst, pose = compare_with_mujoco(literal.model, written, literal.chain.tip)
    assert worst < 1e-12 and pose < 1e-12, (worst, pose, literal.text())


@pytest.mark.parametrize("name", ["iiwa14.xml", "fr3.xml", "arx_l5.xml", "rb3_robosuite.xml"])
def test_menagerie_arm_exports_back_to_mujoco(name, tmp_path):
    """The imported arm written as MJCF: MuJoCo reading the export equals MuJoCo on the original (mesh
    lines deleted, angles written in full), and importing the export gives the arm again."""
    for convention in Convention:
        report = import_mjcf(FOLDER / name, convention=convention)
        out = tmp_path / f"{convention.value}.xml"
        out.write_text(mjcf_text(report.model))
        back = import_mjcf(out, convention=convention)
        joints = [link.joint_name for link in back.model.links]
        assert len(joints) == len(report.model.links)
        exported = MujocoChain(out, joints)
        worst, _ = compare_with_mujoco(report.model, exported, None)
        assert worst < 1e-9, (convention, worst)
        original = MujocoChain(stripped(name, tmp_path, True), report.chain.joints, report.chain.dropped)
        worst, _ = compare_with_mujoco(back.model, original, None)
        assert worst < 1e-9, (convention, worst)


def test_fixed_body_weighed_by_missing_meshes(tmp_path):
    """Menagerie's FR3 as shipped: fr3_link0 has no <inertial> and takes its mass from its visual meshes,
    whose files are not there; it hangs from the world by no joint, so its mass weighs on no joint and its
    geoms are left out like the others (the import was refused: "body 'fr3_link0' takes its mass from its
    mesh geom 'link0_0' ..."). The same body below a joint (a slide rail under the arm) still is refused
    in one line naming it and the file."""
    report = import_mjcf(FOLDER / "fr3.xml")
    [line] = [w for w in report.warnings if "not there" in w]
    assert "which give no moving body its mass (those of 'fr3_link0', fixed to the world, weigh on no joint)" in line
    text = (FOLDER / "fr3.xml").read_text()
    rail = tmp_path / "fr3_on_a_rail.xml"
    rail.write_text(text.replace('<body name="base" childclass="fr3">',
                                 '<body name="base" childclass="fr3"><joint name="rail" type="slide" axis="1 0 0"/>'))
    with pytest.raises(MjcfError) as info:
        import_mjcf(rail)
    message = str(info.value)
    assert "\n" not in message and "body 'fr3_link0' takes its mass from its mesh geom 'link0_0'" in message, message
    assert str(tmp_path / "assets" / "link0_0.obj") in message, message


def test_arx_l5_says_what_it_leaves_out():
    """The ARX L5's fingers: MuJoCo compensates their gravity (gravcomp 1) and a joint equality mirrors
    joint8 on joint7; the import says it imports neither, naming the bodies."""
    report = import_mjcf(FOLDER / "arx_l5.xml", tip="link7")
    assert "gravcomp (gravity compensation by MuJoCo) not imported for link7, link8" in report.warnings
    assert any(w.startswith("1 equality constraint(s) (joint) not imported") for w in report.warnings), report.warnings


def test_command_line_import_validate_eval(tmp_path):
    """The FR3 as shipped, as a user would take it: import (the one warning on the command line), validate,
    eval at a state: the bias forces against MuJoCo's qfrc_bias and M against mj_fullM less the armature
    (0.195 and 0.074 in the file, the drives' N^2 Jm in the project)."""
    import json

    from tests.support.cli_lines import designer_command
    project = tmp_path / "fr3.json"
    run = designer_command("import", str(FOLDER / "fr3.xml"), "--out", str(project))
    assert "(those of 'fr3_link0', fixed to the world, weigh on no joint)" in run.stdout + run.stderr
    assert "valid (7 links" in designer_command("validate", str(project)).stdout
    rng = np.random.default_rng(7)
    q, qd = rng.uniform(-np.pi, np.pi, 7), rng.normal(size=7)
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": q.tolist(), "qd": qd.tolist(), "qdd": [0.0] * 7}]}))
    [result] = json.loads(designer_command("eval", str(project), "--states", str(states), "--quiet").stdout)["results"]
    report = import_mjcf(FOLDER / "fr3.xml")
    ref = MujocoChain(stripped("fr3.xml", tmp_path, True), report.chain.joints)
    ref.forward(q, qd)
    bias, M = ref.bias(), ref.M() - np.diag(ref.armature())
    assert np.allclose(ref.armature(), [0.195] * 4 + [0.074] * 3)
    assert np.abs(np.array(result["tau"]) - bias).max() < 1e-10 * np.abs(bias).max()
    assert np.abs(np.array(result["M"]) - M).max() < 1e-10 * np.abs(M).max()


# (Menagerie file, its tip, the xacro it was made from (tests/urdf/files/vendor15), its arguments, the
#  largest relative difference of M and G allowed: the digits MuJoCo wrote)
SAME_ARM = [("gen3.xml", "pinch_site", "kortex_description/robots/gen3.xacro", {}, 1e-6, 1e-12),
            ("fr3.xml", "attachment_site", "franka_description/robots/fr3/fr3.urdf.xacro", {"hand": "false"}, 2e-6,
             2e-6)]


@pytest.mark.parametrize("name,tip,xacro,args,m_tol,g_tol", SAME_ARM, ids=[a[0] for a in SAME_ARM])
def test_menagerie_mjcf_is_the_arm_of_the_vendors_xacro(name, tip, xacro, args, m_tol, g_tol):
    """Menagerie made its Gen3 from Kinova's gen3.xacro and its FR3 from Franka's fr3 URDF (their READMEs:
    the URDF, then MuJoCo's saved MJCF; the Gen3's end effector link made a site, pinch_site); both xacro
    files are in tests/urdf/files/vendor15. Read by the two importers, each pair gives the same arm: the
    tool pose to 1e-12, M and G within the six digits MuJoCo wrote (measured: Gen3 M 9e-8 and G equal,
    the FR3's masses rounded too, M 6.4e-7, G 8.4e-7)."""
    from designer.kinematics import NumericArm
    from designer.numeric.recursive import gravity_torque, mass_matrix
    from designer.urdf.pipeline import FileOptions, import_file
    vendor15 = Path(__file__).parents[1] / "urdf" / "files" / "vendor15"
    urdf = import_file(vendor15 / xacro, FileOptions(xacro_args=args, package_paths=[str(vendor15)]))
    mjcf = import_mjcf(FOLDER / name, tip=tip)
    assert urdf.chain.joints == mjcf.chain.joints and len(mjcf.chain.joints) == 7
    a, b = NumericArm.from_model(urdf.model), NumericArm.from_model(mjcf.model)
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = rng.uniform(-np.pi, np.pi, 7)
        M = mass_matrix(b, q)
        assert np.abs(mass_matrix(a, q) - M).max() < m_tol * np.abs(M).max()
        G = gravity_torque(b, q)
        assert np.abs(gravity_torque(a, q) - G).max() < g_tol * np.abs(G).max()
        assert np.abs(a.tool_pose(q) - b.tool_pose(q)).max() < 1e-12
