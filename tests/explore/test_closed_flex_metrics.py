"""The links' bending of a closed chain in the explore metrics and in ``modes`` (numeric/closed_batch.py,
cli/modes_commands.py): the palletizer with its upper arm and coupler rod as tubes.

The links' shares against the KKT solve of tests/numeric/test_closed_flex.py (its own forward kinematics with the
slices bent, central differences, Lagrange multipliers); the gearboxes' share against J K^-1 J^T over the tool
Jacobian in the actuated rates (the closed batch's, held to Pinocchio in test_closed_elastic.py); Rayleigh's
bound (more compliance, lower frequency); the command's output against the same sides; bad inputs in one line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.explore.joints import explore_arm
from designer.explore.metrics import drive_ratings
from designer.explore.metrics import Ratings, evaluate
from designer.project.io import dumps_project
from tests.numeric.test_closed_flex import GEARS, Bent, palletizer_tubes, tree_stiffness

QA = np.array([[0.2, -0.3, 0.4, 0.1], [-0.4, 0.2, -0.1, 0.5], [0.0, 0.0, 0.0, 0.0]])


def ratings(model, payload=0.0):
    return Ratings(**drive_ratings(model), payload=payload)


def test_the_links_shares_against_the_kkt_solve_and_the_totals_add_the_gearboxes():
    model = palletizer_tubes()
    arm = explore_arm(model)
    r = ratings(model, 5.0)
    links_C = evaluate(arm, QA, "compliance_links", r)
    links_sag = evaluate(arm, QA, "deflection_links", r)
    total_C = evaluate(arm, QA, "compliance", r)
    total_sag = evaluate(arm, QA, "deflection", r)
    locked = np.full(arm.cd.n_tree, np.inf)
    k = np.array([GEARS[i] for i in arm.cd.act])
    for s, qa in enumerate(QA):
        q = arm.cd.positions(qa)
        bent = Bent(arm.flex(None, 2))
        C = bent.compliance(q, locked)
        assert links_C[s] == pytest.approx(1e3 * np.linalg.eigvalsh(C)[-1], rel=1e-5)
        sag_links = bent.sag(q, locked, 5.0)
        assert links_sag[s] == pytest.approx(1e3 * np.linalg.norm(sag_links), rel=1e-5)
        J = arm.tool_jacobian(qa)[:3]
        gear = J @ np.diag(1 / k) @ J.T
        assert total_C[s] == pytest.approx(1e3 * np.linalg.eigvalsh(gear + C)[-1], rel=1e-5)
        # and the whole model solved at once (gearboxes and slices together) gives the same
        both = Bent(arm.flex(k, 2)).compliance(q, tree_stiffness(arm.cd, model))
        np.testing.assert_allclose(both, gear + C, rtol=1e-5, atol=1e-5 * np.abs(both).max())
        assert total_sag[s] > links_sag[s] > 0


def test_frequency_links_lies_below_the_gearboxes_frequency_and_reaches_it_with_stiff_tubes():
    model = palletizer_tubes()
    arm = explore_arm(model)
    rigid = evaluate(arm, QA, "frequency", ratings(model))
    links = evaluate(arm, QA, "frequency_links", ratings(model))
    assert np.all(links < rigid * (1 - 1e-3))
    mats = {"hard": {"density": 2700.0, "young": 69e15, "shear": 26e15},
            "hard steel": {"density": 7850.0, "young": 200e15, "shear": 80e15}}
    stiff = palletizer_tubes(upper=("hard", 0.16, 0.006), rod=("hard steel", 0.05, 0.004), materials=mats)
    arm = explore_arm(stiff)
    np.testing.assert_allclose(evaluate(arm, QA, "frequency_links", ratings(stiff)),
                               evaluate(arm, QA, "frequency", ratings(stiff)), rtol=1e-5)


def test_tubes_without_gearboxes_give_the_links_alone():
    model = palletizer_tubes(gears=False)
    arm = explore_arm(model)
    r = ratings(model)
    np.testing.assert_allclose(evaluate(arm, QA, "compliance", r), evaluate(arm, QA, "compliance_links", r), rtol=1e-12)
    assert np.all(np.isfinite(evaluate(arm, QA, "frequency_links", r)))


def test_a_sweep_over_the_rods_diameter_changes_the_links_share():
    """ActuatedArm with an override of a part's dimension (as a sweep's designs are made): a thicker rod, stiffer."""
    d = json.loads(dumps_project(palletizer_tubes()))
    d["parameters"]["Dr"] = 0.05
    d["links"][4]["part"]["outer_diameter"] = "Dr"
    from designer.project.io import loads_project
    model = loads_project(json.dumps(d))
    thin, thick = (evaluate(explore_arm(model, {"Dr": v}), QA[:1], "compliance_links", ratings(model))[0]
                   for v in (0.03, 0.08))
    assert thick < thin


def test_modes_command_with_segments(tmp_path, capsys):
    from designer.cli import main
    model = palletizer_tubes()
    path = tmp_path / "pal.json"
    path.write_text(dumps_project(model))
    qa = QA[0]
    assert main(["modes", str(path), "--q", *map(str, qa), "--segments", "6", "--payload", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    arm = explore_arm(model)
    q = arm.cd.positions(qa)
    k = np.array([GEARS[i] for i in arm.cd.act])
    f = arm.flex(k, 6).modes(q)[0]
    np.testing.assert_allclose(out["links"]["frequency_hz"], f, rtol=1e-12)
    assert out["links"]["segments"] == 6
    assert out["links"]["frequency_hz"][0] < out["locked"]["frequency_hz"][0]
    locked = np.full(arm.cd.n_tree, np.inf)
    C = Bent(arm.flex(None, 6)).compliance(q, locked)
    J = arm.tool_jacobian(qa)[:3]
    np.testing.assert_allclose(np.array(out["compliance"]["matrix"])[:3, :3], J @ np.diag(1 / k) @ J.T + C,
                               rtol=1e-5, atol=1e-5 * np.abs(C).max())
    np.testing.assert_allclose(out["links"]["sag_mm"], 1e3 * Bent(arm.flex(None, 6)).sag(q, locked, 5.0),
                               rtol=1e-5, atol=1e-6)
    energy = out["links"]["strain_energy"]
    assert all(abs(sum(row.values()) - 1) < 1e-9 for row in energy)


@pytest.mark.parametrize("argv,message", [
    (["--segments", "0"], "argument --segments: 0 is out of range: give 1 to 64"),
    (["--segments", "65"], "argument --segments: 65 is out of range: give 1 to 64"),
])
def test_modes_bad_segments_is_one_line(tmp_path, capsys, argv, message):
    from designer.cli import main
    path = tmp_path / "pal.json"
    path.write_text(dumps_project(palletizer_tubes()))
    with pytest.raises(SystemExit) as refused:   # argparse's refusal, on one line (designer/cli/ranges.py)
        main(["modes", str(path), *argv])
    assert refused.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err


def test_modes_without_stiffness_nor_parts_is_refused_in_one_line(tmp_path, capsys):
    from designer.cli import main
    path = tmp_path / "pal.json"
    path.write_text(dumps_project(palletizer_tubes(upper=None, rod=None, gears=False)))
    assert main(["modes", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no actuated joint has a drive stiffness" in err and "part" in err
