"""MJCF export of a closed chain: the tree with the loops as equality constraints (designer/mjcf/loops.py).

Independent side: MuJoCo's own constrained dynamics of the exported file. At random closed states
(the passive joints from the closure, their rates from W) MuJoCo's accelerations of the actuated
joints, with the actuated torques applied, must equal ClosedDynamics.forward to the softness of the
constraints (impedance 0.9999: about 1e-4 of what the loops change); in mj_step the loops stay closed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.mjcf.exporter import mjcf_text
from designer.numeric.closed import ClosedDynamics
from designer.project.io import load_project
from designer.urdf.importer import import_tree
from designer.urdf.source import parse_urdf
from tests.urdf.mimic_urdfs import assert_same_closed_chain, parallelogram_urdf

mujoco = pytest.importorskip("mujoco")
ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def _models():
    for name in ("palletizer_parallelogram", "acma_sr400", "four_bar"):
        yield name, load_project(ROBOTS / f"{name}.json")
    from dataclasses import replace
    four_bar = load_project(ROBOTS / "four_bar.json")   # the same planar loop cut at a ball joint
    yield "four_bar-ball", replace(four_bar, loops=(replace(four_bar.loops[0], joint="S"),))
    for seed in range(3):   # random parallelograms, both conventions, bars from the forearm and the column
        for convention, column in (("modified", False), ("standard", True)):
            text = parallelogram_urdf(seed, from_column=column)
            yield f"random{seed}-{convention}", import_tree(parse_urdf(text.encode()), convention=convention).model


MODELS = dict(_models())


def _addresses(mm, model) -> np.ndarray:
    """MuJoCo's dof of each project joint (MuJoCo numbers them depth first)."""
    names = [mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_JOINT, k) for k in range(mm.njnt)]
    return np.array([mm.jnt_dofadr[names.index(l.joint_name or f"joint{i + 1}")] for i, l in enumerate(model.links)])


@pytest.mark.parametrize("name", list(MODELS))
def test_mujoco_constrained_forward_dynamics_matches_the_closed_chain(name):
    model = MODELS[name]
    mm = mujoco.MjModel.from_xml_string(mjcf_text(model))
    md = mujoco.MjData(mm)
    assert mm.neq == sum({"R": 2, "S": 1, "F": 3}[lp.joint.value] for lp in model.loops)
    addr = _addresses(mm, model)
    closed = ClosedDynamics(model)
    act = closed.closure.act
    rng = np.random.default_rng(7)
    for _ in range(5):
        qa, qda, ta = rng.uniform(-0.5, 0.5, len(act)), rng.uniform(-1, 1, len(act)), rng.uniform(-50, 50, len(act))
        q = closed.positions(qa)
        qd = closed.closure.rates(q, qda)[0]
        md.qpos[addr], md.qvel[addr] = q, qd
        md.qfrc_applied[:] = 0.0
        md.qfrc_applied[addr[act]] = ta
        mujoco.mj_forward(mm, md)
        assert np.abs(md.efc_pos[:md.nefc]).max(initial=0.0) < 1e-12   # the state is closed for MuJoCo too
        want = closed.qdd(qa, qda, ta)
        # the soft constraints' share: what the loops change in the accelerations (MuJoCo's qacc_smooth
        # is the tree's without them); impedance 0.9999 leaves about 1e-4 of it (measured: at most 8.6e-5)
        share = float(np.abs(md.qacc - md.qacc_smooth).max())
        err = float(np.abs(md.qacc[addr[act]] - want).max())
        assert err < 3e-4 * share + 1e-9 * np.abs(want).max(), (err, share)


