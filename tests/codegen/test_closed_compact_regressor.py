"""The regressor of closed chains' compact code (four-bars, loops with the passive positions as inputs) and
``codegen --parameters base`` of such chains, run, against the numeric side.

The reference is designer.numeric.closed.ClosedDynamics (the tree's numeric RNEA projected by a numerically
solved W; itself checked against Pinocchio in tests/dynamics/test_closed_numeric.py): Y_a pi must give its
tau at random loop-consistent states, with pi the tree's standard parameters from the link data
(standard_parameter_values) and, with --drives, the drive parameters and ClosedDynamics.drive_terms.
Y_a against identification/regressor.py (unit-parameter RNEAs of the numeric tree, W^T numerically) is a
second check of the same formula by a separate implementation, not an independent one.
"""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.codegen.c_library import emit_c_library
from designer.codegen.files import code_files, full_plan
from designer.dynamics.closed_compact import closed_compact_equations_job
from designer.identification.base_params import base_parameters
from designer.identification.code_plan import base_plan
from designer.jobs import run
from designer.model.manipulator import Convention
from designer.numeric.closed import ClosedDynamics
from designer.identification.regressor import Regressor, base_grouping
from designer.project import load_project
from tests.codegen.test_closed_compact_drives import _drives_on_every_joint
from tests.dynamics.test_closed_compact import fixed_cut_four_bar
from tests.support import robot_path
from tests.support.closed_reference import four_bar


def _module(path, text: str | None = None):
    if text is not None:
        path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _states(cd, seed: int, count: int = 4):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield rng.uniform(-0.6, 0.6, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)


def _regressor_error(mod, model, drives: bool, qp_input: bool, seed: int = 3) -> float:
    """Largest |Y_a pi - tau| (relative to tau) over random states; Y_a against Regressor asserted."""
    cd = ClosedDynamics(model)
    reg = Regressor(cd, drives)
    worst = 0.0
    for qa, qda, qdda in _states(cd, seed):
        first = (qa, cd.positions(qa)[cd.pas]) if qp_input else (qa,)
        Y = np.asarray(mod.regressor(*first, qda, qdda), dtype=float).reshape(cd.n, -1)
        assert Y.shape[1] == len(reg.names)
        want = cd.tau(qa, qda, qdda) + (cd.drive_terms(qa, qda, qdda)[1] if drives else 0.0)
        worst = max(worst, np.abs(Y @ reg.values - want).max() / max(1.0, np.abs(want).max()))
        assert np.abs(Y - reg.actuated(qa, qda, qdda)).max() < 1e-9 * max(1.0, np.abs(Y).max())
    return worst


def test_four_bar_regressor_from_the_command_line(tmp_path):
    path = robot_path("four_bar")
    assert main(["codegen", str(path), "--lang", "python", "--quiet", "--functions", "tau,Y",
                 "--out", str(tmp_path / "fb.py")]) == 0
    text = (tmp_path / "fb.py").read_text()
    assert "def regressor(" in text and "every joint's link, passive ones too" in text
    mod = _module(tmp_path / "fb.py")
    model = load_project(path)
    assert _regressor_error(mod, model, False, False) < 1e-10
    cd, reg = ClosedDynamics(model), Regressor(ClosedDynamics(model))
    for qa, qda, qdda in _states(cd, 1):   # the generated tau is the regressor's product too
        assert np.allclose(mod.tau(qa, qda, qdda), np.asarray(mod.regressor(qa, qda, qdda)).reshape(1, -1) @ reg.values,
                           rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed, convention, mounted", [(0, Convention.STANDARD, False), (1, Convention.MODIFIED, False),
                                                       (2, Convention.STANDARD, True), (3, Convention.MODIFIED, True)])
