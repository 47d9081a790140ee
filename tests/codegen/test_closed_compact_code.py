"""C and MATLAB code of closed chains' compact form, compiled and run, against the numeric projection
(designer.numeric.closed, itself checked against Pinocchio in tests/dynamics/test_closed_numeric.py).

The four-bar's code computes its passive positions from the two circles; a loop without a closed-form
closure takes them as its ``qp`` argument; the SR400's from its linear closure.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from designer.cli import main
from designer.codegen.c_library import emit_c_library
from designer.codegen.files import full_plan
from designer.codegen.matlab_code import emit_matlab
from designer.dynamics.closed_compact import closed_compact_equations_job
from designer.jobs import run
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.codegen.test_control_codegen import _c_call, _compile, _octave
from tests.dynamics.test_closed_compact import FUNCS, fixed_cut_four_bar
from tests.support import robot_path

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


def _check(lib, prefix, cd, qp_input: bool, seed: int = 3) -> None:
    n, rng = cd.n, np.random.default_rng(seed)
    for _ in range(4):
        qa, qda, qdda = rng.uniform(-0.6, 0.6, n), rng.normal(size=n), rng.normal(size=n)
        q = cd.positions(qa)
        first = (qa, q[cd.pas]) if qp_input else (qa,)
        got = {"tau": _c_call(lib, f"{prefix}_tau", (*first, qda, qdda), None, n),
               "M": _c_call(lib, f"{prefix}_mass_matrix", first, None, n * n).reshape(n, n),
               "G": _c_call(lib, f"{prefix}_gravity", first, None, n),
               "h": _c_call(lib, f"{prefix}_bias", (*first, qda), None, n)}
        want = {"tau": cd.tau(qa, qda, qdda), "M": cd.M(qa), "G": cd.G(qa), "h": cd.h(qa, qda)}
        for key, value in want.items():
            assert np.abs(got[key] - value).max() < 1e-10 * max(1.0, np.abs(value).max()), key


def test_four_bar_c_code_from_the_command_line(tmp_path):
    """`codegen --lang c` on the four-bar (no closed form): the compact form, compiled with -Werror."""
    path = robot_path("four_bar")
    assert main(["codegen", str(path), "--lang", "c", "--quiet", "--prefix", "fb", "--out",
                 str(tmp_path / "fb.c")]) == 0
    source, header = (tmp_path / "fb.c").read_text(), (tmp_path / "fb.h").read_text()
    assert "four-bar's two circles" in source
    lib = _compile(tmp_path / ".", source, header, "fb")
    _check(lib, "fb", ClosedDynamics(load_project(path)), False)


@pytest.mark.parametrize("which", ["acma_sr400", "fixed-cut"])
def test_compact_c_code_compiles_and_matches(which, tmp_path):
    model = fixed_cut_four_bar(2) if which == "fixed-cut" else load_project(robot_path(which))
    eq = run(closed_compact_equations_job(model))
    source, header = emit_c_library(full_plan(eq, "compact", only=FUNCS), "arm", "arm.h")
    lib = _compile(tmp_path, source, header, "arm")
    _check(lib, "arm", ClosedDynamics(model), which == "fixed-cut")


OCTAVE = shutil.which("octave-cli")


@pytest.mark.slow
@pytest.mark.skipif(OCTAVE is None, reason="GNU Octave (octave-cli) not installed")
def test_four_bar_matlab_code_under_octave(tmp_path):
    model = load_project(robot_path("four_bar"))
    eq = run(closed_compact_equations_job(model))
    for name, text in emit_matlab(full_plan(eq, "compact", only=FUNCS), "fb").items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    cd = ClosedDynamics(model)
    N, rng = 6, np.random.default_rng(5)
    Q, QD, QDD = rng.uniform(-0.6, 0.6, (3, 1, N))
    for name, a in (("Q", Q), ("QD", QD), ("QDD", QDD)):
        np.savetxt(tmp_path / f"{name}.txt", a)
    _octave(tmp_path, "Q = load('Q.txt'); QD = load('QD.txt'); QDD = load('QDD.txt');"
            "tau = fb_tau(Q, QD, QDD); M = fb_mass_matrix(Q); G = fb_gravity(Q); h = fb_bias(Q, QD);"
            "save('-ascii', '-double', 'out.txt', 'tau', 'M', 'G', 'h');")
    out = np.loadtxt(tmp_path / "out.txt").reshape(4, N)
    for k in range(N):
        qa, qda, qdda = Q[:, k], QD[:, k], QDD[:, k]
        want = [cd.tau(qa, qda, qdda)[0], cd.M(qa)[0, 0], cd.G(qa)[0], cd.h(qa, qda)[0]]
        assert np.allclose(out[:, k], want, rtol=1e-10, atol=1e-10)


def test_codegen_form_compact_asked_for_gives_a_parallelogram_arms_compact_code(tmp_path):
    """A linear closure: the closed form by default, the compact form with --form compact (Python, run)."""
    import importlib.util
    path = robot_path("palletizer_parallelogram")
    assert main(["codegen", str(path), "--lang", "python", "--quiet", "--out", str(tmp_path / "closed.py")]) == 0
    assert "compact closed-chain form" not in (tmp_path / "closed.py").read_text()
    assert main(["codegen", str(path), "--lang", "python", "--quiet", "--form", "compact", "--out",
                 str(tmp_path / "pal.py")]) == 0
    assert "compact closed-chain form" in (tmp_path / "pal.py").read_text()
    spec = importlib.util.spec_from_file_location("pal_compact", tmp_path / "pal.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cd = ClosedDynamics(load_project(path))
    rng = np.random.default_rng(8)
    qa, qda, qdda = rng.uniform(-0.6, 0.6, 4), rng.normal(size=4), rng.normal(size=4)
    assert np.allclose(mod.tau(qa, qda, qdda), cd.tau(qa, qda, qdda), rtol=1e-10, atol=1e-9)
    assert np.allclose(np.asarray(mod.mass_matrix(qa)).reshape(4, 4), cd.M(qa), rtol=1e-10, atol=1e-9)


def test_the_windows_export_writes_every_function_of_a_four_bar(tmp_path):
    """generate_files (File > Export > code): tau, M, G, h, the Coriolis matrix and the regressor of the
    compact form (the regressor's values: tests/codegen/test_closed_compact_regressor.py)."""
    from designer.codegen.files import generate_files
    from designer.dynamics import derive
    eq = derive(load_project(robot_path("four_bar")), form="compact")   # what the window derives for a four-bar
    text = next(iter(generate_files(eq, "python", str(tmp_path / "fb.py")).values()))
    for name in ("tau", "mass_matrix", "gravity", "bias", "coriolis_matrix", "regressor"):
        assert f"def {name}(" in text
