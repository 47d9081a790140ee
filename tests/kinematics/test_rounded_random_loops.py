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
from tests.support.rounding import rounded_planar_loop

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


@pytest.mark.parametrize(("seed", "cut"), [(101, "R"), (28, "S"), (23, "F")])
def test_a_planar_loop_a_rounding_out_of_its_plane_is_refused_saying_why(tmp_path, capsys, seed, cut):
    """The cut frame on the loop's root link moved 0.2 mm along that link's z (the normal of the loop's plane: the
    branch's axes are parallel to it), a rounding's worth: no joint of the loop moves the cut point across the plane,
    so the gap at best is those 0.2 mm, and the message says it is a rounding no joint moves (before: the gap
    alone, no word of why it stays)."""
    _, path = rounded_planar_loop(tmp_path, seed, cut, 6)
    doc = json.loads((tmp_path / "exact.json").read_text())
    doc["loops"][0]["frame_j"]["xyz"][2] += 2e-4
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot be assembled" in err and "0.2 mm apart at best" in err, err
    assert "a rounding's worth that no joint of the loop moves" in err, err
