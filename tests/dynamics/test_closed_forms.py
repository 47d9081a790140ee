"""Each method's own closed forms (the matrices its report prints: Lagrange-Euler M, B, C, G; the
Newton-Euler tau; Lee's D, H, G) give tau, M, G and h that agree with Pinocchio's rnea, crba and
computeGeneralizedGravity on random arms: both DH conventions, revolute and prismatic joints, twists
anywhere, parameters that are numbers and parameters that are symbols with values."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from designer.dynamics import Form, Method, derive
from designer.dynamics.methods import METHODS
from designer.model import Convention, Manipulator, symbol

from tests.support.dyn_reference import numeric_function, pin_model, pin_rnea_crba
from tests.support.random_models import random_model

pin = pytest.importorskip("pinocchio")


def with_symbols(model: Manipulator) -> Manipulator:
    """``model`` with each link's length a and mass written as symbols a_i, m_i whose values are
    the numbers they replace (a project's parameters with defaults)."""
    links, values = [], []
    for i, link in enumerate(model.links, start=1):
        links.append(replace(link, a=symbol(f"a{i}"), mass=symbol(f"m{i}")))
        values += [(f"a{i}", float(link.a)), (f"m{i}", float(link.mass))]
    return replace(model, links=tuple(links), parameters=tuple(values))


def assert_closed_forms_match_pinocchio(model: Manipulator, method: Method, seed: int, states: int = 2) -> None:
    eq = derive(model, method, "fast", form=Form.CLOSED, max_terms=None, time_limit=None)
    assert eq.form is Form.CLOSED and set(eq.matrices) == set(METHODS[method].matrix_names)
    tau, M, G, h = METHODS[method].assemble(model, eq.matrices)
    n = model.n
    f_tau, f_M, f_G, f_h = (numeric_function(model, list(m)) for m in (tau, M, G, h))
    pm = pin_model(model)
    data = pm.createData()
    rng = np.random.default_rng(seed)
    for _ in range(states):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, n))
        tau_ref, M_ref = pin_rnea_crba(pm, q, qd, qdd)
        G_ref = pin.computeGeneralizedGravity(pm, data, q)
        h_ref = pin.rnea(pm, data, q, qd, np.zeros(n)) - G_ref
        for got, want in ((f_tau(q, qd, qdd), tau_ref), (f_M(q, qd, qdd).reshape(n, n), M_ref),
                          (f_G(q, qd, qdd), G_ref), (f_h(q, qd, qdd), h_ref)):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("method", list(Method))
@pytest.mark.parametrize("convention", list(Convention))
def test_closed_forms_of_random_arms_match_pinocchio(method, convention):
    rng = np.random.default_rng(10 * list(Method).index(method) + list(Convention).index(convention))
    for k, n in enumerate((2, 3)):
        model = random_model(rng, n, convention, right_angles=bool(k % 2))
        assert_closed_forms_match_pinocchio(model, method, seed=k)


@pytest.mark.slow
@pytest.mark.parametrize("method", list(Method))
def test_closed_forms_with_symbolic_parameters_match_pinocchio(method):
    """Symbols in the closed form, their values put in afterwards: the report as a project prints it."""
    rng = np.random.default_rng(77)
    for k, convention in enumerate(Convention):
        model = with_symbols(random_model(rng, 3, convention, right_angles=True))
        assert model.free_symbols()
        assert_closed_forms_match_pinocchio(model, method, seed=k)


def test_newton_euler_reads_m_g_h_off_its_printed_tau():
    """The Newton-Euler report prints tau alone; M, G, h are that tau's parts (not a second derivation)."""
    model = random_model(np.random.default_rng(5), 2, Convention.STANDARD)
    eq = derive(model, Method.NEWTON_EULER, "fast", form=Form.CLOSED, time_limit=None)
    extra = model.qd[0] * model.qdd[1]          # a term in qdd_2 only, with a joint rate in it
    shifted = {"tau": eq.matrices["tau"] + sp.Matrix([extra, extra])}
    _, M, G, h = METHODS[Method.NEWTON_EULER].assemble(model, eq.matrices)
    _, M2, G2, h2 = METHODS[Method.NEWTON_EULER].assemble(model, shifted)
    assert (M2 - M).expand() == sp.Matrix([[0, model.qd[0]], [0, model.qd[0]]])
    assert (G2 - G).expand().is_zero_matrix and (h2 - h).expand().is_zero_matrix
