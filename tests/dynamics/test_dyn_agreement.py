"""The three methods agree with each other (symbolically on small arms, numerically on large ones)
and with an independent implementation, Pinocchio's rnea and crba."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from tests.support import robot_path
from designer.dynamics import Method, SimplifyMode, derive
from designer.project import load_project
from tests.support.dyn_reference import (assert_tau_and_m_match_pinocchio, numeric_function, pin_model,
                                         pin_rnea_crba, puma560, seven_modified, stanford_six)

pytest.importorskip("pinocchio")


def _puma():
    path = robot_path("puma560")
    return load_project(path) if path.exists() else puma560()


ARMS = {"puma560": _puma, "stanford6": stanford_six, "seven_modified": seven_modified,
        "puma3_symbolic_inertia": lambda: puma560(symbolic_inertia=True, n=3)}


@pytest.fixture(scope="module")
def derived():
    return {}


def _equations(cache, name, method):
    key = (name, method)
    if key not in cache:
        cache[key] = derive(ARMS[name](), method, SimplifyMode.FAST)
    return cache[key]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ARMS))
@pytest.mark.parametrize("method", list(Method))
def test_tau_and_mass_matrix_match_pinocchio(derived, name, method):
    eq = _equations(derived, name, method)
    model = eq.model
    n = model.n
    tau_f = numeric_function(model, list(eq.tau))
    M_f = numeric_function(model, list(eq.mass_matrix))
    G_f = numeric_function(model, list(eq.gravity))
    pm = pin_model(model)
    rng = np.random.default_rng(11)
    for _ in range(4):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, n))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        G_ref, _ = pin_rnea_crba(pm, q, np.zeros(n), np.zeros(n))
        np.testing.assert_allclose(tau_f(q, qd, qdd), tau_ref, rtol=1e-10, atol=1e-10 * np.abs(tau_ref).max())
        np.testing.assert_allclose(M_f(q, qd, qdd).reshape(n, n), M_ref, rtol=1e-10, atol=1e-10 * np.abs(M_ref).max())
        np.testing.assert_allclose(G_f(q, qd, qdd), G_ref, rtol=1e-10, atol=1e-10 * np.abs(G_ref).max() + 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["puma560", "stanford6", "seven_modified"])
def test_three_methods_agree_numerically(derived, name):
    eqs = [_equations(derived, name, m) for m in Method]
    model = eqs[0].model
    fs = [numeric_function(model, list(e.tau) + list(e.coriolis) + list(e.gravity)) for e in eqs]
    rng = np.random.default_rng(5)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-3, 3, (3, model.n))
        ref = fs[0](q, qd, qdd)
        for f in fs[1:]:
            np.testing.assert_allclose(f(q, qd, qdd), ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())


@pytest.mark.parametrize("robot", ["stanford_modified", "horn_three_dof", "double_pendulum", "planar_two_link"])
def test_three_methods_agree_symbolically(robot):
    model = load_project(robot_path(robot))
    eqs = [derive(model, m, SimplifyMode.OFF) for m in Method]
    for other in eqs[1:]:
        for a, b in ((eqs[0].tau, other.tau), (eqs[0].mass_matrix, other.mass_matrix),
                     (eqs[0].gravity, other.gravity), (eqs[0].coriolis, other.coriolis)):
            assert sp.expand(a - b) == sp.zeros(*a.shape)


def test_dalembert_parts_sum_to_the_lagrange_terms():
    model = load_project(robot_path("stanford_modified"))
    lee = derive(model, Method.DALEMBERT, SimplifyMode.OFF)
    lag = derive(model, Method.LAGRANGE, SimplifyMode.OFF)
    assert sp.expand(lee["D_rot"] + lee["D_tra"] - lag["M"]) == sp.zeros(3, 3)
    assert sp.expand(lee["H_rot"] + lee["H_tra"] - lag.coriolis) == sp.zeros(3, 1)
    # Horn's per-link torques come with the d'Alembert form; each row sums to tau_i
    T = lee.extras["link_torques"]
    assert T.shape == (3, 3) and T[1, 0] == 0
    assert sp.expand(sp.Matrix([sum(T[i, :]) for i in range(3)]) - lag.tau) == sp.zeros(3, 1)
    # the prismatic boom's own translation is all of D_33; its rotation adds nothing there
    assert lee["D_rot"][2, 2] == 0 and sp.expand(lee["D_tra"][2, 2] - model.links[2].mass) == 0


def test_rotational_parts_vanish_for_point_masses():
    """Lee's split: an arm of point masses has no rotational (I w) terms at all."""
    model = load_project(robot_path("double_pendulum"))
    lee = derive(model, Method.DALEMBERT, SimplifyMode.FAST)
    assert lee["D_rot"] == sp.zeros(2, 2) and lee["H_rot"] == sp.zeros(2, 1)
    assert lee["D_tra"] != sp.zeros(2, 2)


@pytest.mark.parametrize("mode", list(SimplifyMode))
def test_simplify_modes_do_not_change_the_values(mode):
    model = puma560(n=3)
    ref = derive(model, Method.LAGRANGE, SimplifyMode.OFF)
    eq = derive(model, Method.LAGRANGE, mode)
    f_ref = numeric_function(model, list(ref.tau))
    f = numeric_function(model, list(eq.tau))
    rng = np.random.default_rng(2)
    for _ in range(3):
        q, qd, qdd = rng.uniform(-3, 3, (3, 3))
        np.testing.assert_allclose(f(q, qd, qdd), f_ref(q, qd, qdd), rtol=1e-12, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["puma3_symbolic_inertia", "stanford6", "seven_modified"])
def test_generic_tree_forms_match_pinocchio(name):
    """The generic unexpanded forms (recursive NE for tau, link Jacobians for M), kept as the
    benchmark's reference; tree_tau / tree_mass_matrix are the customized forms, checked against
    Pinocchio in test_dyn_opcount.py."""
    from designer.dynamics.tree import generic_tree_mass_matrix, generic_tree_tau
    model = ARMS[name]()
    assert_tau_and_m_match_pinocchio(model, generic_tree_tau(model), generic_tree_mass_matrix(model), seed=3, states=3)