def test_random_four_bar_regressor_with_drives(tmp_path, seed, convention, mounted):
    """Random four-bars (flat and on a turning column, both conventions), drive data on every joint: the
    drive parameters' columns W_j^T (qdd_j, qd_j, sign qd_j) of the tree's rates, passive joints too."""
    rng = np.random.default_rng(seed)
    model = _drives_on_every_joint(four_bar(rng, convention, mounted=mounted), rng)
    eq = run(closed_compact_equations_job(model))
    target = tmp_path / f"fb{seed}.py"
    mod = _module(target, code_files(full_plan(eq, "compact", drives=True, only=("regressor",)), "python",
                                     target)[str(target)])
    assert _regressor_error(mod, model, True, False, seed) < 1e-10


def test_regressor_with_passive_positions_as_inputs(tmp_path):
    model = _drives_on_every_joint(fixed_cut_four_bar(2), np.random.default_rng(5))
    eq = run(closed_compact_equations_job(model))
    target = tmp_path / "cut.py"
    mod = _module(target, code_files(full_plan(eq, "compact", drives=True, only=("regressor",)), "python",
                                     target)[str(target)])
    assert _regressor_error(mod, model, True, True) < 1e-10


def _without(cc, what: str):
    """``cc`` with one term dropped on purpose: the passive accelerations' rate term b, or W_p^T."""
    if what == "b":
        steps = tuple(replace(a, value=a.value.xreplace({s: 0 for s in a.value.free_symbols
                                                          if s.name.startswith("b")}))
                      if a.kind == "qddp" else a for a in cc.steps)
        return replace(cc, steps=steps)
    return replace(cc, Wp=tuple(tuple(0 for _ in row) for row in cc.Wp))


@pytest.mark.parametrize("what", ["b", "Wp"])
def test_the_check_fails_when_a_term_is_dropped(tmp_path, what):
    """The comparison above can fail: without b (J' qd) or without the passive rows of W^T it does."""
    model = four_bar(np.random.default_rng(7), Convention.STANDARD, mounted=True)
    eq = run(closed_compact_equations_job(model))
    eq = replace(eq, extras={**eq.extras, "closed_compact": _without(eq.extras["closed_compact"], what)})
    target = tmp_path / f"bad_{what}.py"
    mod = _module(target, code_files(full_plan(eq, "compact", only=("regressor",)), "python", target)[str(target)])
    with pytest.raises(AssertionError):
        assert _regressor_error(mod, model, False, False) < 1e-6


def _base_check(mod, model, drives: bool, qp_input: bool, p=None, seed: int = 6) -> None:
    """tau, M, G, h, C qd = h and Y_B beta of the base-parameter code against ClosedDynamics (drives added)."""
    cd = ClosedDynamics(model)
    n = cd.n
    args = () if p is None else (p,)
    for qa, qda, qdda in _states(cd, seed):
        first = (qa, cd.positions(qa)[cd.pas]) if qp_input else (qa,)
        dM, dtau, _ = cd.drive_terms(qa, qda, qdda) if drives else (0.0, 0.0, None)
        dh = cd.drive_terms(qa, qda, np.zeros(n))[1] if drives else 0.0
        want = {"tau": cd.tau(qa, qda, qdda) + dtau, "M": cd.M(qa) + dM, "G": cd.G(qa), "h": cd.h(qa, qda) + dh}
        got = {"tau": np.asarray(mod.tau(*first, qda, qdda, *args), dtype=float),
               "M": np.asarray(mod.mass_matrix(*first, *args), dtype=float).reshape(n, n),
               "G": np.asarray(mod.gravity(*first, *args), dtype=float),
               "h": np.asarray(mod.bias(*first, qda, *args), dtype=float)}
        for key, value in want.items():
            assert np.abs(got[key] - value).max() < 1e-9 * max(1.0, np.abs(value).max()), key
        Y = np.asarray(mod.regressor(*first, qda, qdda), dtype=float).reshape(n, -1)
        beta = np.array(mod.DEFAULTS if p is None else p, dtype=float)
        assert np.allclose(Y @ beta, want["tau"], rtol=1e-9, atol=1e-9)
        if not drives:   # with friction h has a part that is not quadratic in the rates
            C = np.asarray(mod.coriolis_matrix(*first, qda, *args), dtype=float).reshape(n, n)
            assert np.allclose(C @ qda, want["h"], rtol=1e-9, atol=1e-9)


