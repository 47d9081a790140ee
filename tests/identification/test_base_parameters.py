"""``derive --base-parameters``: the equations report with a section on the base parameters (grouping
formulas, values, dropped parameters), checked against Pinocchio through the base regressor."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from designer.cli import main
from designer.identification.base_params import base_parameters, base_regressor
from designer.kinematics import NumericArm
from designer.dynamics.inertial import standard_parameter_values
from designer.dynamics.inertial import parameter_names
from designer.project import load_project
from tests.support import robot_path
from tests.support.pin_reference import pin, pin_model

PUMA = str(robot_path("puma560"))
TWO = str(robot_path("planar_two_link"))


def test_json_section_values_reproduce_pinocchio(capsys):
    assert main(["derive", PUMA, "--form", "compact", "--base-parameters", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    section = doc["base_parameters"]
    assert "assignments" in doc  # the report itself is still there
    model = load_project(PUMA)
    assert section["count"] == section["rank"] == len(section["parameters"]) == 36
    assert section["count"] + len(section["dropped"]) == 60
    names = [p["name"] for p in section["parameters"]]
    assert "ZZR1" in names and "m1" in section["dropped"] and "YY6" in section["dropped"]
    arm = NumericArm.from_model(model)
    # each formula, read back and evaluated at the project's standard parameters, gives the value listed
    standard = dict(zip(parameter_names(model.n), standard_parameter_values(arm)))
    subs = {sp.Symbol(k, real=True): v for k, v in standard.items()}
    subs.update({sp.Symbol(k, real=True): v for k, v in model.parameter_values.items() if v is not None})
    values = np.array([p["value"] for p in section["parameters"]])
    for p, value in zip(section["parameters"], values):
        formula = sp.sympify(p["formula"], locals={s.name: s for s in subs})
        assert float(formula.xreplace(subs)) == pytest.approx(value, rel=1e-12, abs=1e-12)
    # the listed values are the base parameters: Y_b beta is Pinocchio's tau
    bp = base_parameters(model)
    assert list(bp.names) == names
    pm = pin_model(arm)
    data = pm.createData()
    rng = np.random.default_rng(2)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-2, 2, (3, model.n))
        ref = pin.rnea(pm, data, q, qd, qdd)
        np.testing.assert_allclose(base_regressor(bp, arm, q, qd, qdd) @ values, ref, atol=1e-10 * np.abs(ref).max())


@pytest.mark.parametrize("fmt,heading,closing", [("markdown", "## Base parameters", None),
                                                 ("html", "<h2>Base parameters</h2>", "</body>"),
                                                 ("latex", "\\section*{Base parameters}", "\\end{document}")])
def test_text_reports_end_with_the_section(fmt, heading, closing, capsys):
    assert main(["derive", TWO, "--format", fmt, "--quiet"]) == 0
    plain = capsys.readouterr().out
    assert heading not in plain
    assert main(["derive", TWO, "--format", fmt, "--base-parameters", "--quiet"]) == 0
    text = capsys.readouterr().out
    at = text.index(heading)
    assert text[:at].rstrip() == (plain[:plain.rindex(closing)] if closing else plain).rstrip()
    assert "Dropped" in text[at:] and "m1" in text[at:] and "ZZR1" in text[at:]
    if closing:
        assert text.rstrip().endswith(plain[plain.rindex(closing):].rstrip())


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_latex_with_the_section_compiles(tmp_path):
    out = tmp_path / "two.tex"
    assert main(["derive", TWO, "--out", str(out), "--base-parameters", "--quiet"]) == 0
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", out.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
