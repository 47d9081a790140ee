"""``codegen --functions``: only the functions asked for, each the same physics as in the full output."""

from __future__ import annotations

import importlib.util

import numpy as np
import pinocchio as pin
import pytest

from designer.cli import main
from designer.project import load_project
from tests.support import robot_path
from tests.support.dyn_reference import pin_model, pin_rnea_crba


def _module(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("parameters", ["standard", "base"])
@pytest.mark.parametrize("asked, names", [("tau,M", {"tau", "mass_matrix"}),
                                          ("G,bias", {"gravity", "bias"}),
                                          ("coriolis_matrix", {"coriolis_matrix"})])
def test_only_the_functions_asked_for(tmp_path, parameters, asked, names):
    """The module has exactly the functions named, and they agree with Pinocchio at random states
    (the bias through C(q, qd) qd when only C is asked: h from Pinocchio)."""
    project = robot_path("puma560")
    out = tmp_path / f"puma_{parameters}_{len(names)}.py"
    assert main(["codegen", str(project), "--lang", "python", "--parameters", parameters, "--functions", asked,
                 "--out", str(out), "--quiet"]) == 0
    mod = _module(out)
    every = {"tau", "mass_matrix", "gravity", "bias", "coriolis_matrix", "regressor"}
    assert {f for f in every if hasattr(mod, f)} == names
    pm = pin_model(load_project(project))
    data = pm.createData()
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, qd, qdd = rng.uniform(-2, 2, (3, 6))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        g_ref = pin.computeGeneralizedGravity(pm, data, q)
        h_ref = pin.rnea(pm, data, q, qd, np.zeros(6)) - g_ref
        if "tau" in names:
            np.testing.assert_allclose(mod.tau(q, qd, qdd), tau_ref, atol=1e-10 * np.abs(tau_ref).max())
            np.testing.assert_allclose(mod.mass_matrix(q), M_ref, atol=1e-10 * np.abs(M_ref).max())
        if "gravity" in names:
            np.testing.assert_allclose(mod.gravity(q), g_ref, atol=1e-10 * np.abs(g_ref).max())
            np.testing.assert_allclose(mod.bias(q, qd), h_ref, atol=1e-10 * np.abs(h_ref).max())
        if "coriolis_matrix" in names:
            np.testing.assert_allclose(mod.coriolis_matrix(q, qd) @ qd, h_ref, atol=1e-10 * np.abs(h_ref).max())


def test_an_unknown_function_is_one_line(tmp_path, capsys):
    out = tmp_path / "x.py"
    assert main(["codegen", str(robot_path("puma560")), "--lang", "python", "--functions", "tau,torque",
                 "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "unknown function 'torque'" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("asked", ["tau,M", "h", "C"])
def test_with_drives_the_chosen_functions_are_those_of_the_full_output(tmp_path, asked):
    """--drives with only some functions: the same numbers as the same functions of the full output
    (whose drive terms are checked against Pinocchio in test_control_codegen)."""
    project = str(robot_path("puma560"))
    full, part = tmp_path / "full.py", tmp_path / "part.py"
    assert main(["codegen", project, "--lang", "python", "--drives", "--out", str(full), "--quiet"]) == 0
    assert main(["codegen", project, "--lang", "python", "--drives", "--functions", asked, "--out", str(part),
                 "--quiet"]) == 0
    a, b = _module(full), _module(part)
    assert "Coulomb" in part.read_text() or "friction" in part.read_text()   # the header states the drive terms
    rng = np.random.default_rng(8)
    q, qd, qdd = rng.uniform(-2, 2, (3, 6))
    checked = 0
    for name, args in (("tau", (q, qd, qdd)), ("mass_matrix", (q,)), ("bias", (q, qd)),
                       ("coriolis_matrix", (q, qd))):
        if hasattr(b, name):
            np.testing.assert_allclose(getattr(b, name)(*args), getattr(a, name)(*args), rtol=1e-13, atol=1e-13)
            checked += 1
    assert checked == len(asked.split(","))