def test_four_bar_base_parameter_code_from_the_command_line(tmp_path):
    """`codegen --parameters base` on the four-bar: the closed-loop base parameters as inputs; their
    values (the header's defaults) agree with identification/base_params.py's grouping formulas."""
    path = robot_path("four_bar")
    assert main(["codegen", str(path), "--lang", "python", "--quiet", "--parameters", "base",
                 "--out", str(tmp_path / "fbb.py")]) == 0
    mod = _module(tmp_path / "fbb.py")
    model = load_project(path)
    assert "base parameters" in mod.__doc__
    bp = base_parameters(model)
    assert list(mod.PARAMETERS) == list(bp.names)
    defaults = dict(zip(mod.PARAMETERS, mod.DEFAULTS))
    reg = Regressor(ClosedDynamics(model))
    standard = dict(zip(reg.names, reg.values))
    for name, formula in zip(bp.names, bp.formulas):
        value = float(formula.subs({s: standard[s.name] for s in formula.free_symbols}))
        assert abs(defaults[name] - value) < 1e-5 * max(1.0, abs(value))
    _base_check(mod, model, False, False)


def test_base_code_takes_other_inertial_values(tmp_path):
    """The code's base parameters are inputs: another mass distribution on the same geometry, grouped by
    the first one's combinations, gives that mechanism's tau."""
    rng = np.random.default_rng(12)
    model = four_bar(rng, Convention.MODIFIED, mounted=True)
    plan = base_plan(model)
    target = tmp_path / "b.py"
    mod = _module(target, code_files(plan, "python", target)[str(target)])
    other = replace(model, links=tuple(replace(link, mass=float(link.mass) * rng.uniform(0.5, 2.0),
                                               com=tuple(float(c) + rng.uniform(-0.05, 0.05) for c in link.com))
                                       for link in model.links))
    reg = Regressor(ClosedDynamics(other))
    pi = dict(zip(reg.names, reg.values))
    bp = base_grouping(ClosedDynamics(model))
    p = [sum(c * pi[k] for k, c in combo.items()) for _, combo in bp.base]
    _base_check(mod, other, False, False, p=p)


@pytest.mark.parametrize("which", ["drives", "qp"])
def test_base_code_with_drives_and_with_passive_inputs(tmp_path, which):
    rng = np.random.default_rng(4)
    if which == "drives":
        model = _drives_on_every_joint(four_bar(rng, Convention.STANDARD, mounted=True), rng)
    else:
        model = fixed_cut_four_bar(3)
    target = tmp_path / f"{which}.py"
    mod = _module(target, code_files(base_plan(model, drives=which == "drives"), "python",
                                     target)[str(target)])
    _base_check(mod, model, which == "drives", which == "qp")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_regressor_c_code_compiles_and_matches(tmp_path):
    from tests.codegen.test_control_codegen import _c_call, _compile
    rng = np.random.default_rng(9)
    model = _drives_on_every_joint(four_bar(rng, Convention.STANDARD, mounted=True), rng)
    eq = run(closed_compact_equations_job(model))
    lib = _compile(tmp_path, *emit_c_library(full_plan(eq, "compact", drives=True, only=("regressor",)), "fb",
                                             "fb.h"), "fb")
    base = _compile(tmp_path, *emit_c_library(base_plan(model, only=("tau", "regressor")), "fbb", "fbb.h"), "fbb")
    cd = ClosedDynamics(model)
    reg = Regressor(cd, True)
    bp = base_grouping(cd)
    beta = np.array(bp.values)
    for qa, qda, qdda in _states(cd, 2):
        Y = _c_call(lib, "fb_regressor", (qa, qda, qdda), None, cd.n * len(reg.names)).reshape(cd.n, -1)
        want = cd.tau(qa, qda, qdda) + cd.drive_terms(qa, qda, qdda)[1]
        assert np.allclose(Y @ reg.values, want, rtol=1e-10, atol=1e-10)
        rigid = cd.tau(qa, qda, qdda)
        assert np.allclose(_c_call(base, "fbb_tau", (qa, qda, qdda), beta, cd.n), rigid, rtol=1e-9, atol=1e-9)
        Yb = _c_call(base, "fbb_regressor", (qa, qda, qdda), None, cd.n * bp.count).reshape(cd.n, -1)
        assert np.allclose(Yb @ beta, rigid, rtol=1e-9, atol=1e-9)


