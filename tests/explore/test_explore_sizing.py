"""Motor sizing and payload envelope: quintic moves, torques vs Pinocchio, reflected inertia, the
payload limit by hand for a single pendulum and by bisection with Pinocchio."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import robot_path
from tests.support.explore_pin import PinArm, random_arm
from designer.explore.sizing import payload_envelope, quintic, read_trajectory, size_motors
from designer.kinematics import NumericArm
from designer.model import Convention
from designer.project import load_project


def test_quintic_is_rest_to_rest():
    tr = quintic([0.0, 1.0], [1.0, -1.0], 2.0, steps=401)
    assert tr.q[0] == pytest.approx([0, 1]) and tr.q[-1] == pytest.approx([1, -1])
    assert tr.qd[[0, -1]] == pytest.approx(np.zeros((2, 2)))
    assert tr.qdd[[0, -1]] == pytest.approx(np.zeros((2, 2)), abs=1e-12)
    assert np.abs(tr.qd[:, 0]).max() == pytest.approx(15 / 8 / 2.0)   # peak speed 15 d / (8 T)
    assert np.gradient(tr.q[:, 1], tr.t) == pytest.approx(tr.qd[:, 1], abs=1e-3)


def test_sizing_against_pinocchio_with_reflected_inertia():
    arm = random_arm(np.random.default_rng(11), 3, Convention.STANDARD, joints="RRR")
    ref = PinArm(arm)
    tr = quintic([0.1, -0.5, 0.3], [1.2, 0.4, -0.8], 1.5, steps=101)
    gear, rotor = np.array([100.0, 80.0, 50.0]), np.array([2e-5, 3e-5, 1e-5])
    res = size_motors(arm, tr, gear, rotor)
    for s in range(0, 101, 10):
        q, qd, qdd = tr.q[s], tr.qd[s], tr.qdd[s]
        tau = ref.M(q) @ qdd + ref.h(q, qd) + ref.G(q) + gear**2 * rotor * qdd
        assert res.torque[s] == pytest.approx(tau, abs=1e-9)
        assert res.inertia_ratio[s] == pytest.approx(np.diag(ref.M(q)) / (gear**2 * rotor))
    rows = res.table()
    tau = res.torque[:, 0]
    assert rows[0]["peak_torque"] == pytest.approx(np.abs(tau).max())
    assert rows[0]["rms_torque"] <= rows[0]["peak_torque"]
    assert rows[0]["motor_peak_torque"] == pytest.approx(rows[0]["peak_torque"] / 100)
    assert rows[2]["motor_peak_speed"] == pytest.approx(50 * np.abs(tr.qd[:, 2]).max())
    assert res.power == pytest.approx(res.torque * tr.qd)


def test_trajectory_csv(tmp_path):
    path = tmp_path / "traj.csv"
    t = np.linspace(0, 1, 51)
    path.write_text("t,q1,q2\n" + "".join(f"{a},{np.sin(a)},{a**2}\n" for a in t))
    tr = read_trajectory(path, 2)
    assert tr.qd[5:-5, 0] == pytest.approx(np.cos(t[5:-5]), abs=1e-3)
    assert tr.qdd[5:-5, 1] == pytest.approx(2.0, abs=1e-6)
    (tmp_path / "bad.csv").write_text("t,q1\n0,1\n")
    with pytest.raises(ValueError, match="missing column"):
        read_trajectory(tmp_path / "bad.csv", 2)


def test_payload_of_a_horizontal_link_by_hand():
    """Planar two-link held straight out (q = 0): joint 1 holds g (m1 d1 + m2 (L1 + d2) + m (L1 + L2 + x))."""
    model = load_project(robot_path("planar_two_link"))
    p = model.parameter_values
    arm = NumericArm.from_model(model)
    T = np.array([60.0, 30.0])
    offsets = np.array([[0.0, 0, 0], [0.2, 0, 0], [-0.3, 0, 0]])
    m = payload_envelope(arm, offsets, T, np.zeros((1, 2)))
    g, L1, L2 = p["g"], p["L1"], p["L2"]
    arm1 = g * (p["m1"] * p["d1"] + p["m2"] * (L1 + p["d2"]))
    arm2 = g * p["m2"] * p["d2"]
    for k, x in enumerate(offsets[:, 0]):
        expect = min((T[0] - arm1) / (g * (L1 + L2 + x)), (T[1] - arm2) / (g * abs(L2 + x)))
        assert m[k] == pytest.approx(expect)
    assert payload_envelope(arm, offsets[:1], [1.0, 1.0], np.zeros((1, 2)))[0] == 0.0


def test_payload_limit_along_a_move_matches_pinocchio_bisection():
    arm = random_arm(np.random.default_rng(4), 3, Convention.MODIFIED, joints="RRR", loads=False)
    tr = quintic([0, 0.2, -0.4], [1.0, -0.6, 0.9], 1.0, steps=41)
    rated = np.array([80.0, 60.0, 40.0])
    r = np.array([0.05, 0.1, -0.02])
    m = payload_envelope(arm, r[None], rated, tr.q, tr.qd, tr.qdd)[0]
    assert np.isfinite(m) and m > 0

    def peak_ratio(mass):
        loaded = type(arm)(**{**arm.__dict__, "point_masses": ((2, mass, r),)})
        ref = PinArm(loaded)
        return max(np.max(np.abs(ref.M(q) @ a + ref.h(q, v) + ref.G(q)) / rated)
                   for q, v, a in zip(tr.q, tr.qd, tr.qdd))
    assert peak_ratio(m * 0.999) < 1 < peak_ratio(m * 1.001)
