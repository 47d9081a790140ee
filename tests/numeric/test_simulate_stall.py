"""A motion that runs into a singular pose ends, with one line saying when, where and why.

The arm: the planar two-link arm with a massless first link and all of the second link's mass a point at
its tip. Its mass matrix is m J^T J (J the tip's 2x2 Jacobian): singular where the arm is stretched
(q2 = 0). Released bent, the tip falls and swings outward; as the arm straightens, the joint speeds needed
to keep the point on its path grow without bound (the mass is a free particle inside the annulus
|L1 - L2| <= r <= L1 + L2, and the massless links hold it at the rim with an unbounded force). The
integrator's steps collapse there; before the stall detector it crept on at steps of about 1e-15 s.
The bound of each test is a count of evaluations, never a time.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics import NumericArm
from designer.numeric.simulate import SimulationError, simulate
from designer.project import load_project

from tests.support import robot_path

Q0, QD0 = [0.0, 1.5], [0.0, -1.0]
L1, L2 = 1.0, 0.8


@pytest.fixture
def point_mass_arm(tmp_path):
    doc = json.loads(robot_path("planar_two_link").read_text(encoding="utf-8"))
    doc["parameters"].update(L1=L1, L2=L2, m1=0.0, I1=0.0, d2=L2, I2=0.0)   # the mass at the tip of link 2
    path = tmp_path / "point_mass.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_the_simulation_ends_at_the_stretched_pose_with_time_and_pose(point_mass_arm):
    arm = NumericArm.from_model(load_project(point_mass_arm))
    calls = [0]

    def passive(t, q, qd):   # no torque; counts the right-hand side's evaluations
        calls[0] += 1
        return np.zeros(2)
    with pytest.raises(SimulationError) as stalled:
        simulate(arm, Q0, QD0, (0.0, 10.0), torque=passive)
    text = str(stalled.value)
    found = [float(v) for v in _numbers_after(text, "q = [")]
    t = float(text.split("integration stalled at t = ")[1].split(" s")[0])
    assert "the step size fell below 1e-11 s" in text and "\n" not in text
    assert 0.0 < t < 10.0
    # where it stopped, the arm is stretched (the singular pose): the tip at the outer rim L1 + L2
    assert abs(found[1]) < 1e-3
    tip = L1 * np.array([np.cos(found[0]), np.sin(found[0])]) + L2 * np.array([np.cos(sum(found)), np.sin(sum(found))])
    assert np.linalg.norm(tip) == pytest.approx(L1 + L2, rel=1e-6)
    assert calls[0] < 20_000


def test_simulate_on_the_command_line_ends_with_one_line(point_mass_arm, capsys):
    code = main(["simulate", str(point_mass_arm), "--q0", *map(str, Q0), "--qd0", *map(str, QD0), "--t", "10",
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and "integration stalled at t = " in err
    assert "step size fell below" in err and "q = [" in err


def _numbers_after(text: str, marker: str) -> list[str]:
    return text.split(marker)[1].split("]")[0].split(",")