OCTAVE = shutil.which("octave-cli")


@pytest.mark.slow
@pytest.mark.skipif(OCTAVE is None, reason="GNU Octave (octave-cli) not installed")
def test_regressor_matlab_code_under_octave(tmp_path):
    from designer.codegen.matlab_code import emit_matlab
    from tests.codegen.test_control_codegen import _octave
    model = four_bar(np.random.default_rng(10), Convention.MODIFIED, mounted=True)
    eq = run(closed_compact_equations_job(model))
    for name, text in emit_matlab(full_plan(eq, "compact", only=("regressor",)), "fb").items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    cd = ClosedDynamics(model)
    reg = Regressor(cd)
    N, n, rng = 5, cd.n, np.random.default_rng(5)
    Q, QD, QDD = rng.uniform(-0.6, 0.6, (n, N)), rng.normal(size=(n, N)), rng.normal(size=(n, N))
    for name, a in (("Q", Q), ("QD", QD), ("QDD", QDD)):
        np.savetxt(tmp_path / f"{name}.txt", a)
    _octave(tmp_path, "Q = load('Q.txt'); QD = load('QD.txt'); QDD = load('QDD.txt');"
            "Y = fb_regressor(Q, QD, QDD); Y = reshape(Y, [], size(Q, 2)); save('-ascii', '-double', 'Y.txt', 'Y');")
    Y = np.loadtxt(tmp_path / "Y.txt").reshape(n, len(reg.names), N, order="F")
    for k in range(N):
        want = cd.tau(Q[:, k], QD[:, k], QDD[:, k])
        assert np.allclose(Y[:, :, k] @ reg.values, want, rtol=1e-10, atol=1e-10)


def test_four_bar_base_count_is_the_rank_of_pinocchios_projected_regressor():
    """The base-parameter code's inputs: as many as the rank of Pinocchio's joint-torque regressor of the
    spanning tree projected by a differenced W (tests/codegen/test_closed_codegen.py's pinocchio_rank)."""
    from tests.codegen.test_closed_codegen import pinocchio_rank
    for model in (load_project(robot_path("four_bar")), four_bar(np.random.default_rng(8), Convention.STANDARD,
                                                                  mounted=True)):
        assert len(base_plan(model, only=("tau",)).parameters) == pinocchio_rank(model)


def test_slider_crank_regressor_and_base_code(tmp_path):
    """A passive prismatic joint in the loop (its column reads the force, f_z) on a branch turned by gamma,
    the passive positions as inputs: the regressor and the base-parameter code."""
    from tests.dynamics.test_slider_crank import _slider_crank
    model = _slider_crank(0.1, 0.35, [1.0, 2.0, 3.0], [0.01, 0.02, 0.0])
    eq = run(closed_compact_equations_job(model))
    target = tmp_path / "sc.py"
    mod = _module(target, code_files(full_plan(eq, "compact", only=("regressor",)), "python", target)[str(target)])
    assert _regressor_error(mod, model, False, True) < 1e-10
    base = tmp_path / "scb.py"
    _base_check(_module(base, code_files(base_plan(model), "python", base)[str(base)]), model, False, True)
