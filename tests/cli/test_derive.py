"""The derive and codegen commands: ROBMAT's double pendulum end to end, outputs, one-line errors."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
import sympy as sp

from designer.cli import main
from designer.model import symbol

from tests.support import robot_path

DP = str(robot_path("double_pendulum"))


def _robmat():
    """ROBMAT section 5, Out[5]-Out[8], typed from the paper."""
    L1, L2, m1, m2, g, q1, q2 = (symbol(s) for s in ("L1", "L2", "m1", "m2", "g", "q1", "q2"))
    c2, s2 = sp.cos(q2), sp.sin(q2)
    return {
        "M": sp.Matrix([[L1**2 * m1 + L1**2 * m2 + 2 * c2 * L1 * L2 * m2 + L2**2 * m2, L2 * (c2 * L1 + L2) * m2],
                        [L2 * (c2 * L1 + L2) * m2, L2**2 * m2]]),
        "B": sp.Matrix([[-L1 * L2 * m2 * s2], [0]]),
        "C": sp.Matrix([[0, -L1 * L2 * m2 * s2], [L1 * L2 * m2 * s2, 0]]),
        "G": sp.Matrix([g * (L1 * m1 * sp.sin(q1) + L1 * m2 * sp.sin(q1) + L2 * m2 * sp.sin(q1 + q2)),
                        g * L2 * m2 * sp.sin(q1 + q2)]),
    }


def test_derive_json_reproduces_robmat(capsys):
    assert main(["derive", DP]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # no progress lines when stderr is not a terminal
    doc = json.loads(out)
    s = doc["symbols"]
    local = {n: symbol(n) for n in s["q"] + s["qd"] + s["qdd"] + s["parameters"]}
    for name, expected in _robmat().items():
        got = sp.Matrix([[sp.sympify(t, locals=local) for t in row] for row in doc["matrices"][name]["entries"]])
        assert (got - expected).applyfunc(lambda e: sp.simplify(sp.expand_trig(e))) == sp.zeros(*expected.shape), name


@pytest.mark.parametrize("fmt,suffix,marker", [("latex", ".tex", r"\begin{document}"),
                                               ("markdown", ".md", "| *i* | link | joint"),
                                               ("html", ".html", "<math")])
def test_derive_writes_documents(fmt, suffix, marker, tmp_path):
    out = tmp_path / f"eq{suffix}"
    assert main(["derive", DP, "--method", "newton-euler", "--format", fmt, "--out", str(out)]) == 0
    assert marker in out.read_text(encoding="utf-8")
    # the format follows the suffix when --format is not given
    other = tmp_path / f"again{suffix}"
    assert main(["derive", DP, "--simplify", "off", "--out", str(other)]) == 0
    assert marker in other.read_text(encoding="utf-8")


def test_derive_refuses_an_out_suffix_it_does_not_know(tmp_path, capsys):
    """JSON written into eq.xyz or eq would only be found out when the file is opened: refused, nothing written."""
    for name, said in (("eq.xyz", "unknown suffix '.xyz'"), ("eq", "no suffix")):
        out = tmp_path / name
        assert main(["derive", DP, "--simplify", "off", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err and ".json" in err and ".tex" in err and "--format" in err
        assert not out.exists()
    # an explicit --format takes any name; the suffix is matched without regard to case
    assert main(["derive", DP, "--simplify", "off", "--format", "json", "--out", str(tmp_path / "eq.xyz")]) == 0
    assert "matrices" in json.loads((tmp_path / "eq.xyz").read_text(encoding="utf-8"))
    assert main(["derive", DP, "--simplify", "off", "--out", str(tmp_path / "EQ.MD")]) == 0
    assert "| *i* | link | joint" in (tmp_path / "EQ.MD").read_text(encoding="utf-8")


def test_codegen_python_matches_robmat_numbers(tmp_path):
    out = tmp_path / "dp_dynamics.py"
    assert main(["codegen", DP, "--lang", "python", "--out", str(out)]) == 0
    spec = importlib.util.spec_from_file_location("dp_dynamics", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mats = _robmat()
    L1, L2, m1, m2, g = (symbol(s) for s in ("L1", "L2", "m1", "m2", "g"))
    values = {L1: 1.0, L2: 0.8, m1: 2.0, m2: 1.0, g: 9.81}  # the project's defaults
    q = [0.4, -1.1]
    at = {symbol("q1"): q[0], symbol("q2"): q[1], **values}
    np.testing.assert_allclose(mod.mass_matrix(q), np.array(mats["M"].subs(at), dtype=float), rtol=1e-12)
    np.testing.assert_allclose(mod.gravity(q), np.array(mats["G"].subs(at), dtype=float).ravel(), rtol=1e-12)


def test_codegen_c_to_stdout(capsys):
    assert main(["codegen", DP, "--lang", "c", "--prefix", "pend"]) == 0
    out = capsys.readouterr().out
    assert "void pend_tau(const double *q, const double *qd, const double *qdd, const double *p, double *out)" in out


@pytest.mark.parametrize("argv,needle", [
    (["derive", "no/such/project.json"], "no/such/project.json"),
    (["codegen", "no/such/project.json", "--lang", "c"], "no/such/project.json"),
])
def test_errors_are_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and needle in err


def test_bad_project_and_bad_output_path(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "manipulator-designer", "version": 1, "links": []}', encoding="utf-8")
    assert main(["derive", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "links" in err
    assert main(["derive", DP, "--out", str(tmp_path / "missing" / "eq.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err


def test_bad_choice_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["derive", DP, "--method", "kane"])
    assert exc.value.code == 2


# a modified-DH (Craig) arm with a prismatic joint and full, non-diagonal inertia tensors
RPR_MODIFIED = {
    "format": "manipulator-designer", "version": 1, "name": "RPR modified", "convention": "modified",
    "gravity": [0, "-g", 0], "parameters": {"l1": 0.5, "m1": 2.0, "m2": 1.5, "m3": 0.7, "g": 9.81},
    "links": [
        {"joint": "R", "a": 0, "alpha": 0, "d": 0.1, "theta": 0, "mass": "m1", "com": ["l1/2", 0.02, 0],
         "inertia": {"xx": 0.02, "yy": 0.05, "zz": 0.06, "xy": 0.003}},
        {"joint": "P", "a": "l1", "alpha": "pi/2", "d": 0.2, "theta": 0.3, "mass": "m2", "com": [0, 0.05, -0.1],
         "inertia": {"xx": 0.03, "yy": 0.03, "zz": 0.01, "yz": 0.002}},
        {"joint": "R", "a": 0.1, "alpha": "-pi/2", "d": 0, "theta": 0, "mass": "m3", "com": [0.1, 0, 0.03],
         "inertia": {"xx": 0.004, "yy": 0.006, "zz": 0.005, "xz": -0.001}},
    ],
}


@pytest.mark.skipif(__import__("shutil").which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("form", ["compact", "derived"])
@pytest.mark.parametrize("arm", ["stanford_modified", "rpr_modified"])
def test_codegen_c_of_a_derived_arm_agrees_with_numeric_newton_euler(arm, form, tmp_path):
    """ROBMAT's modified Stanford arm (prismatic boom) and a Craig-convention RPR arm with full inertias:
    generated C and Python against the numeric recursive dynamics."""
    import ctypes
    import subprocess

    from designer.kinematics import NumericArm
    from designer.numeric import recursive as rec
    from designer.project import load_project

    if arm == "rpr_modified":
        (tmp_path / "rpr.json").write_text(json.dumps(RPR_MODIFIED), encoding="utf-8")
        path = str(tmp_path / "rpr.json")
    else:
        path = str(robot_path(arm))
    assert main(["codegen", path, "--lang", "python", "--form", form, "--out", str(tmp_path / "st.py")]) == 0
    assert main(["codegen", path, "--lang", "c", "--form", form, "--prefix", "st",
                 "--out", str(tmp_path / "st.c")]) == 0
    spec = importlib.util.spec_from_file_location("st", tmp_path / "st.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC",
                          str(tmp_path / "st.c"), "-o", str(tmp_path / "libst.so"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    so = ctypes.CDLL(str(tmp_path / "libst.so"))
    arm = NumericArm.from_model(load_project(path))
    p = np.array(mod.DEFAULTS, dtype=float)  # the C file takes p in the same (sorted) order
    dbl = ctypes.POINTER(ctypes.c_double)
    rng = np.random.default_rng(5)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 3))
        tau, M = np.zeros(3), np.zeros(9)
        so.st_tau(*(a.ctypes.data_as(dbl) for a in (q, qd, qdd, p, tau)))
        so.st_mass_matrix(*(a.ctypes.data_as(dbl) for a in (q, p, M)))
        np.testing.assert_allclose(tau, rec.rnea(arm, q, qd, qdd), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(M.reshape(3, 3), rec.mass_matrix(arm, q), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(mod.gravity(q), rec.gravity_torque(arm, q), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(mod.bias(q, qd), rec.bias(arm, q, qd), rtol=1e-9, atol=1e-9)
