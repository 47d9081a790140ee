"""`optimize` with the project's own requirements (format version 4) as constraints: the tube arm of the design
story, its upper arm diameter varied, the mass minimised. The optimum against bisection on the review's own value
of the binding requirement, every constraint listed with value and margin, the written project keeping its
requirements, and `review BEST.json` passing (exit 0) exactly when optimize says feasible."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from designer.cli import main
from designer.model.requirements import Requirement, Requirements
from designer.project.io import load_project, save_project
from designer.review import review

pytestmark = pytest.mark.slow

TUBE = Path(__file__).resolve().parents[2] / "robots" / "tube_arm_requirements.json"


def _sag(model, D2: float) -> float:
    """The review's value of requirement 1 (the tool sag at home, 5 kg payload) at the upper arm diameter D2."""
    reqs = model.requirements
    one = replace(model.with_parameters({"D2": D2}), requirements=Requirements(reqs.items[:1], reqs.payload, None))
    return review(one)[0].value


def test_the_project_requirements_as_constraints(tmp_path, capsys):
    model = load_project(TUBE)
    assert [r.metric for r in model.requirements.items][0] == "deflection"
    bound = model.requirements.items[0].value
    # the sag shrinks as the upper arm grows while the mass grows: the lightest design meeting every
    # requirement sits where the sag equals its bound (the others hold with room: asserted below)
    lo, hi = 0.06, 0.15
    assert _sag(model, lo) > bound > _sag(model, hi)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _sag(model, mid) > bound else (lo, mid)
    out = tmp_path / "best.json"
    argv = ["optimize", str(TUBE), "--vary", "D2", "0.06", "0.15", "--minimize", "mass", "--require",
            "frequency>=20", "--starts", "1", "--out", str(out), "--format", "json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["values"]["D2"] == pytest.approx(hi, rel=1e-4)
    rows = summary["requirements"]
    # every constraint listed: the project's eight (by their place in the file) and the --require
    assert [r["source"] for r in rows] == ["project"] * 8 + ["--require"]
    assert [r["requirement"].split(" ")[0] for r in rows[:8]] == [f"requirements[{k}]" for k in range(1, 9)]
    assert rows[8]["requirement"] == "frequency>=20"
    # the written best project keeps its requirements, payload and cycle; review evaluates it independently
    best = load_project(out)
    assert best.requirements == model.requirements
    assert best.parameter_values["D2"] == pytest.approx(summary["values"]["D2"], rel=1e-15)
    outcomes = review(best)
    for row, o in zip(rows, outcomes):
        assert row["value"] == pytest.approx(o.value, rel=1e-9, abs=1e-12)
        assert row["margin"] == pytest.approx(o.margin, rel=1e-9, abs=1e-12) and row["margin"] >= 0
    assert main(["review", str(out)]) == 0      # optimize said feasible: the review passes
    assert "8 of 8 requirement(s) pass" in capsys.readouterr().out
    # the project as shipped fails its sag requirement
    assert main(["review", str(TUBE)]) == 1
    capsys.readouterr()
    # the text summary: one row per constraint, the same values
    assert main([*argv[:-2], "--out", str(tmp_path / "text.json")]) == 0
    text = capsys.readouterr().out.splitlines()
    for row in rows:
        line = next(t for t in text if t.startswith(row["requirement"] + " "))
        assert float(line.split()[-3]) == pytest.approx(row["value"], rel=1e-5)


def test_without_the_project_requirements(tmp_path, capsys):
    # left out, nothing bounds the diameter from below: the lightest is the box's low end, and its review fails
    out = tmp_path / "best.json"
    assert main(["optimize", str(TUBE), "--vary", "D2", "0.06", "0.15", "--minimize", "mass",
                 "--no-project-requirements", "--starts", "1", "--out", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["values"]["D2"] == pytest.approx(0.06, abs=1e-9) and summary["requirements"] == []
    assert load_project(out).requirements == load_project(TUBE).requirements   # kept in the file all the same
    assert main(["review", str(out)]) == 1
    capsys.readouterr()


def test_an_unreachable_project_requirement_writes_nothing(tmp_path, capsys):
    # below D2 = 0.1 the sag stays above its bound: no feasible design, the error names the requirement
    out = tmp_path / "best.json"
    assert main(["optimize", str(TUBE), "--vary", "D2", "0.06", "0.1", "--minimize", "mass", "--starts", "1",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no design meets the requirements" in err and "requirements[1] tool sag at home" in err
    assert not out.exists()


def test_a_project_requirement_that_cannot_be_evaluated(tmp_path, capsys):
    model = load_project(TUBE)
    reqs = model.requirements
    bad = replace(model, requirements=Requirements((*reqs.items, Requirement("nonsense", "<=", 1.0)),
                                                   reqs.payload, reqs.cycle))
    path = tmp_path / "bad.json"
    save_project(bad, path)
    assert main(["optimize", str(path), "--vary", "D2", "0.06", "0.15", "--minimize", "mass",
                 "--out", str(tmp_path / "best.json")]) == 2
    err = capsys.readouterr().err
    assert "requirements[9]" in err and "nonsense" in err and "--no-project-requirements" in err
    # left out, the same project optimises
    assert main(["optimize", str(path), "--vary", "D2", "0.06", "0.15", "--minimize", "mass", "--starts", "1",
                 "--no-project-requirements", "--out", str(tmp_path / "best.json")]) == 0
    capsys.readouterr()


def test_an_elastic_closed_chain_with_its_own_frequency_requirement(tmp_path, capsys):
    """The palletizer with gearbox springs, its requirement in the file (a frequency bound at a pose): the heaviest
    load against bisection on `explore metric frequency` at that pose, and the written design passes its review."""
    import numpy as np

    from tests.optimize.test_optimize import _metric
    from tests.support import robot_path
    doc = json.loads(robot_path("palletizer_parallelogram").read_text())
    for link in doc["links"]:
        if link.get("actuated", True):
            link["drive"] = {"stiffness": 2e5, "gear_ratio": 100, "motor_inertia": 1e-4}
    q = [0.0, 0.4, 0.3, 0.0]
    base = tmp_path / "plain.json"
    base.write_text(json.dumps(doc))
    model = load_project(base)
    freq = lambda m: _metric(model.with_parameters({"m_load": m}), "frequency", q=np.array(q))  # noqa: E731
    lo, hi = 10.0, 400.0
    bound = 0.5 * (freq(lo) + freq(hi))
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if freq(mid) >= bound else (lo, mid)
    doc["version"] = 4
    doc["requirements"] = [{"name": "stiff", "metric": "frequency", "bound": ">=", "value": bound,
                            "where": {"poses": [q]}}]
    path = tmp_path / "elastic_palletizer.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "best.json"
    assert main(["optimize", str(path), "--vary", "m_load", "10", "400", "--maximize", "mass", "--starts", "2",
                 "--out", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["values"]["m_load"] == pytest.approx(lo, rel=1e-4)
    assert summary["requirements"][0]["requirement"].startswith("requirements[1] stiff: frequency>=")
    assert main(["review", str(out)]) == 0
    capsys.readouterr()


def test_the_job_reports_each_start_and_gives_the_same_result():
    from designer.jobs import run
    from designer.optimize.problem import Problem, Variable, optimize, optimize_job
    from designer.optimize.problem import Requirement as Constraint
    model = load_project(TUBE)
    problem = Problem(model, (Variable("D2", 0.06, 0.15),), "mass", Constraint.of_project(model))
    steps = []
    result = run(optimize_job(problem, 3, 0, 100), steps.append)
    assert [s.fraction for s in steps] == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    assert steps[-1].detail == result.log[-1] and len(result.log) == 3
    direct = optimize(problem, 3, 0, 100)
    assert result.best is not None and direct.best is not None
    assert result.best.values == direct.best.values and result.evaluations == direct.evaluations


def test_the_payload_defaults_to_the_projects_own(tmp_path, capsys):
    # the objective's deflection carries the project's 5 kg unless --payload says otherwise (the window's dialog
    # starts at the project's payload too): the default run equals --payload 5, and a lighter tool sags less
    def deflection(*extra: str) -> float:
        assert main(["optimize", str(TUBE), "--vary", "D2", "0.1", "0.1000001", "--minimize", "deflection",
                     "--no-project-requirements", "--starts", "1", "--format", "json",
                     "--out", str(tmp_path / "b.json"), *extra]) == 0
        return json.loads(capsys.readouterr().out)["objective"]["value"]
    stated = load_project(TUBE).requirements.payload
    assert stated is not None and stated.mass == 5.0
    default, five, none = deflection(), deflection("--payload", "5"), deflection("--payload", "0")
    assert default == pytest.approx(five, rel=1e-9)
    assert none < 0.9 * default
