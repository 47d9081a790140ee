"""Generated C and Python code: the same numbers as the symbolic equations, CSE applied, clean compile."""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from designer.codegen import plan_code
from tests.support.codegen import generate
from designer.dynamics.results import Equations, Method
from designer.model import Link, Manipulator, symbol

from tests.support.report_equations import assemble, awkward_three_link, robmat_double_pendulum


def clashing_names() -> Equations:
    """Parameters named like C keywords, our array arguments and CSE temporaries."""
    x0, p, q, out, int_ = (symbol(s) for s in ("x0", "p", "q", "out", "int"))
    model = Manipulator(links=(Link(a=x0, mass=int_), Link(joint="P", a=q, mass=out)), gravity=(0, 0, -p),
                        parameters={"x0": 0.7, "p": 9.81, "q": 0.3, "out": 1.5, "int": 2.0})
    q1, q2 = model.q
    M = sp.Matrix([[int_ * x0**2 + out * (q + q2) ** 2, out * x0 * sp.cos(q1)],
                   [out * x0 * sp.cos(q1), out]])
    B = sp.Matrix([[out * (q + q2)], [0]])
    C = sp.Matrix([[0, -out * x0 * sp.sin(q1)], [-out * (q + q2), 0]])
    G = sp.Matrix([p * int_ * x0 * sp.cos(q1), p * out * sp.sin(q1)])
    return assemble(model, Method.LAGRANGE, M, B, C, G)


CASES = [robmat_double_pendulum, awkward_three_link, clashing_names]


def _param_values(eq, rng):
    names = [name for name, _ in plan_code(eq, "derived").parameters]
    return names, rng.uniform(0.3, 2.0, len(names))


def _reference(eq, names, values):
    """lambdify of the original (un-CSE'd) matrices."""
    m = eq.model
    syms = [*m.q, *m.qd, *m.qdd, *(symbol(n) for n in names)]
    f = {k: sp.lambdify(syms, mat, "numpy") for k, mat in
         (("tau", eq.tau), ("mass_matrix", eq.mass_matrix), ("gravity", eq.gravity), ("bias", eq.coriolis))}
    return lambda k, q, qd, qdd: np.array(f[k](*q, *qd, *qdd, *values), dtype=float).reshape(-1)


def _load_module(source: str, path):
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("make", CASES)
def test_python_module_matches_lambdify(make, tmp_path):
    eq = make()
    rng = np.random.default_rng(7)
    names, values = _param_values(eq, rng)
    mod = _load_module(generate(eq, "python", form="derived"), tmp_path / f"gen_{make.__name__}.py")
    assert list(mod.PARAMETERS) == names and mod.N_JOINTS == eq.n
    ref = _reference(eq, names, values)
    n = eq.n
    for _ in range(10):
        q, qd, qdd = rng.uniform(-3, 3, (3, n))
        np.testing.assert_allclose(mod.tau(q, qd, qdd, values), ref("tau", q, qd, qdd), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(mod.mass_matrix(q, values).reshape(-1), ref("mass_matrix", q, qd, qdd),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(mod.gravity(q, values), ref("gravity", q, qd, qdd), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(mod.bias(q, qd, values), ref("bias", q, qd, qdd), rtol=1e-12, atol=1e-12)


def test_python_module_vectorised_and_defaults(tmp_path):
    eq = robmat_double_pendulum()
    mod = _load_module(generate(eq, "python", form="derived"), tmp_path / "gen_dp.py")
    rng = np.random.default_rng(3)
    Q, QD, QDD = rng.uniform(-3, 3, (3, 2, 50))
    many = mod.tau(Q, QD, QDD)
    assert many.shape == (2, 50) and mod.mass_matrix(Q).shape == (2, 2, 50)
    for k in (0, 17, 49):
        np.testing.assert_allclose(many[:, k], mod.tau(Q[:, k], QD[:, k], QDD[:, k]), rtol=1e-14)
    # defaults are the project's: L1=1, L2=0.8, m1=2, m2=1, g=9.81 -> M22 = L2^2 m2
    assert mod.mass_matrix([0.3, 0.2])[1, 1] == pytest.approx(0.64)
    with pytest.raises(ValueError, match="5 parameter values needed"):
        mod.gravity([0, 0], [1.0])


def test_missing_default_is_named(tmp_path):
    mod = _load_module(generate(awkward_three_link(), "python", form="derived"), tmp_path / "gen_aw.py")
    with pytest.raises(ValueError, match="k_2"):
        mod.gravity([0, 0, 0])


def test_cse_shrinks_the_code():
    eq = awkward_three_link()
    plan = plan_code(eq, "derived")
    tau = next(f for f in plan.functions if f.name == "tau")
    assert tau.temps  # common subexpressions were found
    assert tau.operations < sum(sp.count_ops(e) for e in eq.tau)
    M = next(f for f in plan.functions if f.name == "mass_matrix")
    assert len(M.outputs) == 6  # upper triangle of a symmetric 3x3


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("make", CASES)
def test_c_compiles_cleanly_and_matches(make, tmp_path):
    eq = make()
    src = tmp_path / "arm.c"
    src.write_text(generate(eq, "c", prefix="arm", form="derived"), encoding="utf-8")
    lib = tmp_path / "libarm.so"
    run = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC",
                          str(src), "-o", str(lib), "-lm"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    so = ctypes.CDLL(str(lib))
    rng = np.random.default_rng(11)
    names, values = _param_values(eq, rng)
    ref = _reference(eq, names, values)
    n = eq.n
    dbl = ctypes.POINTER(ctypes.c_double)

    def arr(x):
        return np.ascontiguousarray(x, dtype=float)

    p = arr(values if len(values) else [0.0])
    for _ in range(10):
        q, qd, qdd = (arr(v) for v in rng.uniform(-3, 3, (3, n)))
        outs = {}
        for name, args, size in (("tau", (q, qd, qdd), n), ("mass_matrix", (q,), n * n), ("gravity", (q,), n),
                                 ("bias", (q, qd), n)):
            out = np.full(size, np.nan)
            getattr(so, f"arm_{name}")(*(a.ctypes.data_as(dbl) for a in (*args, p, out)))
            outs[name] = out
            np.testing.assert_allclose(out, ref(name, q, qd, qdd), rtol=1e-12, atol=1e-12, err_msg=name)


def test_c_header_defaults_are_the_shortest_exact_numbers(tmp_path):
    """Issue 29 item 11: the header's defaults read 0.40000000000000002 (17 digits): now the shortest text that
    reads back as the same double, the project's own number."""
    import re

    from designer.cli import main
    from designer.project import load_project
    from tests.support import robot_path
    path = robot_path("four_bar")
    assert main(["codegen", str(path), "--lang", "c", "--quiet", "--out", str(tmp_path / "arm.c")]) == 0
    header = (tmp_path / "arm.h").read_text(encoding="utf-8")
    shown = dict(re.findall(r"p\[\d+\] = (\w+)  \(default ([^)]+)\)", header))
    values = load_project(path).parameter_values
    assert shown and set(shown) <= set(values)
    for name, text in shown.items():
        assert float(text) == values[name] and text == repr(float(values[name])), (name, text)
    assert "(default 0.4)" in header
