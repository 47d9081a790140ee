"""Metrics against hand-derived cases (planar two-link, Horn's chain) and Pinocchio's M, J and h."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import robot_path
from tests.support.explore_pin import PinArm, random_arm
from designer.explore.batch import Batch
from designer.explore.metrics import (METRICS, MetricError, Ratings, compute, evaluate, parse_metric,
                                      speed_corners)
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.project import load_project

RNG = np.random.default_rng(20261122)


@pytest.fixture(scope="module")
def two_link():
    model = load_project(robot_path("planar_two_link"))
    return model, NumericArm.from_model(model)


def _hand_M(p, q2):
    """Planar two-link by hand (Duarte's notebook): COM distances d1, d2, inertias I1, I2 about the COM."""
    c2 = np.cos(q2)
    m11 = p["I1"] + p["I2"] + p["m1"] * p["d1"]**2 + p["m2"] * (p["L1"]**2 + p["d2"]**2 + 2 * p["L1"] * p["d2"] * c2)
    m12 = p["I2"] + p["m2"] * (p["d2"]**2 + p["L1"] * p["d2"] * c2)
    m22 = p["I2"] + p["m2"] * p["d2"]**2
    return np.array([[m11, m12], [m12, m22]])


def test_two_link_coupling_and_effective_inertia_by_hand(two_link):
    model, arm = two_link
    p = model.parameter_values
    q = RNG.uniform(-3, 3, (40, 2))
    rho = compute(arm, q, "coupling")
    locked, free, ratio = (compute(arm, q, k) for k in ("inertia_locked", "inertia_free", "inertia_ratio"))
    for s in range(len(q)):
        M = _hand_M(p, q[s, 1])
        assert rho[s, 0, 1] == pytest.approx(M[0, 1] / np.sqrt(M[0, 0] * M[1, 1]), rel=1e-12)
        assert np.diag(rho[s]) == pytest.approx([1, 1])
        assert locked[s] == pytest.approx(np.diag(M), rel=1e-12)
        det = np.linalg.det(M)
        # free inertia of joint 1 = det M / M22 (the other joint yields)
        assert free[s] == pytest.approx([det / M[1, 1], det / M[0, 0]], rel=1e-10)
        assert ratio[s] == pytest.approx(1 - rho[s, 0, 1]**2, rel=1e-10)
    assert evaluate(arm, q, "coupling").shape == (40,)
    assert evaluate(arm, q, "coupling") == pytest.approx(np.abs(rho[:, 0, 1]))


def test_two_link_gravity_by_hand(two_link):
    model, arm = two_link
    p = model.parameter_values
    q = RNG.uniform(-3, 3, (20, 2))
    G = compute(arm, q, "gravity")
    c1, c12 = np.cos(q[:, 0]), np.cos(q.sum(axis=1))
    g1 = p["g"] * (p["m1"] * p["d1"] * c1 + p["m2"] * (p["L1"] * c1 + p["d2"] * c12))
    g2 = p["g"] * p["m2"] * p["d2"] * c12
    assert G == pytest.approx(np.abs(np.column_stack([g1, g2])), rel=1e-12, abs=1e-12)
    ratio = compute(arm, q, "gravity_ratio", Ratings.of(2, torque=[40.0, 10.0]))
    assert ratio == pytest.approx(G / [40.0, 10.0])


def test_horn_coriolis_vanishes_at_multiples_of_90_degrees():
    """Horn's memo, p. 14: the theta1' theta2' term of T12 is (1/3) m2 l2^2 2 s2 c2 and the
    centrifugal term of T22 is -(1/3) m2 l2^2 s2 c2 theta1'^2: zero when theta2 is a multiple of 90 deg."""
    model = load_project(robot_path("horn_three_dof"))
    p = model.parameter_values
    arm = NumericArm.from_model(model, {"m3": 0.0, "M2": 0.0, "M3": 0.0})
    theta2 = np.deg2rad([0, 90, 180, 270, 30, 45, 120])
    q = np.column_stack([np.full(7, 0.4), theta2, np.full(7, -0.7)])
    gamma = Batch(arm, q).gamma
    k = p["m2"] * p["L2"]**2 / 3
    s2c2 = np.sin(theta2) * np.cos(theta2)
    # h1 = 2 Gamma_1,12 qd1 qd2 and h2 = Gamma_2,11 qd1^2
    assert 2 * gamma[:, 0, 0, 1] == pytest.approx(2 * k * s2c2, abs=1e-12)
    assert gamma[:, 1, 0, 0] == pytest.approx(-k * s2c2, abs=1e-12)
    assert np.abs(gamma[:4]).max() < 1e-12
    assert np.abs(gamma[4:, 0, 0, 1]).min() > 0.01 * k


@pytest.mark.parametrize("convention", list(Convention))
def test_mass_matrix_gravity_coriolis_match_pinocchio(convention):
    arm = random_arm(RNG, 5, convention)
    ref = PinArm(arm)
    q, qd = RNG.uniform(-3, 3, (6, 5)), RNG.normal(size=(6, 5))
    b = Batch(arm, q)
    h = b.coriolis(qd)
    for s in range(len(q)):
        assert b.M[s] == pytest.approx(ref.M(q[s]), abs=1e-10)
        assert b.G[s] == pytest.approx(ref.G(q[s]), abs=1e-10)
        assert h[s] == pytest.approx(ref.h(q[s], qd[s]), abs=1e-10)
        assert b.tool_jacobian[s] == pytest.approx(ref.J(q[s]), abs=1e-12)


def test_cartesian_metrics_match_pinocchio():
    arm = random_arm(RNG, 6, Convention.STANDARD, joints="RRRRRR", loads=False)
    ref = PinArm(arm)
    tau = RNG.uniform(5, 50, 6)
    ratings = Ratings.of(6, torque=tau)
    q = RNG.uniform(-3, 3, (8, 6))
    iso, lmin, dyn, cond = (compute(arm, q, k, ratings)
                            for k in ("isotropy", "cartesian_min", "dyn_manipulability", "cond"))
    for s in range(len(q)):
        M, Jv = ref.M(q[s]), ref.J(q[s])[:3]
        Lam = np.linalg.inv(Jv @ np.linalg.solve(M, Jv.T))
        ev = np.linalg.eigvalsh(Lam)
        assert iso[s] == pytest.approx(ev[0] / ev[-1], rel=1e-8)
        assert lmin[s] == pytest.approx(ev[0], rel=1e-8)
        W = np.diag(1 / tau**2)
        assert dyn[s] == pytest.approx(np.sqrt(np.linalg.det(Jv @ np.linalg.inv(M.T @ W @ M) @ Jv.T)), rel=1e-7)
        assert cond[s] == pytest.approx(np.linalg.cond(M), rel=1e-8)


def test_cartesian_inertia_of_planar_arm_uses_its_two_directions(two_link):
    """n = 2 < 3 task rows: the isotropy ratio is that of the 2 x 2 inertia in the plane."""
    model, arm = two_link
    q = np.array([[0.3, 1.1]])
    b = Batch(arm, q)
    Jxy = b.tool_jacobian[0, :2]
    Lam = np.linalg.inv(Jxy @ np.linalg.solve(b.M[0], Jxy.T))
    ev = np.linalg.eigvalsh(Lam)
    assert compute(arm, q, "isotropy")[0] == pytest.approx(ev[0] / ev[1], rel=1e-9)


def test_coriolis_significance_against_pinocchio_corners():
    arm = random_arm(RNG, 4, Convention.MODIFIED, joints="RRPR", loads=True)
    ref = PinArm(arm)
    speed, acc = np.array([2.0, 1.5, 0.5, 3.0]), np.array([10.0, 8.0, 2.0, 20.0])
    q = RNG.uniform(-2, 2, (5, 4))
    values = compute(arm, q, "coriolis", Ratings.of(4, speed=speed, acceleration=acc))
    signs = np.array(np.meshgrid(*[[1, -1]] * 4)).reshape(4, -1).T  # all 16 corners
    for s in range(len(q)):
        h = np.array([ref.h(q[s], sg * speed) for sg in signs])
        assert values[s] == pytest.approx(np.abs(h).max(axis=0) / (np.diag(ref.M(q[s])) * acc), rel=1e-9)
    assert len(speed_corners(speed)) == 8


def test_lee_split_against_pinocchio_with_inertias_removed():
    """D_tra is the mass matrix of the same arm with every body shrunk to a point at its COM."""
    arm = random_arm(RNG, 5, Convention.STANDARD, joints="RRRRR")
    points = type(arm)(**{**arm.__dict__, "inertia": np.zeros_like(arm.inertia)})
    full, tra = PinArm(arm), PinArm(points)
    q, qd = RNG.uniform(-3, 3, (4, 5)), RNG.normal(size=5)
    b = Batch(arm, q)
    h_tra, h_rot = b.lee_h(qd)
    share = compute(arm, q, "tra_share")
    for s in range(len(q)):
        assert b.D_tra[s] == pytest.approx(tra.M(q[s]), abs=1e-10)
        assert b.D_rot[s] == pytest.approx(full.M(q[s]) - tra.M(q[s]), abs=1e-10)
        assert h_tra[s] == pytest.approx(tra.h(q[s], qd), abs=1e-10)
        assert h_tra[s] + h_rot[s] == pytest.approx(full.h(q[s], qd), abs=1e-10)
        Dt, Dr = tra.M(q[s]), full.M(q[s]) - tra.M(q[s])
        assert share[s] == pytest.approx(np.abs(Dt) / (np.abs(Dt) + np.abs(Dr)), abs=1e-9)


def test_lee_observation_on_the_puma():
    """Lee et al. section 3: translation dominates D_ii of the first three joints, rotation the wrist."""
    arm = NumericArm.from_model(load_project(robot_path("puma560")))
    from designer.explore.maps import sample_configurations
    q = sample_configurations(arm, 256)
    share = np.einsum("nii->ni", compute(arm, q, "tra_share"))
    assert np.all(share[:, :3] > 0.5) and np.all(share[:, 3:] < 0.5)   # at every sampled pose


def test_metric_texts():
    assert parse_metric("coupling[1,3]", 3).index == (0, 2)
    assert parse_metric(" gravity [2] ", 3).label == "gravity[2]"
    for bad in ("nothing", "coupling[1]", "gravity[4]", "cond[1]", "coupling[0,1]", "gravity(1)"):
        with pytest.raises(MetricError):
            parse_metric(bad, 3)
    arm = NumericArm.from_model(load_project(robot_path("planar_two_link")))
    with pytest.raises(MetricError, match="rated torque"):
        evaluate(arm, np.zeros((1, 2)), "dyn_manipulability")
    with pytest.raises(MetricError, match="positive"):
        Ratings.of(2, torque=[1.0, -1.0])
    assert set(METRICS) >= {"coupling", "cond", "isotropy", "coriolis", "gravity", "tra_share"}


def test_batch_agrees_with_the_recursive_and_compiled_numerics():
    """The project's own single-state numerics (RNEA) and compiled symbolic dynamics give the same M, G, Gamma."""
    from designer.numeric import recursive
    model = load_project(robot_path("horn_three_dof_offsets"))
    arm = NumericArm.from_model(model)
    q = RNG.uniform(-3, 3, (5, arm.n))
    b = Batch(arm, q)
    for s in range(len(q)):
        assert b.M[s] == pytest.approx(recursive.mass_matrix(arm, q[s]), abs=1e-12)
        assert b.G[s] == pytest.approx(recursive.gravity_torque(arm, q[s]), abs=1e-12)
        assert b.gamma[s] == pytest.approx(recursive.christoffel(arm, q[s]), abs=1e-12)
    compiled_mod = pytest.importorskip("designer.numeric.compiled")
    from designer.dynamics.engine import derive
    from designer.dynamics.results import Method, SimplifyMode
    compiled = compiled_mod.compile_equations(derive(model, Method.LAGRANGE, SimplifyMode.OFF))
    assert compute(arm, q, "coupling", compiled=compiled) == pytest.approx(compute(arm, q, "coupling"), abs=1e-12)
    assert compute(arm, q, "gravity", compiled=compiled) == pytest.approx(compute(arm, q, "gravity"), abs=1e-10)
