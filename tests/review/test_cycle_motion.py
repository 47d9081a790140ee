"""The cycle's motion as `size` and the Optimize panel's drive choice take it (designer.review.cycle_motion): with
``"timing": "time-optimal"`` the re-timed motion the review checks, for waypoints and for a trajectory file alike,
against the bang-bang closed form of a one-joint move (the planar two-link arm without gravity, joint 2 held)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from designer.cli import main
from designer.explore.sizing import quintic
from designer.model.extras import Drive
from designer.model.requirements import Cycle, Requirements
from designer.project import load_project, save_project
from designer.review import cycle_motion
from tests.support import robot_path

T1, N, JM = 20.0, 50.0, 2e-5     # joint 1's peak torque; both drives' ratio and rotor inertia
DISTANCE = 1.5


def joint1_inertia() -> float:
    """M11 at q2 = 0 of the Duarte two-link arm's defaults (uniform rods 1.0 m / 2 kg and 0.8 m / 1 kg):
    I1 + m1 d1^2 + I2 + m2 (L1^2 + d2^2 + 2 L1 d2), plus the rotor reflected N^2 Jm."""
    m1, L1, m2, L2 = 2.0, 1.0, 1.0, 0.8
    return m1 * L1**2 / 12 + m1 * (L1 / 2)**2 + m2 * L2**2 / 12 + m2 * (L1**2 + (L2 / 2)**2 + L1 * L2) + N**2 * JM


def arm(cycle: Cycle):
    model = load_project(robot_path("planar_two_link")).with_parameters({"g": 0.0})
    links = tuple(replace(link, drive=Drive(gear_ratio=N, motor_inertia=JM, rated_torque=peak / 2, peak_torque=peak))
                  for link, peak in zip(model.links, (T1, 1000.0)))
    return replace(model, links=links, requirements=Requirements((), None, cycle))


def slow_file(tmp_path):
    """The same straight move as a file, timed slowly (10 s of quintic)."""
    tr = quintic([0.0, 0.0], [DISTANCE, 0.0], 10.0, steps=301)
    path = tmp_path / "slow.csv"
    path.write_text("t,q1,q2\n" + "".join(f"{t!r},{a!r},{b!r}\n" for t, (a, b) in zip(tr.t.tolist(), tr.q.tolist())))
    return path


@pytest.mark.parametrize("kind", ["waypoints", "file"])
def test_the_time_optimal_cycle_is_the_bang_bang_move(tmp_path, kind):
    cycle = (Cycle(waypoints=((0.0, 0.0), (DISTANCE, 0.0)), timing="time-optimal") if kind == "waypoints" else
             Cycle(trajectory=str(slow_file(tmp_path)), timing="time-optimal"))
    traj, timing = cycle_motion(arm(cycle))
    J = joint1_inertia()
    expected = 2 * np.sqrt(DISTANCE * J / T1)
    assert "time-optimal" in timing
    assert traj.t[-1] == pytest.approx(expected, rel=1e-2) and traj.t[-1] >= expected * (1 - 1e-6)
    assert np.max(np.abs(traj.qdd[:, 0])) == pytest.approx(T1 / J, rel=1e-6)   # the peak torque used up
    assert np.allclose(traj.q[:, 1], 0.0) and traj.q[-1, 0] == pytest.approx(DISTANCE)
    # the file's own timing when the project does not ask for time-optimal
    if kind == "file":
        own, timing = cycle_motion(arm(replace(cycle, timing="")))
        assert own.t[-1] == pytest.approx(10.0) and "time-optimal" not in timing


@pytest.mark.parametrize("kind", ["waypoints", "file"])
def test_size_takes_the_projects_time_optimal_cycle(tmp_path, capsys, kind):
    cycle = (Cycle(waypoints=((0.0, 0.0), (DISTANCE, 0.0)), timing="time-optimal") if kind == "waypoints" else
             Cycle(trajectory=str(slow_file(tmp_path)), timing="time-optimal"))
    project = tmp_path / "arm.json"
    save_project(arm(cycle), project)
    assert main(["size", str(project)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    seconds = float(re.search(r"\(([0-9.e+-]+) s,", head).group(1))
    assert seconds == pytest.approx(2 * np.sqrt(DISTANCE * joint1_inertia() / T1), rel=1e-2)
    assert "time-optimal" in head


@pytest.mark.parametrize("kind", ["waypoints", "file"])
def test_optimize_takes_peak_torque_along_the_projects_time_optimal_cycle(tmp_path, kind):
    """Without --cycle the optimizer's ``peak_torque`` is taken along the project's cycle as the review times it:
    on the bang-bang move the link side carries its share of joint 1's peak, T1 (J - N^2 Jm) / J."""
    from designer.optimize.problem import Problem, quantities
    cycle = (Cycle(waypoints=((0.0, 0.0), (DISTANCE, 0.0)), timing="time-optimal") if kind == "waypoints" else
             Cycle(trajectory=str(slow_file(tmp_path)), timing="time-optimal"))
    model = arm(cycle)
    J = joint1_inertia()
    [peak] = quantities(Problem(model, (), "peak_torque[1]"), model, ["peak_torque[1]"])
    assert peak == pytest.approx(T1 * (J - N**2 * JM) / J, rel=1e-6)
    if kind == "file":   # the file's own timing: the slow quintic's far smaller peak
        own = arm(replace(cycle, timing=""))
        [slow] = quantities(Problem(own, (), "peak_torque[1]"), own, ["peak_torque[1]"])
        quintic_peak = (J - N**2 * JM) * DISTANCE * 10 / np.sqrt(3) / 10.0**2   # max |s''| = 10/sqrt(3) / T^2
        assert slow == pytest.approx(quintic_peak, rel=1e-3)
