"""The named-step tau that ``codegen`` writes (designer.dynamics.standard_ne.custom_tau_steps: Khalil's
customized Newton-Euler with every vector a step, the parallel-joint composition, the first joint's
own part collected on qdd_1) against Pinocchio's rnea on random arms, and its operation count."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from designer.dynamics.standard_ne import custom_tau_steps
from designer.model import Convention
from designer.model.angles import exact_angles
from tests.support.dyn_reference import pin_model, pin_rnea_crba, puma560

pytest.importorskip("pinocchio")


def _evaluate(model, steps, tau, q, qd, qdd) -> np.ndarray:
    """The steps in order, in doubles (as the generated code runs them), then tau."""
    env = {s: v for syms, vals in ((model.q, q), (model.qd, qd), (model.qdd, qdd)) for s, v in zip(syms, vals)}
    env.update({sp.Symbol(k, real=True): v for k, v in model.parameter_values.items()})

    def value(e):
        e = sp.sympify(e)
        args = sorted(e.free_symbols, key=lambda s: s.name)
        return float(sp.lambdify(args, e, "math")(*(env[a] for a in args)))
    for sym, e in steps:
        env[sym] = value(e)
    return np.array([value(e) for e in tau])


def _arm(rng, convention: str, joints: str):
    """A random arm whose twists are 0, +-pi/2 or any angle (so the skipped products, the parent's
    w_x^2 + w_y^2 and the parallel-joint composition are all exercised)."""
    from tests.support.pin_reference import random_arm
    from tests.support.random_models import model_from_arm
    arm = random_arm(rng, len(joints), Convention(convention), joints)
    arm.dh[:, 1] = rng.choice([0.0, math.pi / 2, -math.pi / 2, arm.dh[0, 1]], size=len(joints))
    arm.dh[2, 1] = 0.0   # joints 2 and 3 parallel when both revolute (in the standard table: link 2's twist)
    arm.dh[1, 1] = 0.0
    return exact_angles(model_from_arm(arm)).model


@pytest.mark.parametrize("convention", ["standard", "modified"])
@pytest.mark.parametrize("joints", ["RRRRRR", "RPRRPR", "PRRRRP"])
def test_named_steps_match_pinocchio_on_random_arms(convention, joints):
    rng = np.random.default_rng(sum(map(ord, convention + joints)))
    model = _arm(rng, convention, joints)
    _steps_match_pinocchio(model, rng)


def _steps_match_pinocchio(model, rng) -> None:
    """The named steps' tau at three random states against Pinocchio's rnea, to 1e-12."""
    steps, tau = custom_tau_steps(model, sp.numbered_symbols("s", real=True))
    pm = pin_model(model)
    for _ in range(3):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, model.n))
        ref, _ = pin_rnea_crba(pm, q, qd, qdd)
        np.testing.assert_allclose(_evaluate(model, steps, tau, q, qd, qdd), ref, rtol=1e-12,
                                   atol=1e-12 * np.abs(ref).max())


def test_symbolic_puma_steps_match_pinocchio():
    """The PUMA 560 with symbolic inertial parameters (the collected first joint reads them)."""
    model = exact_angles(puma560(symbolic_inertia=True)).model
    _steps_match_pinocchio(model, np.random.default_rng(31))


def test_generated_tau_operations_do_not_grow():
    """The tau ``codegen`` writes for the PUMA 560 with symbolic lengths, g and inertial parameters:
    649 operations as one graph, 621 as these named steps, 494 per call with the parameter-only work in
    a prepare step (codegen/prepare.py; benchmarks/bench_codegen.py prints them)."""
    from benchmarks.bench_derive import emitted_tau_ops, puma_symbolic
    assert emitted_tau_ops(puma_symbolic()) <= 494
