"""Near-singular poses of closed chains (designer/numeric/near_singular.py): where the cut forces are a dead
centre's amplification, not a load, every place that shows them says so.

Independent sides: the four-bar's dead centre in closed form (the crank angle where coupler and rocker fall in
line, |BD| = L2 + L3 by the law of cosines), and the condition number from numpy's SVD of Pinocchio's loop
Jacobian over the passive joints (tests/support/closed_reference: Pinocchio's forward kinematics of the tree,
nothing of designer.kinematics), the warning present exactly where that number passes the threshold.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from designer.cli import main
from designer.numeric.closed import ClosedDynamics
from designer.numeric.motion import driven_job
from designer.numeric.near_singular import NEAR_SINGULAR, loop_conditioning, near_singular
from designer.jobs import CancelToken, run
from designer.project import load_project
from tests.support.closed_reference import four_bar_at, loop_jacobian

pytest.importorskip("pinocchio")
ROOT = Path(__file__).resolve().parents[2]
#: ground, crank, coupler, rocker (m): the crank turns from 90 degrees towards the dead centre where
#: |BD| = L2 + L3 = 0.5 m (the folded one, |L2 - L3| = 0.1 m, lies below |BD| >= L0 - L1 = 0.25 m: never reached)
LENGTHS = (0.4, 0.15, 0.3, 0.2)
PHI0 = math.pi / 2


def dead_centre() -> float:
    """The crank joint's value (from the nominal pose at PHI0) where coupler and rocker lie in line."""
    L0, L1, L2, L3 = LENGTHS
    return math.acos((L0**2 + L1**2 - (L2 + L3) ** 2) / (2 * L0 * L1)) - PHI0


def pin_condition(model, q_tree, passive) -> float:
    s = np.linalg.svd(loop_jacobian(model, q_tree)[:, passive], compute_uv=False)
    s = s[s > 1e-9 * s[0]]   # the planar loop's out-of-plane rows are zero; the passive block has rank 2
    assert len(s) == len(passive)
    return float(s[0] / s[-1])


def test_four_bar_warned_exactly_where_pinocchios_loop_jacobian_is_near_singular():
    """The crank turned towards the dead centre (closed form) from a far pose to 1e-7 rad of it: our condition
    number is Pinocchio's, and the warning (naming the loop, the row and the force) covers exactly the rows
    where that is above NEAR_SINGULAR, which are the ones nearest the dead centre; none at ordinary poses."""
    model = four_bar_at(np.random.default_rng(3), LENGTHS, PHI0)
    cd = ClosedDynamics(model)
    star = dead_centre()
    deltas = [1.0, 0.5, 0.2, 0.05, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 1e-6, 1e-7]
    Q = np.array([[star - d] for d in deltas])
    P = cd.following().positions(Q)
    ours, loops = loop_conditioning(cd, P)
    theirs = np.array([pin_condition(model, p, list(cd.pas)) for p in P])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert np.all(loops == 0)
    hot = theirs > NEAR_SINGULAR
    assert hot.any() and (~hot).any() and not hot[:4].any()   # ordinary poses are quiet
    assert np.all(np.diff(theirs) > 0)   # the nearer the dead centre, the worse
    zero = np.zeros_like(Q)
    force = cd.following().cut_forces(Q, zero, zero).force
    [said] = near_singular(cd, P, lambda r: f"row {r}", force)
    rows = [int(r) for r in np.flatnonzero(hot)]
    assert (said.first, said.last, said.worst) == (f"row {rows[0]}", f"row {rows[-1]}", f"row {len(deltas) - 1}")
    assert said.loop == cd.tree.loop_names[0] and said.condition == pytest.approx(theirs[-1], rel=1e-5)
    assert said.force == pytest.approx(float(np.linalg.norm(force[-1, 0])))
    # 1/sigma_min: the cut force grows as the condition number does (gravity's torques barely change so near)
    ratio = np.linalg.norm(force[hot, 0], axis=1) / theirs[hot]
    assert ratio.max() < 1.5 * ratio.min()
    text = said.text()
    assert "\n" not in text and "four-bar" in text and "not a real load" in text and f"{theirs[-1]:.3g}" in text


def test_palletizer_past_its_forearm_limit_is_warned_on_the_command_line(tmp_path, capsys):
    """The palletizer's parallelogram folds flat at q3 = +-pi/2 (the forearm's limits): eval and simulate past it
    say which loop, where and the condition number; an ordinary state says nothing."""
    project = str(ROOT / "robots" / "palletizer_parallelogram.json")
    model = load_project(project)
    cd = ClosedDynamics(model)
    zero = [0.0] * 4
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": q, "qd": zero, "qdd": zero}
                                             for q in ([0, 0, 0.3, 0], [0, 0, 1.5705, 0], [0, 0.2, 1.4, 0])]}))
    assert main(["eval", "--quiet", "--states", str(states), project]) == 0
    err = capsys.readouterr().err
    [line] = [x for x in err.splitlines() if x.startswith("warning:")]
    P = cd.positions(np.array([0, 0, 1.5705, 0]))
    kappa = pin_condition(model, P, list(cd.pas))
    assert "states[1]" in line and "parallelogram" in line and f"condition number {kappa:.3g}" in line, line
    out = tmp_path / "run.csv"
    assert main(["simulate", "--quiet", "--q0", "0", "0", "1.2", "0", "--t", "1", "--dt", "0.01", "--out", str(out),
                 project]) == 0
    said = [x for x in capsys.readouterr().out.splitlines() if "near a singular pose" in x]
    assert said and all(x.startswith("warning: loops[1] (parallelogram)") for x in said), said
    rows = np.genfromtxt(out, delimiter=",", names=True)
    t = float(said[0].split(" at t = ")[1].split(" s")[0])
    worst = int(np.argmin(np.abs(rows["t"] - t)))
    assert abs(abs(rows["q3"][worst]) - math.pi / 2) < 0.05   # the forearm at its fold


