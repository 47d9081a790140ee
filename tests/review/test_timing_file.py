"""A cycle given as a trajectory file, re-timed time-optimal (designer/review/timing.py: time_optimal_path): a one-
joint back-and-forth against the bang-bang closed form, a file of straight lines against the waypoint cycle of the
same corners, a curved PUMA path whose every sample is within the limits and on the file's path, and the project
format and the review around it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from designer.explore.sizing import quintic
from designer.review.timing import TimingError, path_pieces, time_optimal_cycle, time_optimal_path
from tests.review.test_timing import PUMA_WAYPOINTS, ROBOTS, bang_bang, one_joint, puma_drives, puma_with_drives


def _lines(waypoints, steps=61, seconds=1.0):
    """A file's samples: rest-to-rest quintic moves between the waypoints (the file's own timing is ignored)."""
    parts = [quintic(a, b, seconds, steps).q for a, b in zip(waypoints[:-1], waypoints[1:])]
    return np.vstack([parts[0], *[p[1:] for p in parts[1:]]])


def test_one_joint_back_and_forth_against_the_bang_bang_closed_form():
    arm, gear, rotor, T = one_joint(0.05), 50.0, 2e-5, 20.0
    q = _lines([[0.0], [2.0], [0.5]], steps=401)
    q = np.vstack([q[:401], np.repeat(q[400:401], 5, axis=0), q[401:]])   # a dwell at the turn: dropped
    assert [len(p) for p in path_pieces(q)] == [401, 401]                  # cut at the reversal
    tr = time_optimal_path(arm, q, [T], None, [gear], [rotor])
    Jt = 0.05 + 2.0 * 0.1**2 + gear**2 * rotor
    expected = bang_bang(2.0, Jt, T, None) + bang_bang(1.5, Jt, T, None)
    assert tr.t[-1] == pytest.approx(expected, rel=1e-2) and tr.t[-1] >= expected * (1 - 1e-6)
    turn = np.argmax(tr.q[:, 0])
    assert tr.q[turn, 0] == pytest.approx(2.0) and tr.qd[turn, 0] == pytest.approx(0.0, abs=1e-9)
    assert tr.q[-1, 0] == pytest.approx(0.5) and tr.qd[-1, 0] == 0 and tr.qd[0, 0] == 0


def test_a_file_of_straight_lines_takes_the_waypoint_cycles_time():
    arm, gear, rotor, T, V = puma_drives()
    waypoints = PUMA_WAYPOINTS
    lines = time_optimal_cycle(arm, waypoints, T, V, gear, rotor)
    filed = time_optimal_path(arm, _lines(waypoints, steps=101), T, V, gear, rotor)
    # the same straight lines at rest at the same corners (the file's samples on them, its timing not used)
    assert filed.t[-1] == pytest.approx(lines.t[-1], rel=5e-3)


def test_a_curved_path_is_retimed_within_the_limits_and_stays_on_the_files_path():
    from designer.explore.sizing import Trajectory, size_motors
    arm, gear, rotor, T, V = puma_drives()
    u = np.linspace(0.0, 1.0, 300)
    q = np.column_stack([np.sin(np.pi * u), -0.5 * (1 - np.cos(np.pi * u)), 0.4 * u, 0.2 * np.sin(2 * np.pi * u),
                         0.3 * u, np.zeros_like(u)])
    assert len(path_pieces(q)) == 1   # smooth: no corner, one rest-to-rest piece
    tr = time_optimal_path(arm, q, T, V, gear, rotor)
    # torques recomputed by the sizing's own inverse dynamics: within the limits, a limit active almost everywhere
    tau = size_motors(arm, Trajectory(tr.t, tr.q, tr.qd, tr.qdd), gear, rotor).torque
    load = np.maximum(np.abs(tau) / T, np.abs(tr.qd) / V)
    assert np.all(load <= 1 + 1e-3) and np.median(load.max(axis=1)) >= 0.99
    assert np.all(np.diff(tr.t) > 0) and np.allclose(tr.q[[0, -1]], q[[0, -1]])
    # on the file's path: every re-timed pose within a hair of the file's polyline (the spline through its samples)
    dist = np.min(np.linalg.norm(tr.q[:, None, :] - q[None, :, :], axis=2), axis=1)
    assert dist.max() < 0.01
    # the speeds are the path's tangent times sd: integrated over the times (trapezoid) they give the poses back
    moved = np.vstack([np.zeros((1, 6)), np.cumsum(0.5 * (tr.qd[1:] + tr.qd[:-1]) * np.diff(tr.t)[:, None], axis=0)])
    assert np.allclose(moved, tr.q - tr.q[0], atol=0.01 * np.ptp(q, axis=0).max())


def test_a_path_that_does_not_move_is_refused():
    with pytest.raises(TimingError, match="does not move"):
        path_pieces(np.zeros((5, 2)))


def test_a_trajectory_file_cycle_made_time_optimal_in_the_project_and_the_review(tmp_path):
    from designer.model.requirements import Cycle, Requirement, Where
    from designer.project import load_project, save_project
    from designer.review import review
    waypoints = ((0, 0, 0, 0, 0, 0), (1.0, -0.7, 0.5, 0.3, -0.4, 0.9), (0.2, 0.3, -0.6, 0, 0.5, 0))
    q = _lines(waypoints, steps=101, seconds=3.0)
    t = np.arange(len(q)) * 0.03
    csv = tmp_path / "pick.csv"
    csv.write_text("t," + ",".join(f"q{k}" for k in range(1, 7)) + "\n"
                   + "".join(",".join(repr(float(v)) for v in (tk, *row)) + "\n" for tk, row in zip(t, q)))
    reqs = [Requirement("cycle_time", "<=", 5.0, Where("cycle")), Requirement("torque_load", "<=", 1.0, Where("cycle"))]
    fast = review(puma_with_drives(Cycle(trajectory=str(csv), timing="time-optimal"), *reqs))
    slow = review(puma_with_drives(Cycle(trajectory=str(csv)), *reqs))
    waypointed = review(puma_with_drives(Cycle(waypoints=waypoints, timing="time-optimal"), *reqs))
    assert slow[0].value == pytest.approx(t[-1]) and fast[0].value < slow[0].value
    assert fast[0].value == pytest.approx(waypointed[0].value, rel=5e-3)
    assert fast[1].value == pytest.approx(1.0, abs=1e-3) and fast[1].passed
    assert "re-timing of the path in" in fast[0].note and "pick.csv" in fast[0].note
    # the project file: {"trajectory": ..., "timing": "time-optimal"} reads and is written back as it was
    doc = json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    (tmp_path / "arm.csv").write_text("t,q1,q2,q3\n0,0,-0.6,1.2\n1,0.5,-0.8,1.4\n2,1.5,-1.0,1.6\n")
    doc["cycle"] = {"trajectory": "arm.csv", "timing": "time-optimal"}
    doc["requirements"] = [{"metric": "cycle_time", "bound": "<=", "value": 1.2, "where": "cycle"}]
    (tmp_path / "arm.json").write_text(json.dumps(doc))
    model = load_project(tmp_path / "arm.json")
    assert model.requirements.cycle.timing == "time-optimal" and Path(model.requirements.cycle.trajectory).is_absolute()
    save_project(model, tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["cycle"] == doc["cycle"]
    out = review(model)
    assert out[0].value > 0 and "re-timing" in out[0].note
    # a file whose poses never move: refused with the reason, no silent value
    (tmp_path / "still.csv").write_text("t,q1,q2,q3\n0,0,0,0\n1,0,0,0\n2,0,0,0\n")
    still = replace(model, requirements=replace(model.requirements,
                                                cycle=Cycle(trajectory=str(tmp_path / "still.csv"),
                                                            timing="time-optimal")))
    bad = review(still, strict=False)
    assert bad[0].value is None and "does not move" in bad[0].error
    # a timing other than time-optimal beside a file is named
    doc["cycle"] = {"trajectory": "arm.csv", "timing": "fast"}
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(Exception, match="cycle.timing"):
        load_project(tmp_path / "bad.json")
