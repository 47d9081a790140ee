"""Joint limits in a simulation (issue 20, item 2): where a motion passes them, and end stops that hold the
arm there, checked against the pendulum's statics by hand, the energy balance and a brute-force scan."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from designer.jobs import CancelToken, run
from designer.kinematics import NumericArm
from designer.model import Inertia, Link, Manipulator
from designer.numeric.end_stops import end_stops_for, limit_passes
from designer.numeric.motion import passive_job
from designer.numeric.simulate import simulate
from designer.project import load_project
from tests.support import robot_path

M, L, D, G = 2.0, 1.0, 0.5, 9.81     # a uniform rod of 2 kg, 1 m, pivoted at one end, gravity -y


def pendulum(lower: float) -> NumericArm:
    """One rod from the horizontal (q = 0) falling down towards its lower limit ``lower`` (rad)."""
    rod = Link("R", a=L, mass=M, com=(D - L, 0, 0), inertia=Inertia(0, M * L ** 2 / 12, M * L ** 2 / 12),
               limits=(lower, 2.0))
    return NumericArm.from_model(Manipulator(links=(rod,), gravity=(0, -G, 0)))


def test_the_stop_holds_the_rod_where_its_spring_balances_gravity():
    lower = -math.radians(30)
    arm = pendulum(lower)
    stops = end_stops_for(arm, [0.0])
    traj = simulate(arm, [0.0], [0.0], (0.0, 3.0), t_eval=np.linspace(0, 3, 301), end_stops=stops)
    q = traj.q[:, 0]
    # at rest on the stop: k * depth = the gravity torque m g d cos(q) (by hand, about the pivot)
    depth = lower - q[-1]
    assert abs(traj.qd[-1, 0]) < 1e-3
    assert stops.stiffness[0] * depth == pytest.approx(M * G * D * math.cos(q[-1]), rel=1e-3)
    # critically damped but pushing only: a small rebound (the damper may not pull the rod back), then at rest
    first = int(np.argmax(q < lower))
    assert first > 0 and np.all(q[first:] < lower + math.radians(1)) and np.all(q[-50:] < lower)
    # the impact: about v / omega deep (v from the fall's energy, omega = 2 pi 30 Hz); within a factor 2
    inertia = M * L ** 2 / 3
    v = math.sqrt(2 * M * G * D * math.sin(-lower) / inertia)
    assert 0.25 * v / (2 * math.pi * 30) < (lower - q.min()) < 2 * v / (2 * math.pi * 30)


def test_the_energy_changes_by_the_stops_work():
    arm = NumericArm.from_model(load_project(robot_path("puma560")))
    q0 = np.radians([0, 135.6, 0, 0, 0, 0])
    with_stops = run(passive_job(arm, q0, 2.0, 51, CancelToken(), limits="stop"))
    e = with_stops.energy
    assert with_stops.work is not None and with_stops.work[-1] < -1.0      # the stops took energy out
    assert np.abs(e - e[0] - with_stops.work).max() < 1e-6 * np.ptp(e)
    # every joint stays within its limits but for the stops' give (well under a degree here)
    lo, hi = arm.limits[:, 0], arm.limits[:, 1]
    assert np.all(with_stops.q >= lo - math.radians(1)) and np.all(with_stops.q <= hi + math.radians(1))
    # without stops the same fall runs through them, conserving energy, and the passes are listed
    free = run(passive_job(arm, q0, 2.0, 51, CancelToken(), limits="warn"))
    assert np.ptp(free.energy) < 1e-6 * np.abs(free.energy).max() and free.work is None
    joints = {p.joint for p in free.passes}
    assert 2 in joints and free.q[:, 1].max() > hi[1] + 0.5
    assert run(passive_job(arm, q0, 0.5, 11, CancelToken(), limits="ignore")).passes == ()


@pytest.mark.parametrize("seed", range(5))
def test_limit_passes_agree_with_a_scan_of_every_sample(seed):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 1, 200)
    q = np.cumsum(rng.normal(0, 0.1, (200, 3)), axis=0)
    limits = np.array([[-0.5, 0.5], [np.nan, np.nan], [-1.0, 0.2]])
    passes = {(p.joint, p.side): p for p in limit_passes(t, q, limits)}
    for i in range(3):
        for side, k, sign in (("lower", 0, -1), ("upper", 1, 1)):
            past = [j for j in range(200) if sign * (q[j, i] - limits[i, k]) > 1e-9]
            if not past:
                assert (i + 1, side) not in passes
                continue
            p = passes[(i + 1, side)]
            assert p.t_first == t[past[0]]
            assert p.depth == pytest.approx(max(sign * (q[j, i] - limits[i, k]) for j in past))
    assert t.size and all(p.t_first <= p.t_deepest for p in passes.values())


def test_the_command_line_models_the_stops_or_says_where_limits_were_passed(tmp_path):
    base = [sys.executable, "-m", "designer", "simulate", str(robot_path("puma560")), "--q0", "0", "2.3666",
            "0", "0", "0", "0", "--t", "1", "--dt", "0.05", "--quiet"]
    warn = subprocess.run(base + ["--out", str(tmp_path / "w.csv")], capture_output=True, text=True)
    assert warn.returncode == 0 and "warning: q2 passed its upper limit (225°)" in warn.stdout
    stop = subprocess.run(base + ["--limits", "stop", "--out", str(tmp_path / "s.csv")], capture_output=True,
                          text=True)
    assert stop.returncode == 0 and "end stop: q2" in stop.stdout
    rows = np.genfromtxt(tmp_path / "s.csv", delimiter=",", names=True)
    assert rows["q2"].max() < math.radians(226) and "stop_work" in rows.dtype.names
    energy = rows["energy"]
    assert np.abs(energy - energy[0] - rows["stop_work"]).max() < 1e-6 * max(np.ptp(energy), 1.0)
    bad = subprocess.run(base + ["--limits", "bounce"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--limits" in bad.stderr


def test_end_stops_refuse_a_start_outside_the_limits():
    arm = NumericArm.from_model(load_project(robot_path("puma560")))
    with pytest.raises(ValueError, match=r"q2 starts at 346°, past its upper limit \(225°\)"):
        end_stops_for(arm, np.radians([0, 346, 0, 0, 0, 0]))
    with pytest.raises(ValueError, match="q2 starts"):
        run(passive_job(arm, np.radians([0, 346, 0, 0, 0, 0]), 0.5, 11, CancelToken(), limits="stop"))


@pytest.mark.parametrize("seed", range(4))
def test_random_arms_keep_the_energy_balance_and_their_limits(seed):
    from dataclasses import replace

    from designer.model import Convention
    from tests.support.pin_reference import random_arm
    rng = np.random.default_rng(100 + seed)
    arm = random_arm(rng, 3, Convention.STANDARD, joints="RRR")
    q0 = rng.uniform(-0.3, 0.3, 3)
    limits = np.column_stack([q0 - rng.uniform(0.2, 0.6, 3), q0 + rng.uniform(0.2, 0.6, 3)])
    arm = replace(arm, limits=limits)
    result = run(passive_job(arm, q0, 1.5, 76, CancelToken(), limits="stop"))
    e = result.energy
    scale = max(np.ptp(e), np.abs(result.work).max(), 1e-3)
    assert np.abs(e - e[0] - result.work).max() < 1e-5 * scale        # energy changes by the stops' work
    assert np.all(result.q >= limits[:, 0] - math.radians(3)) and np.all(result.q <= limits[:, 1] + math.radians(3))
    free = run(passive_job(arm, q0, 1.5, 76, CancelToken(), limits="warn"))
    outside = (free.q < limits[:, 0]) | (free.q > limits[:, 1])
    # the passes listed are exactly the joints the free fall takes outside (a scan of every sample)
    assert {p.joint for p in free.passes} == {i + 1 for i in range(3) if outside[:, i].any()}
