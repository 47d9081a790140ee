"""Compiled equations: against the numeric recursive dynamics, CSE really applied, errors."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
import sympy as sp

from designer.dynamics.results import Equations, Method, SimplifyMode
from designer.kinematics import NumericArm, com_jacobians, frames
from designer.model import MissingParameterError
from designer.numeric import recursive as rec
from designer.numeric.compiled import compile_equations
from designer.project import from_dict, load_project

from tests.support import robot_path

# a small modified-DH arm with a prismatic joint, full inertia and symbolic parameters
SCARA_LIKE = {
    "format": "manipulator-designer", "version": 1, "name": "RPR", "convention": "modified",
    "gravity": [0, "-g", 0],
    "parameters": {"l1": 0.5, "m1": 2.0, "m2": 1.5, "m3": 0.7, "g": 9.81, "Ixy3": 0.001},
    "links": [
        {"joint": "R", "a": 0, "alpha": 0, "d": 0.1, "theta": 0, "mass": "m1", "com": ["l1/2", 0.02, 0],
         "inertia": {"xx": 0.02, "yy": 0.05, "zz": 0.06, "xy": 0.003}},
        {"joint": "P", "a": "l1", "alpha": "pi/2", "d": 0.2, "theta": 0.3, "mass": "m2", "com": [0, 0.05, -0.1],
         "inertia": {"xx": 0.03, "yy": 0.03, "zz": 0.01, "yz": 0.002}},
        {"joint": "R", "a": 0.1, "alpha": "-pi/2", "d": 0, "theta": 0, "mass": "m3", "com": [0.1, 0, 0.03],
         "inertia": {"xx": 0.004, "yy": 0.006, "zz": 0.007, "xy": "Ixy3", "xz": 0.001}},
    ],
}


def hand_lagrange(model) -> Equations:
    """A plain symbolic Lagrange derivation (Jacobians, Christoffel symbols), independent of the RNEA."""
    n, q, qd, qdd = model.n, sp.Matrix(model.q), sp.Matrix(model.qd), sp.Matrix(model.qdd)
    T = frames(model)
    M = sp.zeros(n, n)
    V = 0
    g = sp.Matrix(model.gravity)
    for i, (link, J) in enumerate(zip(model.links, com_jacobians(model)), start=1):
        R = T[i][:3, :3]
        Jv, Jw = J[:3, :], J[3:, :]
        M += link.mass * Jv.T * Jv + Jw.T * R * link.inertia.matrix() * R.T * Jw
        c = (T[i] * sp.Matrix([*link.com, 1]))[:3, 0]
        V -= link.mass * g.dot(c)
    G = sp.Matrix([sp.diff(V, s) for s in q])
    h = sp.Matrix([sum((sp.diff(M[i, j], q[k]) - sp.Rational(1, 2) * sp.diff(M[j, k], q[i])) * qd[j] * qd[k]
                       for j in range(n) for k in range(n)) for i in range(n)])
    tau = M * qdd + h + G
    return Equations(Method.LAGRANGE, model, SimplifyMode.OFF, {"M": M, "G": G}, tau, M, G, h)


@pytest.fixture(scope="module")
def rpr():
    model = from_dict(SCARA_LIKE)
    eq = hand_lagrange(model)
    return model, eq, compile_equations(eq)


def test_single_and_many_match_recursive(rpr):
    model, eq, cd = rpr
    arm = NumericArm.from_model(model)
    rng = np.random.default_rng(1)
    Q, QD, QDD = (rng.uniform(-2, 2, (20, 3)) for _ in range(3))
    Mm, Gm, hm, tm = cd.M_many(Q), cd.G_many(Q), cd.h_many(Q, QD), cd.tau_many(Q, QD, QDD)
    for k in range(len(Q)):
        q, qd, qdd = Q[k], QD[k], QDD[k]
        for got in (cd.M(q), Mm[k]):
            np.testing.assert_allclose(got, rec.mass_matrix(arm, q), rtol=1e-10, atol=1e-12)
        for got in (cd.G(q), Gm[k]):
            np.testing.assert_allclose(got, rec.gravity_torque(arm, q), rtol=1e-10, atol=1e-12)
        for got in (cd.h(q, qd), hm[k]):
            np.testing.assert_allclose(got, rec.bias(arm, q, qd), rtol=1e-10, atol=1e-12)
        for got in (cd.tau(q, qd, qdd), tm[k]):
            np.testing.assert_allclose(got, rec.rnea(arm, q, qd, qdd), rtol=1e-10, atol=1e-12)


def test_overrides_change_the_numbers(rpr):
    model, eq, _ = rpr
    q = [0.3, 0.1, -0.7]
    heavy = compile_equations(eq, {"m3": 5.0, "g": 1.62})
    arm = NumericArm.from_model(model, {"m3": 5.0, "g": 1.62})
    np.testing.assert_allclose(heavy.G(q), rec.gravity_torque(arm, q), rtol=1e-10)
    assert heavy.parameters["m3"] == 5.0


def test_cse_is_applied_and_visible(rpr):
    _, eq, cd = rpr
    src = inspect.getsource(cd._vector["M"])
    assert src == cd.source["M"]
    # one line per common subexpression (a cosine and a sine of one angle share theirs)
    assert src.count("\n") > 10 and re.search(r"^    x0(, x\d+)? = ", src, re.M)
    raw = sum(sp.count_ops(eq.mass_matrix[i, j]) for i in range(3) for j in range(i, 3))
    assert cd.operations["M"] < raw


def test_constant_entries_broadcast():
    model = load_project(robot_path("double_pendulum"))
    cd = compile_equations(hand_lagrange(model))
    Q = np.random.default_rng(2).uniform(-1, 1, (7, 2))
    M = cd.M_many(Q)
    assert M.shape == (7, 2, 2)
    np.testing.assert_allclose(M[:, 1, 1], 1.0 * 0.8**2)  # m2 L2^2 whatever the pose
    np.testing.assert_allclose(M[:, 0, 0], 2.0 + 1.0 * (1 + 0.64 + 1.6 * np.cos(Q[:, 1])))


def test_missing_parameters_are_named():
    data = dict(SCARA_LIKE, parameters={"l1": 0.5, "m1": 2.0, "g": 9.81, "Ixy3": 0.0})
    model = from_dict(data)
    with pytest.raises(MissingParameterError) as err:
        compile_equations(hand_lagrange(model))
    assert err.value.names == ["m2", "m3"]
    assert "m2" in str(err.value) and "m3" in str(err.value)


def test_shape_errors(rpr):
    cd = rpr[2]
    with pytest.raises(ValueError, match="q"):
        cd.M([1, 2])
    with pytest.raises(ValueError, match="Q"):
        cd.M_many(np.zeros((4, 2)))