@pytest.mark.parametrize("name", ["palletizer_parallelogram", "acma_sr400", "four_bar"])
def test_the_loops_stay_closed_in_mujoco_simulation(name):
    model = MODELS[name]
    mm = mujoco.MjModel.from_xml_string(mjcf_text(model))
    md = mujoco.MjData(mm)
    worst, fastest = 0.0, 0.0
    while md.time < 2.0:   # falling under gravity from the nominal pose, MuJoCo's default 2 ms step
        mujoco.mj_step(mm, md)
        rows = md.efc_type[:md.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        worst = max(worst, float(np.abs(md.efc_pos[:md.nefc][rows]).max(initial=0.0)))
        fastest = max(fastest, float(np.abs(md.qvel).max()))
    assert fastest > 0.5            # it moved (the four-bar swings at 16 rad/s)
    assert worst < 1e-3             # m: the soft constraints' drift (measured: 2e-4 for the four-bar)


def test_the_export_says_how_it_closed_the_loops():
    from designer.urdf.exporter import export_notes
    notes = export_notes(mjcf_text(MODELS["palletizer_parallelogram"]))
    assert any("equality" in n and "parallelogram" in n for n in notes)


def test_loops_that_make_no_closed_chain_are_left_out_with_a_warning(tmp_path):
    """A motor on the forearm too: five actuated joints for four degrees of freedom, no closed chain;
    the serial chain comes in and the report says the connect acting on it was left out. Cut off
    before the loop (tip: the column) the connect holds locked bodies: nothing to say."""
    from designer.mjcf.importer import import_mjcf
    path = tmp_path / "p.xml"
    text = mjcf_text(MODELS["palletizer_parallelogram"])
    path.write_text(text.replace('<actuator>', '<actuator>\n    <motor name="extra" joint="joint3" gear="1"/>'))
    report = import_mjcf(path, tip="tool")
    assert report.model.is_serial and "not imported as a loop" in report.text()
    assert any("2 equality constraint(s) (connect) not imported" in w for w in report.warnings)
    path.write_text(text)
    report = import_mjcf(path, tip="column")
    assert report.model.is_serial and not any("equality" in w for w in report.warnings)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_mjcf_export_then_import_gives_the_same_closed_chain(name, convention, tmp_path):
    """The connects come back as the loops: the same M_a and G_a at random actuated poses (the
    four-bar's closure is not linear: Newton's from the nominal pose's branch on both sides)."""
    from designer.mjcf.importer import import_mjcf
    model = MODELS[name]
    if convention == "standard" and name.startswith("random") and name.endswith("modified"):
        pytest.skip("bars beside a wrist need the modified convention")
    path = tmp_path / "m.xml"
    path.write_text(mjcf_text(model))
    # bars from the forearm hang deeper than the wrist and carry the exported tool (the closed-chain
    # views' tool link, the deepest): the arm's end is then named
    tip = "wrist" if name.startswith("random") and name.endswith("modified") else None
    report = import_mjcf(path, convention=convention, tip=tip)
    back = report.model
    assert len(back.loops) == len(model.loops) and "the file's connects" in report.text()
    assert_same_closed_chain(model, back, seed=2, spread=0.4)


def test_a_loop_that_cannot_be_assembled_is_refused_not_written():
    """MuJoCo would take the bodies' places at qpos0 as closed: a cut joint 0.1 m out of the four-bar's plane (no turn
    of its joints closes that) is refused."""
    from dataclasses import replace
    from designer.mjcf.source import MjcfError
    from designer.model.extras import Pose
    model = MODELS["four_bar"]
    off_plane = replace(model, loops=(replace(model.loops[0], frame_i=Pose((0, 0, 0.1), (0, 0, 0))),))
    with pytest.raises(MjcfError, match="cannot be assembled.*100 mm apart at best"):
        mjcf_text(off_plane)


def test_an_assembled_loop_is_written_at_its_assembled_pose():
    """The four-bar's cut joint 0.1 m along the rocker (its nominal pose 0.1 m open; refused before): written with the
    passive joints' zero at the assembled pose (a comment says by how much), MuJoCo's loops are closed at qpos0 and
    at closed states (qpos = ours minus the reference values), and its constrained accelerations are
    ClosedDynamics' of the project as in the test above."""
    from dataclasses import replace
    from designer.model.extras import Pose
    model = MODELS["four_bar"]
    moved = replace(model, loops=(replace(model.loops[0], frame_i=Pose((0.1, 0, 0), (0, 0, 0))),))
    text = mjcf_text(moved)
    assert "not closed at the project's nominal pose (every joint 0): loops[1] (ground pin)" in text
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    assert np.abs(md.efc_pos[:md.nefc]).max(initial=0.0) < 1e-12   # closed at qpos0
    addr = _addresses(mm, moved)
    closed = ClosedDynamics(moved)
    act, ref = closed.closure.act, closed.closure.reference
    assert np.abs(ref).max() > 0.05
    rng = np.random.default_rng(8)
    for _ in range(4):
        qa, qda, ta = rng.uniform(-0.5, 0.5, len(act)), rng.uniform(-1, 1, len(act)), rng.uniform(-5, 5, len(act))
        q = closed.positions(qa)
        md.qpos[addr], md.qvel[addr] = q - ref, closed.closure.rates(q, qda)[0]
        md.qfrc_applied[:] = 0.0
        md.qfrc_applied[addr[act]] = ta
        mujoco.mj_forward(mm, md)
        assert np.abs(md.efc_pos[:md.nefc]).max(initial=0.0) < 1e-12
        want = closed.qdd(qa, qda, ta)
        share = float(np.abs(md.qacc - md.qacc_smooth).max())
        err = float(np.abs(md.qacc[addr[act]] - want).max())
        assert err < 3e-4 * share + 1e-9 * np.abs(want).max(), (err, share)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_an_assembled_loop_exported_and_imported_is_the_same_closed_chain(convention, tmp_path):
    """The four-bar whose cut joint is 0.1 m along the rocker (its nominal pose 0.1 m open), written at its assembled
    pose and read back: the file's passive joints have other zeros, its nominal pose closes (nothing to assemble on
    reading), and the mechanism is the same: M_a and G_a at random actuated poses equal the project's."""
    from dataclasses import replace
    from designer.kinematics.closure import assemble
    from designer.kinematics.tree import TreeArm
    from designer.mjcf.importer import import_mjcf
    from designer.model.extras import Pose
    model = MODELS["four_bar"]
    moved = replace(model, loops=(replace(model.loops[0], frame_i=Pose((0.1, 0, 0), (0, 0, 0))),))
    assert assemble(TreeArm.from_model(moved)).assembled
    path = tmp_path / "moved.xml"
    path.write_text(mjcf_text(moved))
    back = import_mjcf(path, convention=convention).model
    assert len(back.loops) == 1 and not assemble(TreeArm.from_model(back)).assembled
    assert_same_closed_chain(moved, back, seed=5, spread=0.4)


def test_loops_that_share_a_name_are_written_as_equalities_mujoco_reads(tmp_path):
    """A project's loop names are labels (two loops may both be "cut R"); MuJoCo refuses a file whose equalities share
    a name, so each connect gets a name of its own. The file reads back as the same closed chain."""
    from dataclasses import replace
    from designer.mjcf.importer import import_mjcf
    model = _random_closed(10, "RR", "modified")
    model = replace(model, loops=tuple(replace(loop, name="cut R") for loop in model.loops))
    text = mjcf_text(model)
    mm = mujoco.MjModel.from_xml_string(text)
    names = [mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_EQUALITY, e) for e in range(mm.neq)]
    assert len(set(names)) == len(names) == 4 and all("cut R" in name for name in names), names
    path = tmp_path / "two.xml"
    path.write_text(text)
    back = import_mjcf(path, convention="modified").model
    assert len(back.loops) == 2
    assert_same_closed_chain(model, back, seed=3, spread=0.3)


