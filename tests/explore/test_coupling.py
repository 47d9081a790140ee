"""Coupling and Coriolis/centrifugal sweeps against Pinocchio and against physical laws."""

from __future__ import annotations

import io

import numpy as np
import pytest

from designer.explore.coupling import (Quantity, default_range, pair_quantities, parameter_grid,
                                       sweep_joint, write_csv)
from designer.kinematics import NumericArm
from designer.model import Convention, Link, Manipulator

from tests.support.pin_reference import pin, pin_model, random_arm


def _pin_reference(arm: NumericArm, q, i: int, j: int) -> dict[Quantity, float]:
    """The same quantities from Pinocchio: M by CRBA; Gamma by RNEA with unit velocities, no gravity."""
    model = pin_model(arm)
    model.gravity = pin.Motion.Zero()
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    zero, E = np.zeros(arm.n), np.eye(arm.n)
    h = lambda v: pin.rnea(model, data, q, v, zero).copy()  # noqa: E731
    # h(e_i + e_j) - h(e_i - e_j) = 4 Gamma_(ij), independent of how coupling.py polarises
    gamma = 0.25 * (h(E[i] + E[j]) - h(E[i] - E[j]))
    return {
        Quantity.COUPLING: M[i, j], Quantity.NORMALISED: M[i, j] / np.sqrt(M[i, i] * M[j, j]),
        Quantity.CORIOLIS_I: gamma[i], Quantity.CORIOLIS_J: gamma[j],
        Quantity.CENTRIFUGAL_IJ: h(E[j])[i], Quantity.CENTRIFUGAL_JI: h(E[i])[j],
    }


@pytest.mark.parametrize("convention,joints", [(Convention.STANDARD, "RRRRRR"), (Convention.MODIFIED, "RRPRR"),
                                               (Convention.STANDARD, "RPRPR"), (Convention.MODIFIED, "PRPRR")])
def test_pair_quantities_match_pinocchio(convention, joints):
    rng = np.random.default_rng(3)
    arm = random_arm(rng, len(joints), convention, joints)
    Q = rng.uniform(-2, 2, (5, arm.n))
    for i, j in [(0, 1), (3, 1), (0, arm.n - 1)]:
        ours = pair_quantities(arm, Q, i, j)
        for k, q in enumerate(Q):
            ref = _pin_reference(arm, q, i, j)
            for quantity, value in ref.items():
                assert ours[quantity][k] == pytest.approx(value, rel=1e-9, abs=1e-10), (quantity, i, j)


def test_parameter_grid_matches_arms_built_one_by_one():
    model = _two_link()
    grid = parameter_grid(model, "L2", [0.5, 0.9], "m2", [1.0, 4.0])
    sweep = grid.evaluate([0.2, -0.4], 0, 1)
    for s, m2 in enumerate([1.0, 4.0]):
        curve = list(sweep.curves.values())[s]
        for k, l2 in enumerate([0.5, 0.9]):
            arm = NumericArm.from_model(model, {"L2": l2, "m2": m2})
            ref = _pin_reference(arm, np.array([0.2, -0.4]), 0, 1)
            for quantity, value in ref.items():
                assert curve[quantity][k] == pytest.approx(value, rel=1e-9, abs=1e-12)


def test_normalised_coupling_is_bounded():
    """M is positive definite, so |M_ij| < sqrt(M_ii M_jj)."""
    rng = np.random.default_rng(9)
    arm = random_arm(rng, 5, Convention.MODIFIED, "RRRRR")
    sweep = sweep_joint(arm, rng.uniform(-1, 1, 5), 1, 3, 2, np.linspace(-np.pi, np.pi, 50))
    normalised = sweep.curves[""][Quantity.NORMALISED]
    assert np.all(np.abs(normalised) < 1) and np.ptp(normalised) > 1e-3


def _two_link(l1="L1", l2="L2") -> Manipulator:
    """Planar arm with point-like links: M_12 = m2 (L2^2 + L1 L2 cos q2) at the link ends."""
    links = (Link("R", a=l1, mass="m1", com=("0", 0, 0)), Link("R", a=l2, mass="m2", com=(0, 0, 0)))
    return Manipulator(links=links, parameters={"L1": 1.0, "L2": 0.8, "m1": 2.0, "m2": 1.5, "g": 9.81})


def test_joint_sweep_of_two_link_arm_follows_textbook_formulas():
    """Masses at the link ends: M_12 = m2 (L2^2 + L1 L2 c2), C_12 = -m2 L1 L2 s2, C_21 = m2 L1 L2 s2,
    B_1,12 = -m2 L1 L2 s2 (Spong, Hutchinson & Vidyasagar; ROBMAT's double pendulum)."""
    model = _two_link()
    arm = NumericArm.from_model(model)
    q2 = np.linspace(-3, 3, 31)
    sweep = sweep_joint(arm, [0.3, 0.0], 0, 1, 1, q2)
    c = sweep.curves[""]
    m2, L1, L2 = 1.5, 1.0, 0.8
    np.testing.assert_allclose(c[Quantity.COUPLING], m2 * (L2**2 + L1 * L2 * np.cos(q2)), atol=1e-12)
    np.testing.assert_allclose(c[Quantity.CENTRIFUGAL_IJ], -m2 * L1 * L2 * np.sin(q2), atol=1e-12)
    np.testing.assert_allclose(c[Quantity.CENTRIFUGAL_JI], m2 * L1 * L2 * np.sin(q2), atol=1e-12)
    np.testing.assert_allclose(c[Quantity.CORIOLIS_I], -m2 * L1 * L2 * np.sin(q2), atol=1e-12)
    np.testing.assert_allclose(c[Quantity.CORIOLIS_J], 0.0, atol=1e-12)


