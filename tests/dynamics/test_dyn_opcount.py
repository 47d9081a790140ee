"""The customized Newton-Euler / composite-rigid-body forms (designer.dynamics.customized, used by
tree_tau / tree_mass_matrix) against Pinocchio's rnea and crba, on the PUMA 560 with symbolic
inertial parameters, the Stanford arm (prismatic joint, a load) and a seven-link modified-DH arm."""

from __future__ import annotations

import pytest

from tests.support.dyn_reference import assert_tau_and_m_match_pinocchio, puma560, seven_modified, stanford_six
from designer.dynamics import tree_mass_matrix, tree_tau
from designer.dynamics.customized import custom_mass_matrix, custom_tau

pytest.importorskip("pinocchio")

ARMS = {"puma560_symbolic": lambda: puma560(symbolic_inertia=True), "stanford6": stanford_six,
        "seven_modified": seven_modified}


@pytest.mark.parametrize("name", [pytest.param(k, marks=pytest.mark.slow) if k == "seven_modified" else k
                                  for k in ARMS])
def test_customized_forms_match_pinocchio(name):
    model = ARMS[name]()
    assert_tau_and_m_match_pinocchio(model, custom_tau(model), custom_mass_matrix(model), seed=5, states=4)


def test_tree_forms_are_the_customized_ones():
    model = stanford_six()
    assert tree_tau(model) == custom_tau(model)
    assert tree_mass_matrix(model) == custom_mass_matrix(model)


def test_customized_forms_need_fewer_operations_than_the_generic_tree_forms():
    """count_ops after cse (the code-generation cost) on the 3-link PUMA with ten symbolic
    inertial parameters per link: the customized recursions must beat the generic ones."""
    from designer.dynamics import count_ops_cse
    from designer.dynamics.tree import generic_tree_mass_matrix, generic_tree_tau
    model = puma560(symbolic_inertia=True, n=3)
    upper = lambda M: [M[i, j] for i in range(M.shape[0]) for j in range(i, M.shape[0])]  # noqa: E731
    assert count_ops_cse(list(custom_tau(model))) < count_ops_cse(list(generic_tree_tau(model)))
    assert count_ops_cse(upper(custom_mass_matrix(model))) < count_ops_cse(upper(generic_tree_mass_matrix(model)))


def test_a_cancelled_token_stops_the_derivation():
    from designer.jobs import CancelToken, Cancelled
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        custom_tau(stanford_six(), token)
    with pytest.raises(Cancelled):
        custom_mass_matrix(stanford_six(), token)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_customized_forms_match_pinocchio_on_random_arms(convention):
    """Random five-joint arms (mixed revolute and prismatic joints, full inertias, point masses as
    loads) of both conventions: the grouped inertial moment (Khalil's K) and every skipped product."""
    import numpy as np
    from designer.model import Convention
    from tests.support.pin_reference import random_arm
    from tests.support.random_models import model_from_arm
    rng = np.random.default_rng(17 if convention == "standard" else 18)
    for joints in ("RPRRR", "PRRPR"):
        model = model_from_arm(random_arm(rng, 5, Convention(convention), joints))
        assert model.point_masses and not all(link.is_revolute for link in model.links)
        assert_tau_and_m_match_pinocchio(model, custom_tau(model), custom_mass_matrix(model), seed=7, states=3)


def test_standard_tau_operation_count_does_not_grow():
    """The symbolic PUMA 560's tau after CSE: 745 operations before the grouped inertial moment
    (Khalil's K) and the parent's w_x^2 + w_y^2, 707 with them; a change that loses either shows here."""
    from designer.dynamics import count_ops_cse
    assert count_ops_cse(list(custom_tau(puma560(symbolic_inertia=True)))) <= 707
