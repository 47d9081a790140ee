"""Random planar closed chains (tests/support/random_models: revolute, ball and weld cut joints, both conventions)
written with their in-plane numbers rounded to 3 to 6 significant digits, as a hand-copied file has them: the
loops are then open by the rounding at the nominal pose (every joint 0), within :data:`NOMINAL_GAP`.

Each must open with no error, its reference pose closed by Pinocchio's frames, and its dynamics there and at a
closable state nearby those of Pinocchio's constrained dynamics of the model as read. Before, the mobility and the
passive joints' rank were taken at the nominal pose, which does not close: "the mechanism has 3 degree(s) of freedom
... but 4 actuated joint(s)" for every case here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics.closure import mechanism_problems
from designer.kinematics.tree import TreeArm
from designer.numeric.closed import ClosedDynamics
from tests.support.closed_reference import (PinMechanism, closable_state, loop_conditions, pin_actuated_terms)
from designer.model import Convention
from designer.project import load_project, save_project
from tests.support.random_models import Shapes, random_project
from tests.support.rounding import rounded_planar_loop, significant_numbers

pytest.importorskip("pinocchio")


# (seed, cut joint, digits): each refused before with a mobility one short of the actuated joints
CASES = [(101, "R", 4), (27, "R", 3), (28, "S", 4), (22, "S", 6), (23, "F", 5), (38, "F", 4)]


@pytest.mark.parametrize(("seed", "cut", "digits"), CASES, ids=[f"{s}-{c}-{d}" for s, c, d in CASES])
def test_a_rounded_planar_loop_opens_and_has_pinocchios_dynamics(tmp_path, seed, cut, digits):
    model, _ = rounded_planar_loop(tmp_path, seed, cut, digits)
    tree = TreeArm.from_model(model)
    assert [p for p in mechanism_problems(tree) if p.severity.name == "ERROR"] == []
    cd = ClosedDynamics(model)
    home = cd.positions(np.zeros(cd.n))
    assert np.abs(loop_conditions(model, home)).max() < 1e-10   # Pinocchio's frames: the reference pose closes
    assert np.any(home != 0)   # the rounding left the nominal pose open: the passive joints moved
    ref = PinMechanism(model, exact_cuts=True)
    rng = np.random.default_rng(seed)
    for qa, q in ((np.zeros(cd.n), home), closable_state(rng, model, cd, 0.2)):
        qd_a = rng.uniform(-1, 1, cd.n)
        M, G, h = pin_actuated_terms(ref, cd, q, qd_a)
        for ours, theirs in ((cd.M(qa), M), (cd.G(qa), G), (cd.h(qa, qd_a), h)):
            assert np.abs(ours - theirs).max() < 1e-7 * max(1.0, float(np.abs(theirs).max()))


def test_validate_and_eval_open_a_rounded_planar_loop(tmp_path, capsys):
    """validate exits 0 with no word of the loops (open by a rounding: nothing to warn of); eval's torques at the
    home pose are Pinocchio's constrained dynamics' (tau_a = M_a qdd_a + h_a + G_a at the tree pose eval gives)."""
    model, path = rounded_planar_loop(tmp_path, 101, "R", 4)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and "loops" not in out
    n = sum(link.actuated for link in model.links)
    rng = np.random.default_rng(1)
    state = {"q": [0.0] * n, "qd": rng.uniform(-1, 1, n).tolist(), "qdd": rng.uniform(-1, 1, n).tolist()}
    (tmp_path / "states.json").write_text(json.dumps({"states": [state]}))
    assert main(["eval", str(path), "--states", str(tmp_path / "states.json")]) == 0, capsys.readouterr().err
    result = json.loads(capsys.readouterr().out)["results"][0]
    cd = ClosedDynamics(model)
    M, G, h = pin_actuated_terms(PinMechanism(model, exact_cuts=True), cd, np.array(result["q_tree"]),
                                 np.array(state["qd"]))
    tau = M @ state["qdd"] + h + G
    assert np.abs(np.array(result["tau"]) - tau).max() < 1e-7 * max(1.0, float(np.abs(tau).max()))


def _pinocchio_agrees(model, seed: int) -> None:
    """M_a, G_a, h_a at the reference pose and at a closable state nearby: Pinocchio's constrained dynamics', to 1e-7
    plus twice the gap the loop leaves open (m, the mechanisms about a metre): where the cut frames do not meet, two
    ways of writing the cut joint's conditions (Pinocchio's contact velocities, our residual's derivative) differ by
    terms of the gap's order (measured: 8e-5 relative for a 0.2 mm gap)."""
    cd = ClosedDynamics(model)
    ref = PinMechanism(model, exact_cuts=True)
    rng = np.random.default_rng(seed)
    home = cd.positions(np.zeros(cd.n))
    reach = 1e-7 + 2 * float(np.linalg.norm(loop_conditions(model, home)))
    for qa, q in ((np.zeros(cd.n), home), closable_state(rng, model, cd, 0.2)):
        qd_a = rng.uniform(-1, 1, cd.n)
        M, G, h = pin_actuated_terms(ref, cd, q, qd_a)
        for ours, theirs in ((cd.M(qa), M), (cd.G(qa), G), (cd.h(qa, qd_a), h)):
            assert np.abs(ours - theirs).max() < reach * max(1.0, float(np.abs(theirs).max()))


