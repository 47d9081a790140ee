"""The `frequency_links` metric and the `modes` command's link-bending section (issue 23)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from designer.cli import main
from designer.explore.metrics import drive_ratings
from designer.explore.metrics import Ratings, compute
from designer.kinematics import NumericArm
from designer.model import Drive
from designer.numeric.elastic import elastic_joints
from designer.numeric.flex_modes import lowest_flex_frequency
from designer.project.io import dumps_project, load_project
from tests.numeric.test_flex_modes import _cantilever, _euler_bernoulli
from tests.support import robot_path


def test_frequency_links_is_the_rigid_frequency_without_parts_and_lower_with_them():
    rng = np.random.default_rng(11)
    puma = load_project(robot_path("puma560"))
    puma = dataclasses.replace(puma, links=tuple(dataclasses.replace(l, drive=Drive(stiffness=float(k)))
                                                 for l, k in zip(puma.links, rng.uniform(5e3, 5e4, 6))))
    arm, ratings = NumericArm.from_model(puma), Ratings.of(6, **drive_ratings(puma))
    q = rng.uniform(-2, 2, (32, 6))
    np.testing.assert_allclose(compute(arm, q, "frequency_links", ratings), compute(arm, q, "frequency", ratings),
                               rtol=1e-9)
    tube = load_project(robot_path("tube_arm"))
    arm, ratings = NumericArm.from_model(tube), Ratings.of(3, **drive_ratings(tube))
    q = rng.uniform(-2, 0, (32, 3))
    links = compute(arm, q, "frequency_links", ratings)
    np.testing.assert_allclose(links, lowest_flex_frequency(arm, elastic_joints(tube), q, 2), rtol=1e-12)
    assert np.all(links < compute(arm, q, "frequency", ratings))


def test_a_part_made_link_on_a_rigid_joint_has_its_bending_frequency():
    """No drive stiffness: `frequency` has nothing to say, `frequency_links` gives the cantilever's."""
    L, D, t, tip = 1.0, 0.03, 0.002, 1.0
    model = _cantilever(L, D, t, tip)
    arm = NumericArm.from_model(model)
    beam = arm.beams[0]
    f = compute(arm, np.array([[0.3]]), "frequency_links", Ratings.of(1))[0]
    assert abs(f / _euler_bernoulli(L, beam.ei1, beam.mass_per_length, tip) - 1) < 1e-2   # 2 slices (METRIC_SEGMENTS)


def test_modes_command_reports_the_links_bending(tmp_path, capsys):
    path = robot_path("tube_arm")
    assert main(["modes", str(path), "--q", "0", "-1", "1", "--segments", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    links = out["links"]
    model = load_project(path)
    expect = lowest_flex_frequency(NumericArm.from_model(model), elastic_joints(model), np.array([0.0, -1, 1]), 2)
    # the command's own evaluation of the same frequency: equal to the last bits the platform's LAPACK gives
    # (numpy 2.4.6 here: 1 ulp apart), so within 1e-12, not ==
    assert abs(links["frequency_hz"][0] / expect - 1) < 1e-12 and links["segments"] == 2
    assert links["frequency_hz"][0] < out["locked"]["frequency_hz"][0]
    assert abs(sum(links["strain_energy"][0].values()) - 1) < 1e-9
    # a rigid-jointed part-made arm still has modes; a bad segment count is one line, exit 2
    cantilever = tmp_path / "c.json"
    cantilever.write_text(dumps_project(_cantilever(1.0, 0.03, 0.002, 1.0)))
    assert main(["modes", str(cantilever)]) == 0
    assert json.loads(capsys.readouterr().out)["links"]["frequency_hz"][0] > 0
    with pytest.raises(SystemExit) as refused:   # out of its range: argparse's one line, exit status 2
        main(["modes", str(path), "--segments", "0"])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "--segments" in err and len(err.strip().splitlines()) == 1


def test_a_closed_chain_gets_one_line_for_the_link_bending_metrics(capsys):
    """The links' bending is modelled for serial arms: a closed chain is told so (it was an AttributeError), and
    `explore metric` without --metric lists the rest."""
    path = str(robot_path("palletizer_parallelogram"))
    for metric in ("frequency_links", "compliance", "deflection_links"):
        assert main(["explore", path, "metric", "--metric", metric]) == 2
        err = capsys.readouterr().err
        assert metric in err and len(err.strip().splitlines()) == 1, err
    assert main(["explore", path, "metric"]) == 0
    assert "gravity" in capsys.readouterr().out


def test_compare_gives_design_b_its_own_named_stiffness(capsys):
    """explore compare --set-b k2=...: design B's frequency follows its k2 (it took A's before)."""
    path = str(robot_path("tube_arm"))
    assert main(["explore", path, "compare", "--set-b", "k2=2e4", "--samples", "16", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    row = next(r for r in rows if r["metric"] == "frequency" and r["where"] == "pose")
    model = load_project(robot_path("tube_arm"))
    arm = NumericArm.from_model(model)
    for key, k2 in (("A", 4.5e5), ("B", 2e4)):
        m = model.with_parameter("k2", k2)
        expect = compute(arm, np.zeros((1, 3)), "frequency", Ratings.of(3, **drive_ratings(m)))[0]
        assert row[key] == expect
    assert row["B"] < row["A"]
