"""Maps of the metrics that need only M and G take them from the recursive engine (explore/maps.py's
mass_route): the same values as the bodies' Jacobians give, and as Pinocchio's CRBA gives."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from designer.explore.maps import MASS_ONLY, RecursiveMass, grid_map, grid_states, mass_route, sample_summary
from designer.explore.metrics import Ratings, evaluate, parse_metric
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.project import load_project

from tests.support.pin_reference import pin, pin_model, random_arm

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _ratings(n: int) -> Ratings:
    return Ratings(torque=np.linspace(40.0, 90.0, n), acceleration=np.linspace(2.0, 7.0, n))


@pytest.mark.parametrize("seed,convention,joints", [(1, Convention.STANDARD, "RRRRRR"),
                                                    (2, Convention.MODIFIED, "RRPRR"),
                                                    (3, Convention.STANDARD, "PRPRRR")])
@pytest.mark.parametrize("metric", sorted(MASS_ONLY | {"torque_bound"}))
def test_routed_maps_equal_the_jacobian_route(seed, convention, joints, metric):
    arm = random_arm(np.random.default_rng(seed), len(joints), convention, joints)   # point masses on
    arm = dataclasses.replace(arm, limits=np.tile([-0.5, 0.5], (arm.n, 1)))   # a prismatic joint needs its range
    ratings = _ratings(arm.n)
    spec = parse_metric(metric, arm.n)
    assert isinstance(mass_route(arm, spec, ratings), RecursiveMass)
    q0 = np.random.default_rng(seed + 10).uniform(-1.0, 1.0, arm.n)
    ranges = [(-2.0, 2.0), (-1.5, 1.0)]
    routed = grid_map(arm, spec, (2, 3), q0, steps=(23, 17), ranges=ranges, ratings=ratings)
    _, _, Q = grid_states(arm, (2, 3), q0, (23, 17), ranges)
    jacobians = evaluate(arm, Q, spec, ratings).reshape(routed.values.shape)   # evaluate: no route of its own
    scale = np.nanmax(np.abs(jacobians))
    assert np.array_equal(np.isnan(routed.values), np.isnan(jacobians))
    assert np.nanmax(np.abs(routed.values - jacobians)) <= 1e-12 * max(1.0, scale)


def test_the_routed_coupling_map_is_pinocchios():
    arm = NumericArm.from_model(load_project(ROOT / "robots" / "puma560.json"))
    gm = grid_map(arm, "coupling", (2, 3), np.zeros(6), steps=40)
    _, _, Q = grid_states(arm, (2, 3), np.zeros(6), 40)
    model = pin_model(arm)
    data = model.createData()
    ref = np.empty(len(Q))
    for k, q in enumerate(Q):
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        d = np.sqrt(np.diag(M))
        rho = np.abs(M / np.outer(d, d))
        np.fill_diagonal(rho, 0.0)
        ref[k] = rho.max()
    assert np.abs(gm.values.ravel() - ref).max() <= 1e-12


def test_metrics_beyond_m_and_closed_chains_keep_the_jacobians():
    arm = random_arm(np.random.default_rng(4), 5, Convention.STANDARD, "RRRRR")
    assert mass_route(arm, parse_metric("isotropy", arm.n)) is None
    speeds = Ratings(acceleration=np.ones(5), speed=np.ones(5))
    assert mass_route(arm, parse_metric("torque_bound", arm.n), speeds) is None   # its Coriolis term
    summary = sample_summary(arm, "cond", count=64)
    assert np.allclose(summary.values, evaluate(arm, summary.q, "cond"), rtol=1e-12, atol=0)