@pytest.mark.parametrize(("seed", "cut"), [(101, "R"), (28, "S"), (23, "F")])
def test_a_planar_loop_a_rounding_out_of_its_plane_opens_with_a_warning(tmp_path, capsys, seed, cut):
    """The cut frame on the loop's root link moved 0.2 mm along that link's z (the normal of the loop's plane: the
    branch's axes are parallel to it), a rounding's worth that no joint of the loop moves: the loop is closed in its
    plane, the 0.2 mm across it stay (a physical fact: planar joints cannot change them) and a warning says so; the
    dynamics are Pinocchio's constrained dynamics of the model as read (its constraints at the frames as they are).
    Before: refused ("cannot be assembled ... 0.2 mm apart at best"), and before 1fc3844 let through by validate and
    refused at every pose by Newton's iterations."""
    _, path = rounded_planar_loop(tmp_path, seed, cut, 6)
    doc = json.loads((tmp_path / "exact.json").read_text())
    doc["loops"][0]["frame_j"]["xyz"][2] += 2e-4
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "warning: loops[1] (cut " in out and "stays open by a rounding's worth" in out, out
    assert "0.2 mm apart" in out, out
    model = load_project(path)
    cd = ClosedDynamics(model)
    home = cd.positions(np.zeros(cd.n))
    assert np.linalg.norm(loop_conditions(model, home)[:3]) == pytest.approx(2e-4, rel=1e-6)   # Pinocchio's frames
    _pinocchio_agrees(model, seed)


# (seed, digits): random planar loops whose every number the file rounded, across the plane too
EVERY = [(1, 3), (2, 5), (3, 6)]


@pytest.mark.parametrize(("seed", "digits"), EVERY, ids=[f"{s}-{d}" for s, d in EVERY])
def test_a_planar_loop_with_every_number_rounded_opens(tmp_path, seed, digits):
    """Every number of the file rounded (the loop's heights and the cut frames' z and tilt too): the loop stays a
    rounding out of its plane, with a warning; the dynamics are Pinocchio's. Before: refused."""
    rng = np.random.default_rng(seed)
    cut = "RSF"[seed - 1]
    model = random_project(rng, Shapes(loops=(cut,), planar=True, convention=list(Convention)[seed % 2],
                                       degenerate=seed == 3))
    save_project(model, tmp_path / "exact.json")
    path = tmp_path / "rounded.json"
    path.write_text(json.dumps(significant_numbers(json.loads((tmp_path / "exact.json").read_text()), digits)))
    rounded = load_project(path)
    problems = mechanism_problems(TreeArm.from_model(rounded))
    assert [p.severity.name for p in problems] == ["WARNING"] and "stays open" in problems[0].message, problems
    _pinocchio_agrees(rounded, seed)


def test_a_rounded_loop_that_still_cannot_close_says_part_of_its_gap_is_across_its_joints(tmp_path, capsys):
    """A planar weld-cut loop near a singular pose (its passive joints' Jacobian's smallest singular value 1.6e-3),
    every number to four digits: in its plane no pose near the nominal one closes it (Newton's steps go to and fro),
    and part of its gap (0.06 mm at best) lies across the plane: refused, the message saying that a rounding's worth
    of it is one no joint moves (before: the gap alone)."""
    from dataclasses import replace
    rng = np.random.default_rng(13)
    shapes = replace(Shapes(loops=("F",), planar=True), convention=list(Convention)[int(rng.integers(2))],
                     degenerate=bool(rng.random() < .3), named=bool(rng.random() < .3),
                     frames=bool(rng.random() < .5), loads=bool(rng.random() < .5))
    save_project(random_project(rng, shapes), tmp_path / "exact.json")
    path = tmp_path / "rounded.json"
    path.write_text(json.dumps(significant_numbers(json.loads((tmp_path / "exact.json").read_text()), 4)))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "loops[1] (cut F): cannot be assembled" in err and "no joint of the loop moves" in err, err
