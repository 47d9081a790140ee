"""``python -m designer explore ...``: outputs against hand values, files written, one-line user errors."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from tests.support import robot_path
from designer.cli import main
from designer.project import load_project

TWO = str(robot_path("planar_two_link"))


def _run(capsys, *argv):
    code = main(["explore", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_metric_and_map(capsys):
    p = load_project(TWO).parameter_values
    code, out, _ = _run(capsys, TWO, "metric", "--q", "0", "pi/2", "--metric", "M[2,2]", "--metric", "gravity[2]")
    assert code == 0
    rows = {r["metric"]: float(r["value"]) for r in _rows(out)}
    assert rows["M[2,2]"] == pytest.approx(p["I2"] + p["m2"] * p["d2"] ** 2)
    assert rows["gravity[2]"] == pytest.approx(0, abs=1e-12)   # link 2 vertical
    code, out, _ = _run(capsys, TWO, "map", "--metric", "coupling[1,2]", "--joints", "1", "2", "--steps", "3",
                        "--format", "json")
    data = json.loads(out)
    assert np.array(data["values"]).shape == (3, 3) and data["joints"] == [1, 2]
    code, out, _ = _run(capsys, TWO, "map", "--metric", "cond", "--samples", "16")
    assert code == 0 and len(_rows(out)) == 16 and {"x", "y", "z", "cond"} <= set(_rows(out)[0])


def test_sweep_and_conditions(capsys, tmp_path):
    out_file = tmp_path / "sweep.csv"
    code, _, _ = _run(capsys, TWO, "sweep", "--param", "m2", "0.5", "2", "3", "--metric", "gravity[1]",
                      "--samples", "64", "--threads", "--pareto", "gravity[1]:max", "reach", "--maximize", "reach",
                      "--out", str(out_file))
    rows = _rows(out_file.read_text())
    assert code == 0 and [float(r["m2"]) for r in rows] == [0.5, 1.25, 2.0]
    assert [r["pareto"] for r in rows] == ["True", "False", "False"]   # equal reach: the lightest wins
    applied = tmp_path / "invariant.json"
    code, out, _ = _run(capsys, TWO, "conditions", "--kind", "invariant", "--apply", str(applied))
    data = json.loads(out)
    assert code == 0 and data["solutions"][0]["solution"] == {"d2": "0"}
    model = load_project(applied)
    assert "d2" not in model.parameter_values and str(model.links[1].com[0]) == "-L2"
    code, out, _ = _run(capsys, TWO, "conditions", "--kind", "decoupled")
    assert "no solution" in json.loads(out)["summary"]


def test_significance_sizing_payload_compare(capsys):
    code, out, _ = _run(capsys, TWO, "significance", "--speed", "2", "--acceleration", "5", "--samples", "256",
                        "--check", "200", "--format", "json")
    data = json.loads(out)
    assert code == 0 and all(data["check"]["holds"]) and data["total"] == 2 * (2 + 1 + 2 + 1)
    code, out, _ = _run(capsys, TWO, "sizing", "--from", "0", "0", "--to", "1", "1", "--duration", "2")
    rows = _rows(out)
    assert code == 0 and float(rows[0]["peak_speed"]) == pytest.approx(15 / 16)
    code, out, _ = _run(capsys, TWO, "payload", "--torque", "60,30", "--samples", "64", "--z", "0", "0", "1",
                        "--x", "0", "0.2", "2")
    rows = _rows(out)
    assert code == 0 and len(rows) == 2 and float(rows[1]["max_payload"]) < float(rows[0]["max_payload"])
    code, out, _ = _run(capsys, TWO, "sensitivity", "--metric", "M[2,2]", "--samples", "16")
    rows = _rows(out)
    assert code == 0 and rows[0]["parameter"] == "d2" and rows[0]["derivative_expression"] == "2*d2*m2"
    code, out, _ = _run(capsys, TWO, "compare", "--set-b", "m2=2", "--samples", "32")
    rows = {(r["metric"], r["where"]): r for r in _rows(out)}
    assert code == 0 and float(rows[("total_mass", "design")]["B-A"]) == pytest.approx(1.0)


@pytest.mark.parametrize("argv, words", [
    (["metric", "--metric", "nope"], "unknown metric"),
    (["metric", "--set", "zz=1"], "not a parameter"),
    (["metric", "--q", "1"], "2 joint values"),
    (["map", "--metric", "cond", "--joints", "1", "1"], "two different"),
    (["sweep", "--param", "m2", "1", "2", "x", "--metric", "cond"], "whole number"),
    (["sweep", "--param", "m2", "1", "2", "2", "--metric", "cond", "--out", "/nonexistent/dir/x.csv"], "cannot write"),
    (["metric", "--metric", "dyn_manipulability"], "rated torque"),
    (["conditions", "--kind", "balanced", "--solve-for", "nope"], "not a parameter"),
    (["sizing", "--trajectory", "/nonexistent.csv"], "cannot read"),
    (["compare", "--with", str(robot_path("horn_three_dof"))], "same size"),
])
def test_user_errors_are_one_line(capsys, argv, words):
    code, _, err = _run(capsys, TWO, *argv)
    assert code == 2
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
