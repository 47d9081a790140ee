"""The regressor Y (tau = Y pi) and the base parameters, against Pinocchio and the rank of Y."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import robot_path
from designer.identification.base_params import base_parameters, base_regressor, joint_frame_regressor
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.numeric import rnea
from designer.identification.regressor import regressor
from designer.dynamics.inertial import standard_parameter_values
from designer.project import load_project
from tests.support.dyn_reference import puma560, seven_modified, stanford_six
from tests.support.pin_reference import pin_model
from tests.support.random_models import random_model

pin = pytest.importorskip("pinocchio")

# our order m, mx, my, mz, XX, XY, XZ, YY, YZ, ZZ; Pinocchio's m, mc, Ixx, Ixy, Iyy, Ixz, Iyz, Izz
PIN_ORDER = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]


def _states(rng, n: int, count: int):
    return rng.uniform(-np.pi, np.pi, (n, count)), rng.normal(size=(n, count)), rng.normal(size=(n, count))


@pytest.mark.parametrize("convention", list(Convention))
@pytest.mark.parametrize("seed", range(3))
def test_y_pi_is_tau_and_y_is_pinocchios(convention, seed):
    rng = np.random.default_rng(seed)
    model = random_model(rng, 7, convention)
    arm = NumericArm.from_model(model)
    pi = standard_parameter_values(arm)
    Q, QD, QDD = _states(rng, arm.n, 8)
    Y = regressor(arm, Q, QD, QDD)
    pm = pin_model(arm)
    data = pm.createData()
    Yj = joint_frame_regressor(model, arm, Q, QD, QDD)  # Pinocchio's parameters are joint-frame ones
    for k in range(Q.shape[1]):
        assert np.allclose(Y[k] @ pi, rnea(arm, Q[:, k], QD[:, k], QDD[:, k]), rtol=0, atol=1e-10)
        Yp = pin.computeJointTorqueRegressor(pm, data, Q[:, k], QD[:, k], QDD[:, k])
        ours = Yj[k].reshape(arm.n, arm.n, 10)
        theirs = Yp.reshape(arm.n, arm.n, 10)[:, :, PIN_ORDER]
        assert np.abs(ours - theirs).max() < 1e-10
        assert np.allclose(Y[k] @ pi, pin.rnea(pm, data, Q[:, k], QD[:, k], QDD[:, k]), atol=1e-10)


def test_one_state_and_bad_shapes():
    arm = NumericArm.from_model(stanford_six())
    q, qd, qdd = np.full(6, 0.3), np.full(6, -0.2), np.full(6, 0.5)
    assert regressor(arm, q, qd, qdd).shape == (6, 60)
    with pytest.raises(ValueError, match="expected 6 values"):
        regressor(arm, q[:5], qd, qdd)


def _check_base(model, seed: int = 11, count: int = 60):
    """Base count = numerical rank of Y; Y_b beta = Y pi; a fit from torques returns beta."""
    bp = base_parameters(model)
    arm = NumericArm.from_model(model, {n: 0.5 for n in model.unvalued_symbols()})
    rng = np.random.default_rng(seed)
    Q, QD, QDD = _states(rng, model.n, count)
    Y = regressor(arm, Q, QD, QDD).reshape(-1, 10 * model.n)
    s = np.linalg.svd(Y, compute_uv=False)
    rank = int(np.sum(s > 1e-9 * s[0]))
    assert bp.count == rank
    pi = standard_parameter_values(arm)
    beta = bp.values(pi, {n: 0.5 for n in model.unvalued_symbols()})
    Yb = base_regressor(bp, arm, Q, QD, QDD).reshape(-1, bp.count)
    tau = Y @ pi
    assert np.abs(Yb @ beta - tau).max() < 1e-9 * max(1.0, np.abs(tau).max())
    fit, *_ = np.linalg.lstsq(Yb, tau, rcond=None)
    assert np.abs(fit - beta).max() < 1e-8 * max(1.0, np.abs(beta).max())
    return bp


@pytest.mark.parametrize("name", ["puma560", "scara", "stanford_modified", "planar_two_link", "double_pendulum"])
def test_base_parameters_of_bundled_arms(name):
    _check_base(load_project(robot_path(name)))


def test_base_parameters_puma_symbolic_and_known_count():
    bp = _check_base(puma560(symbolic_inertia=True))
    assert bp.count == 36
    # ZZR1: link 1's inertia about joint 1 (YY1 in the standard-DH link frame, turned by alpha1 = pi/2)
    # plus what links 2 and 3 hand down (YY2, the mass of link 3 at distance a2 ...)
    zzr1 = bp.formulas[bp.names.index("ZZR1")]
    assert {"YY1", "YY2", "m3", "a2"} <= {s.name for s in zzr1.free_symbols}
    assert not bp.numeric_groups
    assert "YY2" in bp.dropped and "m1" in bp.dropped


def test_base_parameters_stanford_and_seven():
    _check_base(stanford_six())
    _check_base(seven_modified())


@pytest.mark.parametrize("seed", range(20))
def test_base_parameters_random_arms(seed):
    rng = np.random.default_rng(100 + seed)
    convention = list(Convention)[seed % 2]
    n = 3 + seed % 5
    _check_base(random_model(rng, n, convention, right_angles=seed % 3 != 0), seed)


def test_drive_parameters_join_the_regressor_and_the_base_set():
    """Reflected rotor inertia and friction on every joint of the PUMA: the drive columns give the
    drive terms of designer.model.drives, the base set still matches the rank, and Ia1 (joint 1
    turns about the fixed vertical axis, like ZZR1) is grouped with link 1's inertia about that axis."""
    from dataclasses import replace

    from designer.model.drives import friction_torque, reflected_inertia
    from designer.model.extras import Drive
    from designer.identification.regressor import drive_regressor
    from designer.dynamics.inertial import drive_parameter_values

    base = load_project(robot_path("puma560"))
    links = tuple(replace(link, drive=Drive(gear_ratio=50.0 + j, motor_inertia=2e-4, viscous=1.0 + j,
                                             coulomb=0.5 * j)) for j, link in enumerate(base.links))
    model = replace(base, links=links)
    rng = np.random.default_rng(3)
    Q, QD, QDD = _states(rng, 6, 40)
    Yd = drive_regressor(model, QD, QDD)
    pd = drive_parameter_values(model)
    for k in range(5):
        expected = reflected_inertia(model) @ QDD[:, k] + friction_torque(model, QD[:, k])
        assert np.allclose(Yd[k] @ pd, expected, atol=1e-12)
    bp = base_parameters(model, drives=True)
    arm = NumericArm.from_model(model)
    Y = np.concatenate([regressor(arm, Q, QD, QDD), Yd], axis=-1).reshape(-1, 78)
    s = np.linalg.svd(Y, compute_uv=False)
    assert bp.count == int(np.sum(s > 1e-9 * s[0]))
    zz1 = next(f for f in bp.formulas if "ZZ1" in str(f) or "Ia1" in str(f))  # ZZR1 + Ia1 one parameter
    assert "Ia1" in bp.dropped and {"Ia1", "YY1"} <= {s.name for s in zz1.free_symbols}
    pi = np.concatenate([standard_parameter_values(arm), pd])
    beta = bp.values(pi)
    Yb = base_regressor(bp, arm, Q, QD, QDD).reshape(-1, bp.count)
    tau = Y @ pi
    fit, *_ = np.linalg.lstsq(Yb, tau, rcond=None)
    assert np.abs(Yb @ beta - tau).max() < 1e-9 * np.abs(tau).max()
    assert np.abs(fit - beta).max() < 1e-8 * max(1.0, np.abs(beta).max())
