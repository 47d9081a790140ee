"""URDF mimic joints describing a parallelogram import as a closed chain (designer/urdf/closed_import.py).

Independent side: Pinocchio reads the same hand-written file with its own mimic joints
(buildModelFromXML(mimic=True): the reduced model in the independent joints) and its M and G must
equal the imported closed chain's M_a, G_a (designer/numeric/closed.py) at random poses; the loop
closes there (residual ~0) and the closure reproduces the mimic relations.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.model.mechanism import model_tool_link
from designer.numeric.closed import ClosedDynamics
from designer.project.io import dumps_project, load_project, loads_project
from designer.urdf.exporter import urdf_document
from designer.urdf.importer import import_tree
from designer.urdf.source import UrdfError, parse_urdf
from tests.support.exact_angles import exact_urdf
from tests.urdf.mimic_urdfs import GRIPPER, assert_same_closed_chain, parallelogram_urdf

pin = pytest.importorskip("pinocchio")
ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def actuated_names(model, closed):
    return [model.links[i].joint_name or f"joint{i + 1}" for i in closed.closure.act]


def compare_with_pinocchio(text: str, model, seed: int = 0, tol: float = 1e-9) -> None:
    pm = pin.buildModelFromXML(text, mimic=True)
    pd = pm.createData()
    primaries = [n for n, j in zip(pm.names[1:], pm.joints[1:]) if j.nv == 1]
    closed = ClosedDynamics(model)
    names = actuated_names(model, closed)
    assert sorted(names) == sorted(primaries)
    idx = [pm.joints[pm.getJointId(n)].idx_v for n in names]
    rng = np.random.default_rng(seed)
    for _ in range(4):
        qa = rng.uniform(-0.8, 0.8, len(names))
        q = pin.neutral(pm)
        q[idx] = qa
        M = pin.crba(pm, pd, q)
        M = np.triu(M) + np.triu(M, 1).T
        G = pin.computeGeneralizedGravity(pm, pd, q)
        scale = np.abs(M).max()
        np.testing.assert_allclose(closed.M(qa), M[np.ix_(idx, idx)], atol=tol * scale)
        np.testing.assert_allclose(closed.G(qa), G[idx], atol=tol * max(1.0, np.abs(G).max()))
        assert closed.closure.residual(closed.positions(qa)) < 1e-10   # m: the linear closure's own bound


# (seed, wrist, convention, bars from the column): the forearm's bars need the modified convention
# when a wrist follows (a standard frame's z serves one axis); the column's work in both
CASES = [(seed, wrist, conv, column) for seed in range(6) for wrist, conv, column in
         ((True, "modified", False), (True, "standard", True), (False, "standard", True), (True, "modified", True),
          (False, "modified", True))]
#: the file's mimic relations: passive joint -> {independent joint: multiplier}
RELATIONS = {False: {"jr": {"j3": -1.0}, "jc": {"j3": 1.0}}, True: {"jc": {"j2": 1.0, "j3": 1.0}, "jr": {"j3": -1.0}}}


@pytest.mark.parametrize("seed,wrist,convention,column", CASES)
def test_random_parallelogram_imports_as_a_closed_chain(seed, wrist, convention, column):
    text = parallelogram_urdf(seed, wrist=wrist, offset=0.3 * (seed % 2), digits=3 if seed >= 4 else None,
                              from_column=column)
    report = import_tree(parse_urdf(text.encode()), convention=convention)
    model = report.model
    assert len(model.loops) == 1
    passive = [l.joint_name for l in model.links if not l.actuated]
    assert sorted(passive) == ["jc", "jr"]
    closed = ClosedDynamics(model)
    linear = closed.closure.linear
    assert linear is not None
    names = [model.links[i].joint_name for i in closed.closure.act]
    for row, p in zip(linear.A, closed.closure.pas):
        want = np.zeros(len(names))
        for joint, m in RELATIONS[column][model.links[p].joint_name].items():
            want[names.index(joint)] = m
        np.testing.assert_allclose(row, want, atol=1e-12)
    assert "reproduces the mimic relations" in report.text()
    # the tool on the tip, as the file has it, in every case: bars hanging from the forearm's end deeper than
    # the wrist close onto a link they hang from, so the closed-chain views leave them out (no warning)
    assert not any("deepest link" in w for w in report.warnings)
    assert model_tool_link(model) == len(model.links) - 1
    compare_with_pinocchio(text, model, seed)
    # and the project it makes opens again as the same mechanism
    again = loads_project(dumps_project(model))
    assert again.loops == model.loops


@pytest.mark.parametrize("seed", range(3))
def test_rounded_quarter_turns_are_read_as_exact(seed):
    """A bar's frame turned by 1.5708 for pi/2: read as pi/2 where the file gives it (said in the report,
    with the distance to the file as written), so its axis is parallel and the loop closes exactly;
    Pinocchio's reading of the file with that angle written in full agrees."""
    text = parallelogram_urdf(seed, quarter=True)
    report = import_tree(parse_urdf(text.encode()), convention="modified")
    assert len(report.model.loops) == 1 and "made parallel" not in report.text() and report.moved < 1e-12
    [line] = [n for n in report.notes if "read as it" in n]
    assert "3.7e-06 rad" in line and "--literal" in line
    compare_with_pinocchio(exact_urdf(text), report.model, seed, tol=1e-9)


