"""Code for the control engineer: the symbolic regressor and base-parameter recursions, the C
library (header, defaults, NULL p, bias, Coriolis matrix, regressor) and the MATLAB files under
GNU Octave, all against Pinocchio (directly or through the numeric regressor tested against it)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from tests.support import robot_path
from designer.codegen.c_library import emit_c_library
from designer.codegen.control_plan import extra_functions
from designer.identification.code_plan import plan_base_code
from designer.codegen.matlab_code import emit_matlab
from designer.codegen.plan import plan_code
from designer.dynamics import Method, SimplifyMode, derive
from designer.dynamics.algebra import count_ops_cse
from designer.identification.base_params import base_parameters
from designer.dynamics.standard_ne import standard_mass_matrix, standard_tau, standard_tau_steps, symbolic_regressor
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.identification.regressor import regressor
from designer.dynamics.inertial import standard_parameter_values
from designer.project import load_project
from tests.support.dyn_reference import pin_model, pin_rnea_crba, puma560, seven_modified
from tests.support.random_models import random_model

pin = pytest.importorskip("pinocchio")


def _lambdify(model, exprs, extra=(), cse=True):
    """``cse=False`` for the regressor's graphs: sympy's cse inside lambdify gets some of them wrong
    (right-angled arms: columns off by O(1) while evaluating the same expressions by substitution
    agrees with Pinocchio; the generated code, from our own CSE, is right)."""
    subs = model.substitutions(require_all=False)
    flat = [sp.sympify(e).xreplace(subs) for e in exprs]
    f = sp.lambdify([list(model.q), list(model.qd), list(model.qdd), list(extra)], flat, "numpy", cse=cse)
    return lambda q, qd, qdd, p=(): np.array(f(q, qd, qdd, p), dtype=float)


@pytest.mark.parametrize("right_angles", [False, True])
@pytest.mark.parametrize("convention", list(Convention))
def test_symbolic_regressor_is_the_numeric_one(convention, right_angles):
    """Float twists, and right angles with zero lengths (RPRP: the arm on which sympy's cse inside
    lambdify went wrong, hence no cse there)."""
    n = 4 if right_angles else 3
    model = random_model(np.random.default_rng(1 if right_angles else 8), n, convention, right_angles)
    Y, names = symbolic_regressor(model)
    f = _lambdify(model, list(Y), cse=not right_angles)
    arm = NumericArm.from_model(model)
    rng = np.random.default_rng(1)
    for _ in range(4):
        q, qd, qdd = rng.normal(size=(3, n))
        np.testing.assert_allclose(f(q, qd, qdd).reshape(n, 10 * n), regressor(arm, q, qd, qdd), atol=1e-10)


@pytest.mark.parametrize("make", [lambda: puma560(symbolic_inertia=True), seven_modified,
                                  lambda: random_model(np.random.default_rng(4), 5, Convention.STANDARD, True)])
def test_base_parameter_recursions_give_tau_and_m(make):
    model = make()
    bp = base_parameters(model)
    inputs = bp.joint_frame_inputs()
    syms = [sp.Symbol(s, real=True) for s in bp.names]
    tau_f = _lambdify(model, list(standard_tau(model, inputs)), syms)
    M_f = _lambdify(model, list(standard_mass_matrix(model, inputs)), syms)
    beta = bp.values(standard_parameter_values(NumericArm.from_model(model)))
    pm = pin_model(model)
    rng = np.random.default_rng(3)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, model.n))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        np.testing.assert_allclose(tau_f(q, qd, qdd, beta), tau_ref, atol=1e-10 * np.abs(tau_ref).max())
        np.testing.assert_allclose(M_f(q, qd, qdd, beta).reshape(model.n, model.n), M_ref,
                                   atol=1e-10 * np.abs(M_ref).max())


def _with_parallel_joints(convention: Convention, n: int):
    """A random right-angled arm with at least two consecutive parallel revolute joints (the
    recursion then turns by theta_1 + theta_2 at once)."""
    from designer.dynamics.customized import _chain
    from designer.dynamics.standard_ne import _parallel
    for seed in range(100):
        model = random_model(np.random.default_rng(seed), n, convention, True)
        chain = _chain(model)
        if sum(_parallel(a, b) for a, b in zip(chain, chain[1:])) >= 2:
            return model
    raise AssertionError("no arm with parallel joints among the seeds")


def _unnamed(steps: list, tau) -> list:
    """tau of :func:`standard_tau_steps` with the steps written back in."""
    env: dict = {}
    for sym, value in steps:
        env[sym] = value.xreplace(env)
    return [sp.sympify(t).xreplace(env) for t in tau]


@pytest.mark.parametrize("named", [False, True])
@pytest.mark.parametrize("convention", list(Convention))
def test_parallel_joints_tau_matches_pinocchio(convention, named):
    model = _with_parallel_joints(convention, 6)
    bp = base_parameters(model)
    syms = [sp.Symbol(s, real=True) for s in bp.names]
    inputs = bp.joint_frame_inputs()
    tau = (_unnamed(*standard_tau_steps(model, inputs, sp.numbered_symbols("s", real=True))) if named
           else list(standard_tau(model, inputs)))
    tau_f = _lambdify(model, tau, syms)
    beta = bp.values(standard_parameter_values(NumericArm.from_model(model)))
    pm = pin_model(model)
    rng = np.random.default_rng(5)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, model.n))
        tau_ref, _ = pin_rnea_crba(pm, q, qd, qdd)
        np.testing.assert_allclose(tau_f(q, qd, qdd, beta), tau_ref, atol=1e-10 * np.abs(tau_ref).max())


def test_puma_base_parameter_tau_is_cheaper():
    """Symbolic lengths and ten symbolic inertial parameters per link: 707 operations for tau with the
    standard parameters (benchmarks/bench_derive.py); far fewer with the base parameters, fewer
    still with each vector of the recursion a named step."""
    model = puma560(symbolic_inertia=True)
    inputs = base_parameters(model).joint_frame_inputs()
    ops = count_ops_cse(standard_tau(model, inputs))
    assert ops <= 600
    steps, tau = standard_tau_steps(model, inputs, sp.numbered_symbols("s", real=True))
    assert count_ops_cse([v for _, v in steps] + list(tau)) < ops


def _compile(tmp_path, source: str, header: str, name: str):
    (tmp_path / f"{name}.c").write_text(source, encoding="utf-8")
    (tmp_path / f"{name}.h").write_text(header, encoding="utf-8")
    flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]
    run = subprocess.run(["gcc", *flags, "-O0", "-shared", "-fPIC", str(tmp_path / f"{name}.c"), "-o",
                          str(tmp_path / f"lib{name}.so"), "-lm"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    if shutil.which("g++"):
        run = subprocess.run(["g++", "-Wall", "-Wextra", "-pedantic", "-Werror", "-x", "c++", "-fsyntax-only",
                              str(tmp_path / f"{name}.h")], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
    return ctypes.CDLL(str(tmp_path / f"lib{name}.so"))


def _c_call(lib, name, arrays, p, size):
    dbl = ctypes.POINTER(ctypes.c_double)
    out = np.zeros(size)
    args = [np.ascontiguousarray(a, dtype=float).ctypes.data_as(dbl) for a in arrays]
    pp = None if p is None else np.ascontiguousarray(p, dtype=float).ctypes.data_as(dbl)
    getattr(lib, name)(*args, pp, out.ctypes.data_as(dbl))
    return out


def _check_library(lib, prefix: str, model, p):
    n = model.n
    pm = pin_model(model)
    data = pm.createData()
    arm = NumericArm.from_model(model)
    rng = np.random.default_rng(9)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, n))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        G_ref = pin.computeGeneralizedGravity(pm, data, q)
        h_ref = pin.rnea(pm, data, q, qd, np.zeros(n)) - G_ref
        tol = 1e-10 * max(1.0, np.abs(tau_ref).max())
        assert np.abs(_c_call(lib, f"{prefix}_tau", (q, qd, qdd), p, n) - tau_ref).max() < tol
        M = _c_call(lib, f"{prefix}_mass_matrix", (q,), p, n * n).reshape(n, n)
        assert np.abs(M - M_ref).max() < 1e-10 * np.abs(M_ref).max()
        assert np.abs(_c_call(lib, f"{prefix}_gravity", (q,), p, n) - G_ref).max() < tol
        h = _c_call(lib, f"{prefix}_bias", (q, qd), p, n)
        assert np.abs(h - h_ref).max() < tol
        C = _c_call(lib, f"{prefix}_coriolis_matrix", (q, qd), p, n * n).reshape(n, n)
        assert np.abs(C @ qd - h_ref).max() < tol
        # Pinocchio's C is the Christoffel form too (the one whose dM/dt - 2C is skew by construction)
        C_ref = pin.computeCoriolisMatrix(pm, data, q, qd)
        assert np.abs(C - C_ref).max() < 1e-10 * max(1.0, np.abs(C_ref).max())
        # dM/dt - 2C is skew-symmetric: dM/dt by central differences of the generated M along qd
        e = 1e-6
        Mdot = (_c_call(lib, f"{prefix}_mass_matrix", (q + e * qd,), p, n * n)
                - _c_call(lib, f"{prefix}_mass_matrix", (q - e * qd,), p, n * n)).reshape(n, n) / (2 * e)
        S = Mdot - 2 * C
        assert np.abs(S + S.T).max() < 1e-6 * max(1.0, np.abs(Mdot).max())
        Y = _c_call(lib, f"{prefix}_regressor", (q, qd, qdd), p, n * 10 * n).reshape(n, 10 * n)
        assert np.abs(Y - regressor(arm, q, qd, qdd)).max() < 1e-10 * max(1.0, np.abs(Y).max())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_library_of_the_puma_with_base_parameters(tmp_path, puma_plan):
    model, plan = puma_plan
    source, header = emit_c_library(plan, "puma")
    assert 'extern "C"' in header and f"#define PUMA_N_JOINTS {model.n}" in header
    assert f"#define PUMA_N_PARAMETERS {len(plan.parameters)}" in header
    lib = _compile(tmp_path, source, header, "puma")
    _check_library(lib, "puma", model, None)  # NULL: the default (base) parameters
    defaults = np.array([v for _, v in plan.parameters])
    values = (ctypes.c_double * len(defaults)).in_dll(lib, "puma_default_parameters")
    assert np.array_equal(np.array(values), defaults)
    _check_library(lib, "puma", model, defaults)


@pytest.fixture(scope="module")
def seven_plan():
    """Seven joints, modified DH, RRPRRPR, standard parameters: the compact forms plus C(q, qd) and Y."""
    model = seven_modified()
    return model, extra_functions(plan_code(derive(model, Method.NEWTON_EULER, SimplifyMode.OFF)), model)


@pytest.fixture(scope="module")
def puma_plan():
    model = load_project(robot_path("puma560"))
    return model, plan_base_code(model, extras=True)[0]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_library_of_a_seven_joint_arm(tmp_path, seven_plan):
    model, plan = seven_plan
    source, header = emit_c_library(plan, "seven")
    lib = _compile(tmp_path, source, header, "seven")
    _check_library(lib, "seven", model, None)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("arm", ["modified", "standard", "kr5"])
def test_codegen_c_of_a_generic_seven_joint_arm(tmp_path, arm):
    """The whole command on arms with random twists and offsets, a prismatic joint and full inertias
    (their M a shared graph: C(q, qd) is differentiated on the graph, not as a tree; seven joints keep
    the graph CSE only, the KR5 with float twists also gets sympy's finer pass)."""
    from designer.cli import main
    from designer.project.io import save_project
    from tests.support.anyarm_arms import generic_arm, kr5
    model = kr5(True) if arm == "kr5" else generic_arm(7, seed=11, convention=Convention(arm))
    save_project(model, tmp_path / "arm.json")
    assert main(["codegen", str(tmp_path / "arm.json"), "--lang", "c", "--prefix", "arm",
                 "--out", str(tmp_path / "arm.c")]) == 0
    source, header = (tmp_path / "arm.c").read_text(), (tmp_path / "arm.h").read_text()
    lib = _compile(tmp_path, source, header, "arm")
    _check_library(lib, "arm", model, None)


OCTAVE = shutil.which("octave-cli")


def _octave(folder, script: str) -> None:
    run = subprocess.run([OCTAVE, "--no-gui", "--quiet", "--norc", "--eval", script], cwd=folder,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 or "ignoring const execution_exception" in run.stderr, run.stderr


@pytest.mark.slow
@pytest.mark.skipif(OCTAVE is None, reason="GNU Octave (octave-cli) not installed")
@pytest.mark.parametrize("which", ["puma", "seven"])
def test_matlab_files_under_octave_match_pinocchio(which, tmp_path, request):
    model, plan = request.getfixturevalue(f"{which}_plan")
    for name, text in emit_matlab(plan, "arm").items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    n, N = model.n, 20
    rng = np.random.default_rng(2)
    Q, QD, QDD = rng.uniform(-2.5, 2.5, (3, n, N))
    for name, a in (("Q", Q), ("QD", QD), ("QDD", QDD)):
        np.savetxt(tmp_path / f"{name}.txt", a)
    _octave(tmp_path, "Q = load('Q.txt'); QD = load('QD.txt'); QDD = load('QDD.txt');"
            "tau = arm_tau(Q, QD, QDD); M = arm_mass_matrix(Q); G = arm_gravity(Q); h = arm_bias(Q, QD);"
            "C = arm_coriolis_matrix(Q, QD); Y = arm_regressor(Q, QD, QDD);"
            "save('-ascii', '-double', 'tau.txt', 'tau'); save('-ascii', '-double', 'G.txt', 'G');"
            "save('-ascii', '-double', 'h.txt', 'h'); M = reshape(M, [], size(Q, 2));"
            "save('-ascii', '-double', 'M.txt', 'M'); C = reshape(C, [], size(Q, 2));"
            "save('-ascii', '-double', 'C.txt', 'C'); Y = reshape(Y, [], size(Q, 2));"
            "save('-ascii', '-double', 'Y.txt', 'Y');")
    tau, G, h = (np.loadtxt(tmp_path / f"{k}.txt").reshape(n, N) for k in ("tau", "G", "h"))
    M = np.loadtxt(tmp_path / "M.txt").reshape(n, n, N, order="F")  # column-major reshape in Octave
    C = np.loadtxt(tmp_path / "C.txt").reshape(n, n, N, order="F")
    Y = np.loadtxt(tmp_path / "Y.txt").reshape(n, 10 * n, N, order="F")
    pm = pin_model(model)
    data = pm.createData()
    arm = NumericArm.from_model(model)
    for k in range(N):
        q, qd, qdd = Q[:, k], QD[:, k], QDD[:, k]
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        G_ref = pin.computeGeneralizedGravity(pm, data, q)
        h_ref = pin.rnea(pm, data, q, qd, np.zeros(n)) - G_ref
        tol = 1e-10 * max(1.0, np.abs(tau_ref).max())
        assert np.abs(tau[:, k] - tau_ref).max() < tol
        assert np.abs(G[:, k] - G_ref).max() < tol and np.abs(h[:, k] - h_ref).max() < tol
        assert np.abs(M[:, :, k] - M_ref).max() < 1e-10 * np.abs(M_ref).max()
        assert np.abs(C[:, :, k] @ qd - h_ref).max() < tol
        assert np.abs(Y[:, :, k] - regressor(arm, q, qd, qdd)).max() < 1e-10 * max(1.0, np.abs(Y[:, :, k]).max())


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_the_documented_main_c_builds_and_runs(tmp_path):
    """docs/codegen.md's main.c and Makefile against a generated library (the PUMA's prefix)."""
    import re

    from tests.support import ROOT
    text = (ROOT / "docs" / "codegen.md").read_text(encoding="utf-8")
    main_c = re.search(r"```c\n(.*?)```", text, re.S).group(1)
    makefile = re.search(r"```make\n(.*?)```", text, re.S).group(1)
    (tmp_path / "main.c").write_text(main_c, encoding="utf-8")
    (tmp_path / "Makefile").write_text(makefile, encoding="utf-8")
    model = load_project(robot_path("planar_two_link")).numeric()  # small and quick; named puma here
    plan = plan_code(derive(model, Method.NEWTON_EULER, SimplifyMode.OFF))
    source, header = emit_c_library(plan, "puma")
    (tmp_path / "puma.c").write_text(source, encoding="utf-8")
    (tmp_path / "puma.h").write_text(header, encoding="utf-8")
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    run = subprocess.run(["make", "CFLAGS=-std=c99 -Wall -Wextra -pedantic -Werror"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True).stdout
    assert out.count("joint") == 2
    arm = NumericArm.from_model(model)
    from designer.numeric import rnea
    tau1 = float(out.split("tau")[1].split()[0])
    assert tau1 == pytest.approx(rnea(arm, [0.1, 0.2], [0.2, 0.2], [0, 0])[0], abs=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("convention", list(Convention))
def test_base_parameter_code_of_a_generic_seven_joint_arm(convention, tmp_path):
    """codegen --parameters base of a generic 7-joint arm (twists and offsets no multiple of 90
    degrees, a prismatic joint, full inertias, a point load): the generated Python with the base
    parameters the grouping formulas give from the standard ones (its defaults) is Pinocchio's rnea,
    crba and gravity; the bias is C(q, qd) qd."""
    import importlib.util

    from designer.codegen.python_code import emit_python
    from tests.support.anyarm_arms import generic_arm
    model = generic_arm(7, seed=11, convention=convention)
    plan, bp = plan_base_code(model, extras=True)
    assert bp.count == bp.rank < 70
    path = tmp_path / "base7.py"
    path.write_text(emit_python(plan), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("base7", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert tuple(mod.PARAMETERS) == bp.names   # numbers for the geometry: only base parameters are inputs
    beta = np.array(mod.DEFAULTS)
    np.testing.assert_allclose(beta, bp.values(standard_parameter_values(NumericArm.from_model(model))), rtol=1e-14)
    pm = pin_model(model)
    data = pm.createData()
    rng = np.random.default_rng(12)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, 7))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        scale = max(1.0, np.abs(tau_ref).max())
        np.testing.assert_allclose(mod.tau(q, qd, qdd), tau_ref, atol=1e-10 * scale)
        np.testing.assert_allclose(mod.mass_matrix(q), M_ref, atol=1e-10 * np.abs(M_ref).max())
        np.testing.assert_allclose(mod.gravity(q), pin.computeGeneralizedGravity(pm, data, q), atol=1e-10 * scale)
        h = mod.bias(q, qd)
        np.testing.assert_allclose(h, pin.rnea(pm, data, q, qd, np.zeros(7)) - mod.gravity(q), atol=1e-10 * scale)
        np.testing.assert_allclose(mod.coriolis_matrix(q, qd) @ qd, h, atol=1e-10 * scale)


def _first_joint_run(convention: Convention, n: int, run: int, seed: int, twist: float):
    """A random right-angled arm (R and P joints elsewhere) whose joints 1..run+1 are revolute and
    2..run+1 parallel: tau_1 then reads the run's moments through one composed row. ``twist``: the
    twist between joints 1 and 2 (not only +-pi/2)."""
    import dataclasses

    from designer.model import JointType
    model = random_model(np.random.default_rng(seed), n, convention, True)
    links = list(model.links)
    for j in range(run + 1):
        links[j] = dataclasses.replace(links[j], joint=JointType.REVOLUTE)
    # the twist between joints j and j+1 is alpha_(j+1) (modified) or alpha_j (standard)
    at = (lambda j: j + 1) if convention is Convention.MODIFIED else (lambda j: j)
    links[at(0)] = dataclasses.replace(links[at(0)], alpha=twist)
    for j in range(1, run):
        links[at(j)] = dataclasses.replace(links[at(j)], alpha=0.0)
    if at(run) < n:   # the run ends at joint run+1
        links[at(run)] = dataclasses.replace(links[at(run)], alpha=1.5707963267948966)
    return dataclasses.replace(model, links=tuple(links))


@pytest.mark.parametrize("convention, run, twist", [(Convention.STANDARD, 2, 1.5707963267948966),
                                                    (Convention.MODIFIED, 3, -1.5707963267948966),
                                                    (Convention.STANDARD, 3, 0.7), (Convention.MODIFIED, 2, -2.2)])
def test_first_joint_through_a_parallel_run_matches_pinocchio(convention, run, twist, tmp_path):
    """The generated base-parameter Python (tau, M, G, bias) and standard regressor of arms whose
    joints 2.. are a parallel run (the PUMA's 2-3, a UR's 2-3-4), against Pinocchio."""
    import importlib.util

    from designer.codegen.python_code import emit_python
    from designer.dynamics.customized import _chain
    from designer.dynamics.standard_ne import _parallel_run
    model = _first_joint_run(convention, 6, run, 20 + run, twist)
    assert _parallel_run(_chain(model), model.n) == run     # the arm has the structure the test is about
    plan, bp = plan_base_code(model, extras=True)
    path = tmp_path / "run.py"
    path.write_text(emit_python(plan), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("run", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    pi = standard_parameter_values(NumericArm.from_model(model))
    pm = pin_model(model)
    data = pm.createData()
    rng = np.random.default_rng(6)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, model.n))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        scale = max(1.0, np.abs(tau_ref).max())
        np.testing.assert_allclose(mod.tau(q, qd, qdd), tau_ref, atol=1e-10 * scale)
        np.testing.assert_allclose(mod.mass_matrix(q), M_ref, atol=1e-10 * np.abs(M_ref).max())
        np.testing.assert_allclose(mod.gravity(q), pin.computeGeneralizedGravity(pm, data, q), atol=1e-10 * scale)
        np.testing.assert_allclose(mod.bias(q, qd), pin.rnea(pm, data, q, qd, np.zeros(model.n)) - mod.gravity(q),
                                   atol=1e-10 * scale)
        np.testing.assert_allclose(np.asarray(mod.regressor(q, qd, qdd)).reshape(model.n, -1) @ pi, tau_ref,
                                   atol=1e-10 * scale)
