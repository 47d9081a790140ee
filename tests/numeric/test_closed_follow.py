"""A nonlinear closure's following engine (a simulation's) reuses what it solved at the pose it closed last
(ClosedDynamics.close's last pose, Closure's loop terms of the last pose): its answers must be those of a new
engine continuing from the same pose without that memo, and Pinocchio's constraintDynamics at the same closed
state."""

from __future__ import annotations

import numpy as np
import pytest

from designer.model import Convention
from designer.numeric.closed import ClosedDynamics
from tests.dynamics.test_closed_compact import fixed_cut_four_bar, slider_crank
from tests.support.closed_reference import PinMechanism, four_bar

CASES = {
    "planar four-bar, standard": lambda s: four_bar(np.random.default_rng(s), Convention.STANDARD),
    "planar four-bar, modified": lambda s: four_bar(np.random.default_rng(s), Convention.MODIFIED),
    "spatial (mounted) four-bar": lambda s: four_bar(np.random.default_rng(s), Convention.STANDARD, mounted=True),
    "slider-crank": slider_crank,
    "four-bar cut at a fixed joint (Newton)": fixed_cut_four_bar,
}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", list(CASES))
def test_a_following_engine_answers_as_a_fresh_one_and_as_pinocchio(name, seed):
    model = CASES[name](seed)
    cd = ClosedDynamics(model)
    follow = cd.following()
    pm = PinMechanism(model)
    rng = np.random.default_rng(10 + seed)
    # a short path of states and back again to the first (a stale memo would answer the wrong pose)
    path = [0.05 * k * np.ones(cd.n) for k in range(4)] + [np.zeros(cd.n)]
    for qa in path:
        qd, tau = rng.uniform(-1, 1, (2, cd.n))
        before = follow.last
        q_tree = follow.close(qa)              # as simulate's right-hand side: the state closed, then its dynamics
        assert np.array_equal(q_tree[cd.act], qa) and ClosedDynamics(model).closure.residual(q_tree) < 1e-9
        ours = follow.qdd(qa, qd, tau)
        again = follow.qdd(qa, qd, tau)
        fresh = ClosedDynamics(model).following(before)   # the same start, no memo: a new engine, a new closure
        assert np.allclose(fresh.close(qa), q_tree, rtol=0, atol=1e-12)
        assert np.allclose(fresh.qdd(qa, qd, tau), ours, rtol=0, atol=1e-12 * max(1.0, np.abs(ours).max()))
        assert np.array_equal(again, ours)
        W = cd.closure.W(q_tree)
        tau_tree = np.zeros(cd.n_tree)
        tau_tree[cd.act] = tau
        ref = pm.constrained(q_tree, W @ qd, tau_tree)[cd.act]
        assert np.allclose(ours, ref, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(ref).max())), (name, ours, ref)
