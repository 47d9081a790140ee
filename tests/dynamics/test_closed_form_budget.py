"""When a closed form is given: the size estimate bounds the true term count from above (numeric
coefficients merging counted), arms whose closed form is cheap get it, arms whose expansion cannot
finish get the recursive form at once (the estimate) or at the time budget, with a message that
says which."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from designer.dynamics import Form, Method, derive
from designer.dynamics.engine import AUTO_LIMIT, compact_job
from designer.dynamics.size import ClosedFormTooSlow, Deadline, expanded_terms
from designer.jobs import NEVER, CancelToken, Cancelled, run
from designer.model import Convention

from tests.dynamics.test_closed_forms import with_symbols
from tests.support.anyarm_arms import generic_arm, panda, symbolic_arm
from tests.support.dyn_reference import assert_tau_and_m_match_pinocchio
from tests.support.random_models import random_model


def _estimate(model) -> int:
    tau = run(compact_job(model, NEVER, need=("tau",)))[0]
    return max(expanded_terms(list(tau), model.q, model.qd, model.qdd))


def _true_terms(model) -> int:
    """Terms of the largest expanded tau_i, as the derivation's ring holds it (no simplification)."""
    eq = derive(model, Method.NEWTON_EULER, "off", form=Form.CLOSED, max_terms=None)
    return max(len(sp.Add.make_args(t)) for t in eq.tau)


@pytest.mark.parametrize("seed", range(6))
def test_the_estimate_bounds_the_true_term_count(seed):
    """Both bounds are upper bounds: on random arms with numbers and with symbols, R and P joints."""
    rng = np.random.default_rng(seed)
    model = random_model(rng, 2 + seed % 2, list(Convention)[seed % 2], right_angles=seed % 3 == 0)
    if seed >= 4:
        model = with_symbols(model)
    assert _estimate(model) >= _true_terms(model)


def test_numbers_merge_in_the_estimate():
    """A generic 4-joint arm with numeric twists and inertias: 280 terms. Multiplying out bounds it at
    5e6 (the old refusal); counting the monomials it can hold brings that under 1e5."""
    model = generic_arm(4)
    tau = run(compact_job(model, NEVER, need=("tau",)))[0]
    assert max(expanded_terms(list(tau))) > 10 * max(expanded_terms(list(tau), model.q, model.qd, model.qdd))
    assert _estimate(model) < 100_000


def test_a_numeric_four_joint_arm_gets_its_closed_form():
    model = generic_arm(4)
    eq = derive(model, Method.LAGRANGE, time_limit=math.inf)     # auto, as the window and the CLI ask
    assert eq.form is Form.CLOSED and "too_large" not in eq.extras
    assert_tau_and_m_match_pinocchio(model, list(eq.tau), list(eq.mass_matrix), seed=4, states=2)


@pytest.mark.slow
def test_the_panda_gets_its_closed_form():
    """Refused at 4e5 estimated terms before; about 15 s (Lagrange, fast simplification)."""
    model = panda()
    assert _estimate(model) < AUTO_LIMIT
    eq = derive(model, Method.LAGRANGE, time_limit=math.inf)
    assert eq.form is Form.CLOSED
    assert_tau_and_m_match_pinocchio(model, list(eq.tau), list(eq.mass_matrix), seed=7, states=1)


@pytest.mark.parametrize("n", [6, 7])
def test_a_symbolic_six_or_seven_joint_arm_is_refused_before_expanding(n):
    """Every parameter a symbol: the estimate refuses (no expansion starts, so no time is spent)."""
    eq = derive(symbolic_arm(n), Method.LAGRANGE)
    assert eq.form is Form.COMPACT and "too_slow" not in eq.extras
    entry, terms, limit = eq.extras["too_large"]
    assert terms > limit == AUTO_LIMIT and entry.startswith("tau_")


def test_the_time_budget_stops_an_expansion():
    model = generic_arm(5)       # 3.9e5 estimated: within the limit, so the expansion starts
    eq = derive(model, Method.LAGRANGE, time_limit=0.2)
    assert eq.form is Form.COMPACT and "too_large" not in eq.extras
    seconds, stage = eq.extras["too_slow"]
    assert seconds == 0.2 and stage
    with pytest.raises(ClosedFormTooSlow, match=r"did not finish within 0.2 s \(stopped at .+\); show the recursive"):
        derive(model, Method.NEWTON_EULER, form=Form.CLOSED, time_limit=0.2)


def test_a_cancel_is_still_a_cancel_under_the_budget():
    token = CancelToken()
    budget = Deadline(token, 3600)
    budget.check()
    token.cancel()
    assert budget.cancelled and not budget.expired
    with pytest.raises(Cancelled):
        budget.check()
    with pytest.raises(Cancelled):
        derive(generic_arm(4), token=token)
