"""JSON export: every entry parses back with sympy to the same expression; the form is consistent."""

from __future__ import annotations

import json

import numpy as np
import sympy as sp

from designer.dynamics.results import Method
from designer.model import symbol
from designer.report import render

from tests.support.report_equations import awkward_three_link, robmat_double_pendulum


def _locals(doc):
    s = doc["symbols"]
    return {name: symbol(name) for name in s["q"] + s["qd"] + s["qdd"] + s["parameters"]}


def _parse(text, local):
    assert isinstance(text, str)
    return sp.sympify(text, locals=local)


def _same(a, b, symbols, rng):
    if a == b:
        return True
    # floats printed in shortest form may differ in the last bits of their sympy precision
    f = sp.lambdify(symbols, a - b, "numpy")
    for _ in range(5):
        args = rng.uniform(-2, 2, len(symbols))
        scale = max(1.0, abs(float(sp.lambdify(symbols, b, "numpy")(*args))))
        if abs(float(f(*args))) > 1e-12 * scale:
            return False
    return True


def _check_round_trip(eq):
    doc = json.loads(render(eq, "json"))
    local = _locals(doc)
    symbols = sorted(local.values(), key=lambda s: s.name)
    rng = np.random.default_rng(1)
    checked = 0
    for name, mat in eq.matrices.items():
        entries = doc["matrices"][name]["entries"]
        assert doc["matrices"][name]["shape"] == list(mat.shape)
        for i in range(mat.shape[0]):
            for j in range(mat.shape[1]):
                assert _same(_parse(entries[i][j], local), mat[i, j], symbols, rng), (name, i, j)
                checked += 1
    if "derived" in doc:
        derived = doc["derived"]
        for key, vec in (("gravity_torques", eq.gravity), ("bias", eq.coriolis)):
            assert [_same(_parse(t, local), v, symbols, rng) for t, v in zip(derived[key], vec)] == [True] * eq.n
        M = derived["mass_matrix"]["entries"]
        assert all(_same(_parse(M[i][j], local), eq.mass_matrix[i, j], symbols, rng)
                   for i in range(eq.n) for j in range(eq.n))
    return doc, checked


def test_double_pendulum_round_trip_is_exact():
    eq = robmat_double_pendulum()
    doc = json.loads(render(eq, "json"))
    local = _locals(doc)
    for name, mat in eq.matrices.items():
        parsed = sp.Matrix([[_parse(t, local) for t in row] for row in doc["matrices"][name]["entries"]])
        assert parsed == mat, name  # structurally identical, not just equal in value


def test_awkward_names_floats_and_roots_round_trip():
    eq = awkward_three_link()
    doc, checked = _check_round_trip(eq)
    assert checked == 9 + 9 + 9 + 3
    assert "beta" in doc["symbols"]["parameters"] and "N" in doc["symbols"]["parameters"]
    # without the symbols as locals, sympy reads 'beta' as its beta function: why the document lists them
    assert sp.sympify("beta") != symbol("beta")


def test_metadata_and_parameters():
    eq = robmat_double_pendulum()
    doc = json.loads(render(eq, "json"))
    assert (doc["method"], doc["simplify"], doc["n"], doc["model"]) == ("lagrange", "off", 2, "Double pendulum")
    assert doc["symbols"]["q"] == ["q1", "q2"] and doc["symbols"]["qdd"] == ["qdd1", "qdd2"]
    assert doc["parameters"] == {"L1": 1.0, "L2": 0.8, "m1": 2.0, "m2": 1.0, "g": 9.81}
    assert doc["gravity"] == ["g", 0, 0]
    assert doc["velocity_products"] == ["qd1*qd2"] and doc["velocity_squares"] == ["qd1**2", "qd2**2"]


def test_form_rebuilds_tau_from_the_parsed_matrices():
    """tau = M qdd + 2 B [q'q'] + C [q'^2] + G, with the matrices and the vectors read back from the JSON."""
    eq = awkward_three_link()
    doc = json.loads(render(eq, "json"))
    local = _locals(doc)
    mats = {k: sp.Matrix([[_parse(t, local) for t in row] for row in v["entries"]]) for k, v in doc["matrices"].items()}
    qq = sp.Matrix([_parse(t, local) for t in doc["velocity_products"]])
    q2 = sp.Matrix([_parse(t, local) for t in doc["velocity_squares"]])
    qdd = sp.Matrix([local[name] for name in doc["symbols"]["qdd"]])
    tau = eq.tau
    rebuilt = mats["M"] * qdd + 2 * mats["B"] * qq + mats["C"] * q2 + mats["G"]
    for d in (rebuilt - tau).applyfunc(sp.expand):
        # floats read back from their shortest text may differ in the last bit
        assert all(abs(c) < 1e-12 for c in d.as_coefficients_dict().values()), d


def test_newton_euler_has_tau_as_its_form_and_m_g_h_derived():
    eq = robmat_double_pendulum(Method.NEWTON_EULER)
    doc, checked = _check_round_trip(eq)
    assert list(doc["matrices"]) == ["tau"] and "velocity_products" not in doc and checked == 2
    assert set(doc["derived"]) == {"mass_matrix", "gravity_torques", "bias"}
    assert "derived" not in json.loads(render(robmat_double_pendulum(), "json"))