def _random_closed(seed: int, joints: str, convention: str):
    from dataclasses import replace
    from designer.model import Convention
    from tests.support.random_models import Shapes, random_project
    model = random_project(np.random.default_rng(seed), Shapes(joints=joints, loops=("R", "R"), planar=True,
                                                               convention=Convention(convention)))
    return replace(model, links=tuple(replace(link, joint_name=f"joint{i + 1}") for i, link in enumerate(model.links)))


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_a_loop_through_a_branch_on_the_base_comes_back_from_mjcf(convention, tmp_path):
    """A random closed chain one of whose loops runs from the base through a branch of three joints back to the base
    (links 6 to 8 on the base, the cut joint between link 8 and the base): written to MJCF and read back, that branch
    is part of the mechanism (it was fixed to the base, and its loop refused as closing the base on itself), and
    the closed chain is the same (M_a, G_a)."""
    from designer.mjcf.importer import import_mjcf
    model = _random_closed(11, "RR", convention)
    assert model.links[5].parent == 0 and (model.loops[1].link_i, model.loops[1].link_j) == (8, 0)
    path = tmp_path / "base_branch.xml"
    path.write_text(mjcf_text(model))
    back = import_mjcf(path, convention=convention).model
    assert len(back.links) == len(model.links) and len(back.loops) == 2
    assert_same_closed_chain(model, back, seed=3, spread=0.3)


def test_two_equally_long_chains_ask_for_the_tip_once(tmp_path):
    """Two loops of three joints each on the base: the import asks which chain ends at the tool, in one line that says
    it once; with the tip named the loops come back."""
    from designer.mjcf.importer import import_mjcf
    from designer.mjcf.source import MjcfError
    model = _random_closed(8, "R", "modified")
    path = tmp_path / "two_chains.xml"
    path.write_text(mjcf_text(model))
    with pytest.raises(MjcfError) as caught:
        import_mjcf(path, convention="modified")
    text = str(caught.value)
    assert text.count("equally long chains") == 1 and "--tip link4" in text and "\n" not in text, text
    assert len(import_mjcf(path, convention="modified", tip="link4").model.loops) == 2
