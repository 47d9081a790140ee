"""Maps of the metrics that need only M and G take them from the recursive engine (explore/maps.py's
mass_route): the same values as the bodies' Jacobians give, and as Pinocchio's CRBA gives."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from designer.explore.maps import (MASS_ONLY, RecursiveMass, grid_map, grid_routed, grid_states, mass_route,
                                   sample_summary)
from designer.explore.metrics import Ratings, evaluate, parse_metric
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.project import load_project

from tests.support.pin_reference import pin_coupling, pin_model, random_arm

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
    ref = pin_coupling(model, model.createData(), Q)
    assert np.abs(gm.values.ravel() - ref).max() <= 1e-12


def test_metrics_beyond_m_and_closed_chains_keep_the_jacobians():
    arm = random_arm(np.random.default_rng(4), 5, Convention.STANDARD, "RRRRR")
    assert mass_route(arm, parse_metric("isotropy", arm.n)) is None
    speeds = Ratings(acceleration=np.ones(5), speed=np.ones(5))
    assert mass_route(arm, parse_metric("torque_bound", arm.n), speeds) is None   # its Coriolis term
    summary = sample_summary(arm, "cond", count=64)
    assert np.allclose(summary.values, evaluate(arm, summary.q, "cond"), rtol=1e-12, atol=0)


@pytest.mark.parametrize("seed,convention,joints", [(5, Convention.STANDARD, "RRRRRR"),
                                                    (6, Convention.MODIFIED, "RPRRPR")])
def test_the_grid_route_is_the_state_by_state_route_to_the_bit(seed, convention, joints):
    """M and coupling over a joint grid (explore/maps.py's grid_values: the recursive engine's M code run once
    on the grid's broadcast axes) against the same code state by state: the same numbers, NaN where a joint
    moves nothing (the last link here: massless, no load)."""
    arm = random_arm(np.random.default_rng(seed), len(joints), convention, joints)
    arm = dataclasses.replace(arm, limits=np.tile([-0.5, 0.5], (arm.n, 1)))
    light = dataclasses.replace(arm, mass=np.r_[arm.mass[:-1], 0.0],
                                inertia=np.r_[arm.inertia[:-1], np.zeros((1, 3, 3))],
                                point_masses=tuple(p for p in arm.point_masses if p[0] != arm.n - 1))
    q0 = np.random.default_rng(seed + 20).uniform(-1.0, 1.0, arm.n)
    ranges = [(-2.0, 2.0), (-1.5, 1.0)]
    for model in (arm, light):
        for metric in ("coupling", "coupling[1,3]", "coupling[2,2]", "coupling[4,6]", "M", "M[3,1]"):
            spec = parse_metric(metric, model.n)
            assert grid_routed(model, spec)
            for pair in ((2, 3), (4, 1), (1, 6), (5, 6)):
                gm = grid_map(model, spec, pair, q0, steps=(11, 7), ranges=ranges)
                _, _, Q = grid_states(model, pair, q0, (11, 7), ranges)
                ref = evaluate(model, Q, spec, compiled=RecursiveMass(model)).reshape(gm.values.shape)
                assert np.array_equal(gm.values, ref, equal_nan=True), (metric, pair)
    assert np.isnan(grid_map(light, "coupling", (2, 3), q0, steps=5).values).all()
    assert not grid_routed(arm, parse_metric("cond", arm.n))
