"""The regressor and linearize commands, and codegen's C header, MATLAB folder and base parameters."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.support import robot_path
from designer.cli import main
from designer.kinematics import NumericArm
from designer.project import load_project

SCARA = str(robot_path("scara"))
TWO = str(robot_path("planar_two_link"))


def test_regressor_base_json_and_excitation(tmp_path, capsys):
    out = tmp_path / "traj.csv"
    assert main(["regressor", SCARA, "--base", "--excite", "--excite-out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "base" and data["count"] == len(data["parameters"]) == data["rank"]
    assert data["count"] + len(data["dropped"]) == 40
    assert 1 <= data["excitation"]["condition"] < 1e6
    # the trajectory it wrote gives the same condition number when read back
    assert main(["regressor", SCARA, "--base", "--trajectory", str(out)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["excitation"]["condition"] == pytest.approx(data["excitation"]["condition"], rel=1e-9)
    rows = np.loadtxt(out, delimiter=",", skiprows=1)
    q = rows[:, 1:5]
    limits = NumericArm.from_model(load_project(SCARA)).limits  # the joint ranges written in the file
    assert np.all(q >= limits[:, 0]) and np.all(q <= limits[:, 1])


@pytest.mark.parametrize("fmt,needle", [("markdown", "| parameter | formula | value |"),
                                        ("latex", "\\begin{longtable}"), ("html", "<table")])
def test_regressor_reports(fmt, needle, capsys):
    assert main(["regressor", TWO, "--base", "--format", fmt]) == 0
    assert needle in capsys.readouterr().out


def test_regressor_standard_lists_ten_per_link(capsys):
    assert main(["regressor", TWO]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "standard" and data["count"] == 20
    names = [p["name"] for p in data["parameters"]]
    assert names[:10] == ["m1", "mx1", "my1", "mz1", "XX1", "XY1", "XZ1", "YY1", "YZ1", "ZZ1"]


def test_linearize_json_matlab_python(capsys, tmp_path):
    assert main(["linearize", TWO, "--q", "0.1", "pi/4", "--dt", "0.01", "--method", "tustin"]) == 0
    data = json.loads(capsys.readouterr().out)
    A, B = np.array(data["A"]), np.array(data["B"])
    assert A.shape == (4, 4) and B.shape == (4, 2) and data["discrete"]["method"] == "tustin"
    assert np.allclose(B[2:], np.linalg.inv(np.array(data["M"])))
    assert main(["linearize", TWO, "--q", "0.1", "pi/4", "--format", "python", "--out", str(tmp_path / "lin.py")]) == 0
    scope: dict = {}
    exec((tmp_path / "lin.py").read_text(), scope)  # the file is our own output: numpy arrays only
    assert np.allclose(scope["A"], A)
    assert main(["linearize", TWO, "--q", "0.1", "pi/4", "--format", "matlab"]) == 0
    assert "A = [" in capsys.readouterr().out


@pytest.mark.parametrize("argv,needle", [
    (["linearize", TWO, "--q", "0.1"], "--q: 2 joint values"),
    (["linearize", TWO, "--dt", "-1"], "--dt: -1 is out of range: give above 0"),
    (["regressor", TWO, "--trajectory", "no/such.csv"], "no/such.csv"),
    (["codegen", TWO, "--lang", "matlab"], "--out DIRECTORY"),
])
def test_errors_are_one_line(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_codegen_matlab_folder_and_c_header(tmp_path):
    assert main(["codegen", TWO, "--lang", "matlab", "--prefix", "two", "--out", str(tmp_path / "m")]) == 0
    files = sorted(p.name for p in (tmp_path / "m").iterdir())
    assert files == ["two_bias.m", "two_coriolis_matrix.m", "two_gravity.m", "two_mass_matrix.m",
                     "two_prepare.m", "two_regressor.m", "two_tau.m"]   # prepare: tau's parameter-only work
    assert main(["codegen", TWO, "--lang", "c", "--prefix", "two", "--parameters", "base",
                 "--out", str(tmp_path / "two.c")]) == 0
    header = (tmp_path / "two.h").read_text()
    assert "#define TWO_N_JOINTS 2" in header and "two_bias" in header and "two_default_parameters" in header
    assert '#include "two.h"' in (tmp_path / "two.c").read_text()


def test_codegen_python_with_base_parameters(tmp_path):
    import importlib.util

    from designer.numeric import rnea
    out = tmp_path / "two_base.py"
    assert main(["codegen", TWO, "--lang", "python", "--parameters", "base", "--out", str(out)]) == 0
    spec = importlib.util.spec_from_file_location("two_base", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.PARAMETERS[:6] == ("mxR1", "my1", "ZZR1", "mxR2", "my2", "ZZR2")
    arm = NumericArm.from_model(load_project(TWO))
    rng = np.random.default_rng(0)
    for _ in range(5):
        q, qd, qdd = rng.normal(size=(3, 2))
        np.testing.assert_allclose(mod.tau(q, qd, qdd), rnea(arm, q, qd, qdd), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(mod.coriolis_matrix(q, qd) @ qd, mod.bias(q, qd), atol=1e-12)


def test_regressor_with_drive_parameters(tmp_path, capsys):
    doc = json.loads(Path(TWO).read_text())
    doc["version"] = 2
    doc["links"][0]["drive"] = {"gear_ratio": 100, "motor_inertia": 1e-4, "viscous": 0.5, "coulomb": 0.2}
    path = tmp_path / "two_drives.json"
    path.write_text(json.dumps(doc))
    assert main(["regressor", str(path), "--drives"]) == 0
    rows = {p["name"]: p["value"] for p in json.loads(capsys.readouterr().out)["parameters"]}
    assert rows["Ia1"] == pytest.approx(100 ** 2 * 1e-4) and rows["fv1"] == 0.5 and rows["fc1"] == 0.2
    assert main(["regressor", str(path), "--drives", "--base"]) == 0
    data = json.loads(capsys.readouterr().out)
    # Ia1 multiplies qdd1 alone, as ZZR1 does in a planar arm: one of them is grouped into the other
    assert data["count"] == 6 + 3 - 1 and ("Ia1" in data["dropped"]) != ("ZZ1" in data["dropped"])
