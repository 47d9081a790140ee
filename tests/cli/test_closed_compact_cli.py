"""`derive` on closed chains without a closed form: the compact form, printed as steps that evaluate.

The JSON report's assignments are read back from their text and evaluated in order at random states:
tau must be the numeric projection's (designer.numeric.closed), so every printed line is right.
"""

from __future__ import annotations

import json

import numpy as np
import sympy as sp

from designer.cli import main
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.support import robot_path


def _evaluate(doc: dict, model, qa, qda, qdda) -> list[float]:
    env = {sp.Symbol(k, real=True): sp.Float(float(v)) for k, v in model.parameter_values.items()}
    for names, values in ((doc["symbols"]["q"], qa), (doc["symbols"]["qd"], qda), (doc["symbols"]["qdd"], qdda)):
        env.update({sp.Symbol(n, real=True): sp.Float(float(v)) for n, v in zip(names, values)})
    local = {s.name: s for s in env}
    for a in doc["assignments"]:
        sym = sp.Symbol(a["name"], real=True)
        local[a["name"]] = sym
        env[sym] = sp.sympify(a["value"], locals=local).xreplace(env).evalf()
    return [float(sp.sympify(t, locals=local).xreplace(env)) for t in doc["tau"]]


def test_derive_compact_json_of_the_four_bar_evaluates_to_the_numeric_torques(capsys):
    path = robot_path("four_bar")
    assert main(["derive", str(path), "--form", "compact", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["form"] == "compact"
    assert set(doc["symbols"]["parameters"]) == {"L0", "L1", "L2", "L3", "g", "m1", "m2", "m3", "w"}
    kinds = {a["kind"] for a in doc["assignments"]}
    assert {"qp", "J", "W", "qdp", "qddp", "w", "f", "n"} <= kinds
    model = load_project(path)
    cd = ClosedDynamics(model)
    rng = np.random.default_rng(11)
    for _ in range(3):
        qa, qda, qdda = rng.uniform(-1, 1, 1), rng.normal(size=1), rng.normal(size=1)
        assert np.allclose(_evaluate(doc, model, qa, qda, qdda), cd.tau(qa, qda, qdda), rtol=1e-8, atol=1e-9)


def test_derive_auto_gives_the_loop_quantities_form_or_the_compact_form_and_says_why(capsys):
    path = str(robot_path("four_bar"))
    assert main(["derive", path, "--format", "markdown", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "## Loop quantities" in out and "W_{2 1}" in out and not err
    assert main(["derive", path, "--format", "markdown", "--quiet", "--time-limit", "1e-9"]) == 0
    out, err = capsys.readouterr()
    assert "did not finish" in err and "recursive form is given instead" in err
    assert "## Loop closure: passive positions" in out and "## W_p = d q_p / d q_a" in out
    assert main(["derive", path, "--form", "closed", "--quiet", "--time-limit", "1e-9"]) == 2
    err = capsys.readouterr().err
    assert "--form compact" in err and len(err.strip().splitlines()) == 1


def test_derive_compact_of_a_parallelogram_arm_prints_its_linear_closure(capsys):
    assert main(["derive", str(robot_path("palletizer_parallelogram")), "--form", "compact", "--format", "markdown",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "qp3 = q3 - q2" in out   # the tree's q3 = q4 - q2, its actuated q4 renumbered q3
    assert "## W_p" not in out      # a linear closure's W_p is its matrix A, nothing to compute