def test_parameter_sweep_with_second_parameter():
    model = _two_link()
    L1 = np.linspace(0.5, 1.5, 11)
    sweep = parameter_grid(model, "L1", L1, "m2", [1.0, 2.0, 3.0]).evaluate([0.0, 0.7], 0, 1)
    assert list(sweep.curves) == ["m2 = 1", "m2 = 2", "m2 = 3"]
    for m2, curve in zip([1.0, 2.0, 3.0], sweep.curves.values()):
        np.testing.assert_allclose(curve[Quantity.COUPLING], m2 * (0.8**2 + L1 * 0.8 * np.cos(0.7)), atol=1e-12)
    assert default_range(model, "L1") == (0.5, 1.5)


def test_bad_requests_give_clear_errors():
    model = _two_link()
    with pytest.raises(ValueError, match="not a symbol of the model"):
        parameter_grid(model, "L9", [1.0])
    with pytest.raises(ValueError, match="not two different joints"):
        pair_quantities(NumericArm.from_model(model), [0, 0], 1, 1)


def test_csv_has_a_column_per_curve_and_quantity():
    model = _two_link()
    sweep = parameter_grid(model, "L2", [0.5, 1.0], "m2", [1.0, 2.0]).evaluate([0.0, 0.7], 0, 1)
    out = io.StringIO()
    write_csv(sweep, out, [Quantity.COUPLING])
    rows = out.getvalue().splitlines()
    assert rows[0] == "L2,M_12 [m2 = 1],M_12 [m2 = 2]"
    assert len(rows) == 3
    x, a, b = map(float, rows[2].split(","))
    assert (x, a, b) == pytest.approx((1.0, 1.0 + np.cos(0.7), 2 * (1.0 + np.cos(0.7))))


def test_round_off_is_drawn_as_zero_and_nothing_else_is_touched():
    """Issue 29 item 11: the palletizer's M_12 (base yaw with shoulder), zero by the arm's mirror symmetry about its
    vertical plane, came out as 1e-14 and was plotted as a jagged curve. Pinocchio agrees it is zero to round-off;
    the sweep now gives 0 exactly, and a quantity above round-off is the raw value (Pinocchio's to 1e-9)."""
    from designer.project import load_project
    from tests.support import robot_path
    arm = NumericArm.from_model(load_project(robot_path("palletizer_serial")))
    values = np.linspace(-1.2, 1.2, 9)
    q = np.array([0.3, 0.0, -0.4, 0.2])   # base yaw, shoulder (swept), elbow, wrist
    sweep = sweep_joint(arm, q, 0, 1, 1, values)
    curves = sweep.curves[""]
    for quantity in (Quantity.COUPLING, Quantity.NORMALISED, Quantity.CORIOLIS_J, Quantity.CENTRIFUGAL_IJ):
        assert np.all(curves[quantity] == 0.0), quantity
    for k, v in enumerate(values):
        qk = q.copy()
        qk[1] = v
        ref = _pin_reference(arm, qk, 0, 1)
        assert abs(ref[Quantity.COUPLING]) < 1e-11 * np.abs(ref[Quantity.CORIOLIS_I]).max() + 1e-9
        assert curves[Quantity.CORIOLIS_I][k] == pytest.approx(ref[Quantity.CORIOLIS_I], rel=1e-9)
        assert abs(curves[Quantity.CORIOLIS_I][k]) > 1.0   # a real term: not zeroed
    genuine = sweep_joint(arm, q, 1, 2, 1, values).curves[""][Quantity.COUPLING]
    for k, v in enumerate(values):
        qk = q.copy()
        qk[1] = v
        assert genuine[k] == pytest.approx(_pin_reference(arm, qk, 1, 2)[Quantity.COUPLING], rel=1e-9)


def test_the_joint_to_sweep_is_one_the_entry_varies_with_by_pinocchio():
    """M of a serial arm does not depend on q1 (the whole chain turns about the base axis): for a PUMA,
    the joint chosen for M_12 must be one that moves M_12 in Pinocchio's CRBA, and q1 never is."""
    from designer.explore.coupling import joint_moving_entry
    from designer.kinematics import display_arm
    from designer.project import load_project
    from tests.support import robot_path
    arm = display_arm(load_project(robot_path("puma560")))
    model = pin_model(arm)
    data = model.createData()
    rng = np.random.default_rng(3)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        k = joint_moving_entry(arm, i, j, preferred=0)
        assert k != 0
        q = rng.uniform(-np.pi, np.pi, arm.n)
        values = []
        for v in np.linspace(-np.pi, np.pi, 9):
            q[k] = v
            values.append(pin.crba(model, data, q)[i, j])
        assert np.ptp(values) > 1e-3 * np.abs(values).max()
