"""Term significance: contributions by hand (planar two-link), the error bound checked by sampling
against Pinocchio's inverse dynamics, and the simplified model's operation count."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import robot_path
from tests.support.explore_pin import PinArm
from designer.explore.batch import Batch
from designer.explore.significance import check_bound, operation_counts, term_significance
from designer.kinematics import NumericArm
from designer.model import Manipulator
from designer.project import load_project


def test_two_link_contributions_by_hand():
    model = load_project(robot_path("planar_two_link"))
    p = model.parameter_values
    arm = NumericArm.from_model(model)
    v, a = np.array([2.0, 3.0]), np.array([5.0, 8.0])
    sig = term_significance(arm, v, a, samples=4096)
    by = {t.label: t for t in sig.terms}
    L1, d1, d2, m1, m2, I2, g = (p[k] for k in ("L1", "d1", "d2", "m1", "m2", "I2", "g"))
    assert by["G_1"].contribution == pytest.approx(g * (m1 * d1 + m2 * (L1 + d2)), rel=5e-3)
    assert by["G_2"].contribution == pytest.approx(g * m2 * d2, rel=5e-3)
    assert by["M_12"].contribution == pytest.approx((I2 + m2 * (d2**2 + L1 * d2)) * a[1], rel=5e-3)
    assert by["M_22"].contribution == pytest.approx((I2 + m2 * d2**2) * a[1], rel=1e-12)
    # h1 = -m2 L1 d2 s2 (2 qd1 qd2 + qd2^2), h2 = m2 L1 d2 s2 qd1^2
    k = m2 * L1 * d2
    assert by["B_1,12"].contribution == pytest.approx(2 * k * v[0] * v[1], rel=5e-3)
    assert by["C_12"].contribution == pytest.approx(k * v[1] ** 2, rel=5e-3)
    assert by["C_21"].contribution == pytest.approx(k * v[0] ** 2, rel=5e-3)
    assert by["C_11"].contribution == pytest.approx(0, abs=1e-12)
    assert by["C_22"].contribution == pytest.approx(0, abs=1e-12)
    assert all(t.relative <= 1 for t in sig.terms)


@pytest.fixture(scope="module")
def puma3():
    m = load_project(robot_path("puma560"))
    return Manipulator(links=m.links[:3], convention=m.convention, gravity=m.gravity, parameters=m.parameters)


def test_bound_of_the_simplified_model_holds_by_sampling(puma3):
    arm = NumericArm.from_model(puma3)
    sig = term_significance(arm, [3.0, 3.0, 3.0], [10.0, 10.0, 10.0], threshold=0.05)
    assert 0 < len(sig.kept()) < len(sig.terms)
    assert sig.bound()[0] > 0
    check = check_bound(arm, sig, samples=2000)
    assert check["holds"].all(), check
    # the same with Pinocchio's inverse dynamics as the full model
    ref = PinArm(arm)
    rng = np.random.default_rng(5)
    q = rng.uniform(-np.pi, np.pi, (200, 3))
    qd = np.sign(rng.normal(size=(200, 3))) * sig.speed
    qdd = np.sign(rng.normal(size=(200, 3))) * sig.acceleration
    simple = sig.simplified_torque(Batch(arm, q), qd, qdd)
    full = np.array([ref.G(q[s]) + ref.h(q[s], qd[s]) + ref.M(q[s]) @ qdd[s] for s in range(200)])
    assert np.all(np.abs(full - simple).max(axis=0) <= sig.bound() + 1e-9 * sig.reference)


def test_operation_count_drops_with_terms(puma3):
    arm = NumericArm.from_model(puma3)
    sig = term_significance(arm, [3.0, 3.0, 3.0], [10.0, 10.0, 10.0], threshold=0.05)
    full, simple = operation_counts(puma3, sig)
    assert 0 < simple < full
    nothing = term_significance(arm, [3.0, 3.0, 3.0], [10.0, 10.0, 10.0], threshold=0.0)
    assert operation_counts(puma3, nothing)[1] == full


def test_the_job_gives_the_functions_results_in_stages():
    from designer.explore.significance import significance_job
    from designer.jobs import NEVER, run
    model = load_project(robot_path("planar_two_link"))
    arm = NumericArm.from_model(model)
    steps = []
    got = run(significance_job(model, arm, [2.0, 2.0], [5.0, 5.0], 0.1, 256, True, NEVER, check=500), steps.append)
    sig = term_significance(arm, [2.0, 2.0], [5.0, 5.0], 0.1, 256)
    assert [t.contribution for t in got.significance.terms] == [t.contribution for t in sig.terms]
    check = check_bound(arm, sig, 500)
    assert all(np.array_equal(got.check[k], check[k]) for k in check)
    assert got.operations == operation_counts(model, sig)
    assert [s.stage for s in steps] == ["terms", "bound check", "operation counts", "done"]
    assert [s.fraction for s in steps] == sorted(s.fraction for s in steps)
    bare = run(significance_job(model, arm, [2.0, 2.0], [5.0, 5.0], 0.1, 256, False, NEVER, check=0))
    assert bare.check == {} and bare.operations is None