def test_driven_motion_carries_the_warning_for_the_window():
    """The window's Simulate tab shows MotionResult.warnings in its message line (gui/simulate.result_text): a
    driven motion of the palletizer through its fold has one, a motion away from it none."""
    cd = ClosedDynamics(load_project(ROOT / "robots" / "palletizer_parallelogram.json"))
    t = np.linspace(0.0, 1.0, 101)
    for end, expected in ((1.0, 0), (1.5705, 1)):
        q = np.zeros((len(t), 4))
        q[:, 2] = end * t
        qd = np.zeros_like(q)
        qd[:, 2] = end
        result = run(driven_job(cd, t, q, qd, np.zeros_like(q), "given", CancelToken(), limits="ignore"))
        assert len(result.warnings) == expected, result.warnings
        assert all("t = 1 s" in w and "parallelogram" in w for w in result.warnings)


def test_elastic_runs_of_a_closed_chain_say_what_rigid_runs_say(tmp_path, capsys):
    """simulate --elastic and the window's elastic run (gui/simulate.elastic_job) add what a rigid run of a closed
    chain adds: each loop's peak cut-joint force, and the stretch near a singular pose, whose condition number is the
    largest of Pinocchio's loop Jacobian over the run's tree poses; a start away from the fold says nothing of it.
    --limits stop (no end stops in the elastic model) is refused in one line."""
    from designer.gui.modes import joints_or_none
    from designer.gui.simulate import elastic_job
    from designer.kinematics.tree import TreeArm
    from tests.cli.test_closed_elastic_cli import palletizer, write
    model = palletizer()
    path = write(tmp_path, model)
    cd = ClosedDynamics(model)
    arm, joints = TreeArm.from_model(model).arm, joints_or_none(model)

    def released(q_a):
        return run(elastic_job(model, arm, joints, cd.positions(np.array(q_a)), 0.2, 11, CancelToken()))
    result = released([0.0, 0.0, 1.5705, 0.0])   # the crank 1e-4 rad from the parallelogram's fold
    kappa = max(pin_condition(model, q, list(cd.pas)) for q in result.q)
    [line] = result.warnings
    assert "loops[1] (parallelogram)" in line and f"condition number {kappa:.3g}" in line, line
    [(name, peak, _when)] = result.cut_peaks
    assert name == "loops[1] (parallelogram)" and peak > 1e5 and result.residual < 1e-9
    calm = released([0.0, 0.0, 0.3, 0.0])
    assert calm.warnings == () and len(calm.cut_peaks) == 1
    for q0, warned in (("1.5705", True), ("0.3", False)):
        assert main(["simulate", "--quiet", "--elastic", "--q0", "0", "0", q0, "0", "--t", "0.2", "--dt", "0.02",
                     "--out", str(tmp_path / "run.csv"), path]) == 0
        out = capsys.readouterr().out.splitlines()
        assert any(x.startswith("loops[1] (parallelogram): peak cut-joint force") for x in out), out
        said = [x for x in out if "near a singular pose" in x]
        assert len(said) == warned and all(x.startswith("warning: loops[1] (parallelogram)") for x in said), out
    assert main(["simulate", "--quiet", "--elastic", "--limits", "stop", "--q0", "0", "0", "0.3", "0", "--t", "0.1",
                 path]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--limits stop" in err and "elastic" in err


def test_elastic_run_of_a_serial_arm_names_the_joints_past_their_limits(tmp_path, capsys):
    """simulate --elastic lists a joint that passed its limit as simulate does (the tube arm's elbow falling past
    -149 degrees): the time it gives is the first row of the run's own table past the limit."""
    project = str(ROOT / "robots" / "tube_arm.json")
    out = tmp_path / "run.csv"
    assert main(["simulate", "--quiet", "--elastic", "--q0", "0", "-0.3", "2.0", "--t", "1", "--dt", "0.002",
                 "--out", str(out), project]) == 0
    said = [x for x in capsys.readouterr().out.splitlines() if x.startswith("warning:")]
    assert len(said) == 1 and said[0].startswith("warning: q3 passed its lower limit (-149°) at t = "), said
    rows = np.genfromtxt(out, delimiter=",", names=True)
    lower = -2.6   # the file's limit of q3, in rad
    first = float(rows["t"][np.argmax(rows["q3"] < lower)])
    assert (rows["q3"] < lower).any() and f"at t = {first:.4g} s" in said[0], (said, first)