def test_a_branch_off_the_standard_frames_axis_is_refused_with_the_way_out():
    text = parallelogram_urdf(0, wrist=True)
    with pytest.raises(UrdfError, match="--convention modified"):
        import_tree(parse_urdf(text.encode()), convention="standard")


def test_a_mimic_offset_is_said_and_taken_into_the_passive_joint():
    report = import_tree(parse_urdf(parallelogram_urdf(1, offset=0.3).encode()), convention="modified")
    assert "+ 0.3 (its mimic joints) made passive; its project value is the file's minus 0.3" in report.text()


def test_gripper_mimic_is_no_loop_and_imports_as_before():
    tree = parse_urdf(GRIPPER.encode())
    # the arm ends at the hand (where the fingers part), both fingers locked at zero (consistent:
    # 0 = 1 * 0) as before; the report says why the mimic made no loop
    report = import_tree(tree)
    assert report.model.is_serial and len(report.model.links) == 2
    assert set(report.chain.locked) == {"finger1", "finger2"}
    assert "not imported as a loop: no pin found" in report.text()
    # a finger mimicking a chain joint cannot be locked: refused as before, saying why it is no loop
    with pytest.raises(UrdfError, match="cannot be locked.*make no closed chain"):
        import_tree(tree, tip="left")
    dropped = import_tree(tree, tip="left", drop_rest=True)   # the other finger left out
    assert dropped.model.is_serial and "right" in dropped.chain.dropped


@pytest.mark.parametrize("name", ["palletizer_parallelogram", "acma_sr400"])
@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_export_then_import_gives_the_same_closed_chain(name, convention):
    model = load_project(ROBOTS / f"{name}.json")
    back = import_tree(parse_urdf(urdf_document(model)[0].encode()), convention=convention).model
    assert len(back.loops) == len(model.loops)
    assert_same_closed_chain(model, back, seed=5, poses=5, tool=True)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_random_closed_chain_round_trip(seed, convention):
    """A random parallelogram imported, exported and imported again keeps M_a and G_a."""
    first = import_tree(parse_urdf(parallelogram_urdf(seed, from_column=True).encode()), convention=convention).model
    text, notes = urdf_document(first)
    assert any("dropped" in n for n in notes) and text.count("<mimic") == 3   # jc: two coaxial mimics
    back = import_tree(parse_urdf(text.encode()), convention=convention).model
    assert [l.joint_name for l in back.links] == [l.joint_name for l in first.links]
    assert_same_closed_chain(first, back, seed=seed, poses=3, spread=0.8)


BAD_MIMICS = {   # what each does to the crank's mimic of j3 -> the reason the report or the refusal gives
    "cycle": ('<mimic joint="jr" multiplier="1"/>', "cycle"),
    "missing": ('<mimic joint="nope" multiplier="1"/>', "'nope' is followed by a mimic joint"),
    "zero": ('<mimic joint="j3" multiplier="0"/>', "make no closed chain"),
    "wrong multiplier": ('<mimic joint="j3" multiplier="2"/>', "make no closed chain"),
    "another master": ('<mimic joint="j4" multiplier="1"/>', "make no closed chain"),
    "huge": ('<mimic joint="j3" multiplier="1e8" offset="1e8"/>', "make no closed chain"),
}


@pytest.mark.parametrize("name", list(BAD_MIMICS))
@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_mimics_that_describe_no_loop_are_refused_or_imported_as_before_saying_why(name, convention):
    mimic, why = BAD_MIMICS[name]
    text = parallelogram_urdf(0).replace('<mimic joint="j3" multiplier="1"/>', mimic)
    if name == "cycle":
        text = text.replace('<mimic joint="j3" multiplier="-1" offset="0.0"/>', '<mimic joint="jc" multiplier="-1"/>')
    try:
        report = import_tree(parse_urdf(text.encode()), convention=convention)
    except UrdfError as exc:
        assert why in str(exc) and "\n" not in str(exc)
    else:   # both bar joints off the chain follow each other only: locked at zero as before
        assert not report.model.loops and any(why in n for n in report.notes)
