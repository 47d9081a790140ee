"""Closed-form equations of linearly closing mechanisms (parallelograms) in the actuated coordinates.

Each side is independent: the closed forms (TrigRing, the closure substituted exactly) against
Pinocchio's rnea and crba of the spanning tree at loop-consistent states, projected by W from central
differences of the numeric closure; the generated Python and C-ready code against the same; the
Lagrange identities of the closed forms (tau = M qdd + 2 B [qq] + C [q^2] + G, D_rot + D_tra = M).
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import sympy as sp

from designer.codegen.c_code import emit_c
from designer.dynamics.closed_form import NotLinearClosure, closed_chain_equations
from designer.dynamics.results import velocity_products, velocity_squares
from designer.model import Convention
from designer.numeric.closed import ClosedDynamics
from designer.project import load_project
from tests.support import robot_path
from tests.support.closed_reference import PinMechanism, four_bar, parallelogram_arm

CASES = [("random", conv, seed, wrist) for conv in Convention for seed, wrist in ((0, False), (1, True))]
CASES += [("palletizer_parallelogram", None, 0, False), ("acma_sr400", None, 0, False)]


def model_of(name, conv, seed, wrist):
    if name == "random":
        return parallelogram_arm(np.random.default_rng(seed), conv, wrist=wrist)
    return load_project(robot_path(name))


def fd_W(cd, qa, eps=1e-6):
    return np.array([(cd.positions(qa + e) - cd.positions(qa - e)) / (2 * eps) for e in np.eye(cd.n) * eps]).T


@pytest.mark.parametrize("name, conv, seed, wrist", CASES)
def test_closed_forms_match_pinocchio_on_the_spanning_tree(name, conv, seed, wrist):
    model = model_of(name, conv, seed, wrist)
    eq = closed_chain_equations(model, "lagrange")
    carrier = eq.model
    subs = model.substitutions()
    f_tau = sp.lambdify(list(carrier.q) + list(carrier.qd) + list(carrier.qdd), eq.tau.xreplace(subs))
    f_M = sp.lambdify(list(carrier.q), eq.mass_matrix.xreplace(subs))
    cd = ClosedDynamics(model)
    ref = PinMechanism(model)
    rng = np.random.default_rng(seed + 50)
    for _ in range(4):
        qa, qda, qdda = rng.uniform(-0.7, 0.7, cd.n), rng.normal(size=cd.n), rng.normal(size=cd.n)
        q, qd, qdd, _ = cd.state(qa, qda, qdda)
        W = fd_W(cd, qa)
        expected_tau = W.T @ ref.rnea(q, qd, qdd)
        # the tree's M column by column from rnea at unit accelerations
        zero = np.zeros(cd.n_tree)
        bias = ref.rnea(q, zero, zero)
        tree_M = np.array([ref.rnea(q, zero, e) - bias for e in np.eye(cd.n_tree)]).T
        expected_M = W.T @ tree_M @ W
        scale = max(1.0, np.abs(expected_tau).max())
        assert np.abs(np.ravel(f_tau(*qa, *qda, *qdda)) - expected_tau).max() < 1e-7 * scale
        M = np.array(f_M(*qa), dtype=float)
        assert np.abs(M - expected_M).max() < 1e-7 * max(1.0, np.abs(expected_M).max())


def test_lagrange_and_lee_forms_hold_together():
    model = parallelogram_arm(np.random.default_rng(3), Convention.MODIFIED)
    lag = closed_chain_equations(model, "lagrange")
    lee = closed_chain_equations(model, "dalembert")
    c = lag.model
    h = 2 * lag["B"] * velocity_products(c.qd) + lag["C"] * velocity_squares(c.qd)
    subs = {s: v for s, v in zip(list(c.q) + list(c.qd), np.random.default_rng(1).normal(size=2 * c.n))}
    subs.update(model.substitutions())
    assert np.allclose(np.array((h - lag.coriolis).xreplace(subs), dtype=float), 0, atol=1e-9)
    assert np.allclose(np.array((lee["D_rot"] + lee["D_tra"] - lag.mass_matrix).xreplace(subs), dtype=float), 0,
                       atol=1e-9)
    assert np.allclose(np.array((lee["H_rot"] + lee["H_tra"] - lag.coriolis).xreplace(subs), dtype=float), 0,
                       atol=1e-9)


def test_generated_python_code_matches_the_numeric_projection(tmp_path):
    model = load_project(robot_path("palletizer_parallelogram"))
    eq = closed_chain_equations(model, "lagrange")
    path = tmp_path / "pal.py"
    from designer.codegen.files import full_plan
    from designer.codegen.python_code import emit_python
    path.write_text(emit_python(full_plan(eq, "derived", only=("tau", "mass_matrix", "gravity", "bias"))))
    spec = importlib.util.spec_from_file_location("pal", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cd = ClosedDynamics(model)
    rng = np.random.default_rng(4)
    for _ in range(3):
        qa, qda, qdda = rng.uniform(-0.6, 0.6, 4), rng.normal(size=4), rng.normal(size=4)
        assert np.allclose(mod.tau(qa, qda, qdda), cd.tau(qa, qda, qdda), rtol=1e-10, atol=1e-8)
        assert np.allclose(np.asarray(mod.mass_matrix(qa)).reshape(4, 4), cd.M(qa), rtol=1e-10, atol=1e-9)
    assert "tau" in emit_c(full_plan(eq, "derived", only=("tau",)))


def test_a_four_bar_has_no_closed_form_and_says_so():
    with pytest.raises(NotLinearClosure, match="numerically"):
        closed_chain_equations(four_bar(np.random.default_rng(0), Convention.STANDARD))


def test_christoffel_coriolis_matrix_makes_mdot_minus_2c_skew():
    """The closed forms' C (Christoffel) with dM/dt = sum dM/dq_k qd_k, symbolically: M' - 2C is skew
    and C qd is the velocity term h."""
    from designer.dynamics import derive
    from designer.dynamics.engine import coriolis_matrix
    model = parallelogram_arm(np.random.default_rng(6), Convention.STANDARD)
    eq = derive(model)   # a closed chain goes to its closed forms
    assert "closed_chain" in eq.extras
    c = eq.model
    C = coriolis_matrix(eq)
    Mdot = sp.zeros(c.n, c.n)
    for q, v in zip(c.q, c.qd):
        Mdot += eq.mass_matrix.diff(q) * v
    subs = {s: x for s, x in zip(list(c.q) + list(c.qd), np.random.default_rng(2).normal(size=2 * c.n))}
    S = np.array((Mdot - 2 * C).xreplace(subs), dtype=float)
    assert np.abs(S + S.T).max() < 1e-9
    h = np.array((C * sp.Matrix(c.qd) - eq.coriolis).xreplace(subs), dtype=float)
    assert np.abs(h).max() < 1e-9


def test_linear_closure_is_checked_exactly_for_every_parameter_value():
    """A coupler whose length is another parameter, equal to the upper arm's only at the defaults:
    numerically a parallelogram, symbolically not; with the same symbol, exactly one."""
    from dataclasses import replace

    from designer.model import symbol
    model = load_project(robot_path("palletizer_parallelogram"))
    coupler = model.links[4]
    other = replace(model, links=model.links[:4] + (replace(coupler, a=symbol("L5")),) + model.links[5:]
                    ).with_parameter("L5", model.parameter_values["L2"])
    with pytest.raises(NotLinearClosure, match="does not hold for every value"):
        closed_chain_equations(other)
    assert closed_chain_equations(model).extras["closed_chain"]["closure"] == ["q3 = - q2 + q4", "q5 = q2 - q4"]
