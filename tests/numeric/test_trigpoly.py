"""The nested closed forms (angle sums, sin^2 = 1 - cos^2, searched Horner order) and the
generated numpy code's shortcuts (cosine and sine from one tangent, writing into ``out``)."""

from __future__ import annotations

import importlib.util
import inspect
from dataclasses import replace

import numpy as np
import pinocchio as pin
import pytest
import sympy as sp

from tests.support.codegen import generate
from designer.dynamics import derive
from designer.dynamics.results import Method, SimplifyMode
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric.compiled import _round_floats, compile_equations
from designer.numeric.trigpoly import sympy_horner
from designer.numeric.trigpoly import nested_forms
from designer.project import load_project

from tests.support import robot_path
from tests.support.pin_reference import pin_model, random_arm
from tests.support.random_models import model_from_arm, random_model


def _operations(exprs) -> int:
    temps, reduced = sp.cse(list(exprs), order="none")
    return int(sum(sp.count_ops(e) for _, e in temps) + sum(sp.count_ops(e) for e in reduced))


def _parallel_arm(rng, convention: Convention):
    """Four revolute joints, 2 to 4 parallel (zero twists), random offsets and inertias, a load."""
    arm = random_arm(rng, 4, convention, joints="RRRR")
    dh = arm.dh.copy()
    dh[1:, 1] = 0.0
    return model_from_arm(replace(arm, dh=dh))


@pytest.mark.parametrize("seed, n, convention, right_angles",
                         [(1, 3, Convention.STANDARD, False), (2, 4, Convention.MODIFIED, False),
                          (3, 4, Convention.STANDARD, True), (4, 3, Convention.MODIFIED, True),
                          (5, 4, Convention.STANDARD, None), (6, 4, Convention.MODIFIED, None)])
def test_nested_forms_agree_with_pinocchio(seed, n, convention, right_angles):
    """Random arms (R and P joints, offsets, twists of any angle or written-as-float right angles;
    None: parallel joints, where angle sums are used)."""
    rng = np.random.default_rng(seed)
    model = _parallel_arm(rng, convention) if right_angles is None else random_model(rng, n, convention, right_angles)
    arm = NumericArm.from_model(model)
    cd = compile_equations(derive(model.numeric(), Method.LAGRANGE, SimplifyMode.OFF), horner=("M", "G"))
    pm = pin_model(arm)
    data = pm.createData()
    Q = rng.uniform(-np.pi, np.pi, (6, n))
    M, G = cd.M_many(Q), cd.G_many(Q)
    for k, q in enumerate(Q):
        want = pin.crba(pm, data, q)
        want = np.triu(want) + np.triu(want, 1).T
        assert np.max(np.abs(M[k] - want)) <= 1e-10 * np.max(np.abs(want))
        np.testing.assert_allclose(cd.M(q), want, rtol=1e-10, atol=1e-10 * np.max(np.abs(want)))
        g = pin.computeGeneralizedGravity(pm, data, q)
        assert np.max(np.abs(G[k] - g)) <= 1e-10 * max(1.0, np.max(np.abs(g)))


def test_parallel_joints_use_the_angle_sum_and_save_operations():
    """PUMA 560 joints 2 and 3 are parallel: cos(q2 + q3) replaces products of cos q2, sin q3, ...,
    and the whole is shorter than a Horner form per entry (the previous compiled form)."""
    model = load_project(robot_path("puma560"))
    eq = derive(model.numeric(), Method.LAGRANGE, SimplifyMode.OFF)
    cells = [_round_floats(sp.sympify(eq.mass_matrix[i, j])) for i in range(6) for j in range(i, 6)]
    forms = nested_forms(cells, model.q)
    q2, q3 = model.q[1], model.q[2]
    trig = set().union(*(f.atoms(sp.cos, sp.sin) for f in forms))
    assert sp.cos(q2 + q3) in trig and sp.sin(q2 + q3) in trig
    assert sp.cos(q3) not in trig and sp.sin(q3) not in trig
    assert _operations(forms) < 0.8 * _operations([sympy_horner(c) for c in cells])
    f_in, f_out = sp.lambdify(model.q, cells), sp.lambdify(model.q, forms)
    for q in np.random.default_rng(5).uniform(-4, 4, (20, 6)):
        np.testing.assert_allclose(f_out(*q), f_in(*q), rtol=1e-12, atol=1e-14)


def test_not_polynomial_in_joint_trig_is_left_alone():
    q1, q2 = sp.symbols("q1 q2", real=True)
    assert nested_forms([sp.cos(q1 + q2) * sp.sin(q1)], [q1, q2]) is None   # an argument with two joints
    assert nested_forms([sp.cos(2 * q1) + sp.cos(q1)], [q1, q2]) is None    # two arguments of one joint
    assert nested_forms([1 / (2 + sp.cos(q1))], [q1, q2]) is None


def _module(tmp_path):
    model = load_project(robot_path("puma560")).numeric()
    path = tmp_path / "puma.py"
    path.write_text(generate(derive(model, Method.NEWTON_EULER, SimplifyMode.OFF), "python"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("puma", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cosine_and_sine_from_one_tangent(tmp_path):
    mod = _module(tmp_path)
    assert "= _cos_sin(" in inspect.getsource(mod.mass_matrix)  # pairs of temporaries use it
    a = np.concatenate([np.linspace(-10, 10, 20001), [np.pi, -np.pi, np.pi / 2, -np.pi / 2, 0.0, -0.0, 1e-300,
                                                      np.nextafter(np.pi, 0), 3 * np.pi, 1e5, -1e7]])
    c, s = mod._cos_sin(a)
    assert np.max(np.abs(c - np.cos(a))) <= 4e-16 and np.max(np.abs(s - np.sin(a))) <= 4e-16
    c1, s1 = mod._cos_sin(0.25)  # one state: numpy scalars
    assert c1 == pytest.approx(np.cos(0.25), abs=3e-16) and s1 == pytest.approx(np.sin(0.25), abs=3e-16)


def test_numpy_functions_write_into_out(tmp_path):
    mod = _module(tmp_path)
    Q = np.random.default_rng(2).uniform(-3, 3, (6, 40))
    want = mod.mass_matrix(Q)
    buffer = np.zeros((36, 40))
    got = mod.mass_matrix(Q, out=buffer)
    assert np.shares_memory(got, buffer)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(mod.mass_matrix(Q, out=buffer), want)  # an earlier result is a valid buffer
    view = np.zeros((36, 100))[:, 30:70]   # rows not contiguous, as the compiled blocks are
    np.testing.assert_array_equal(mod.mass_matrix(Q, out=view), want)
    np.testing.assert_array_equal(view.reshape(6, 6, 40), want)
