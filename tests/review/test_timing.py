"""The cycle's time-optimal timing (designer/review/timing.py): a one-joint arm against the bang-bang closed form,
and a PUMA 560 cycle whose every sample is within the drives' limits with at least one limit active."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from dataclasses import replace
import pytest

from designer.kinematics.numeric import NumericArm
from designer.review.timing import time_optimal_cycle

ROBOTS = Path(__file__).resolve().parents[2] / "robots"


def one_joint(inertia_zz: float, mass: float = 2.0) -> NumericArm:
    """A revolute joint about z with gravity along z (no gravity torque): the joint sees Izz + m |c_xy|^2."""
    inertia = np.diag([0.1, 0.1, inertia_zz])[None]
    return NumericArm(convention="standard", revolute=np.array([True]), dh=np.array([[0.3, 0.0, 0.0, 0.0]]),
                      mass=np.array([mass]), com=np.array([[-0.1, 0.0, 0.0]]), inertia=inertia,
                      gravity=np.array([0.0, 0.0, -9.81]), limits=np.full((1, 2), np.nan), point_masses=())


def bang_bang(distance, J, T, V):
    """Rest to rest over ``distance`` with |J qdd| <= T and |qd| <= V: a triangle or a trapezoid of speed."""
    a = T / J
    if V is None or V * V / a >= distance:
        return 2 * np.sqrt(distance / a)
    return distance / V + V / a


@pytest.mark.parametrize("speed", [None, 1.5])
def test_one_joint_move_against_the_bang_bang_closed_form(speed):
    arm = one_joint(0.05)
    J = 0.05 + 2.0 * 0.1**2          # Izz about the COM + m d^2 (the COM 0.1 m from the axis)
    gear, rotor = 50.0, 2e-5         # the rotor reflected: N^2 Jm = 0.05 kg m^2
    T = 20.0
    waypoints = [[0.0], [2.0], [0.5]]
    tr = time_optimal_cycle(arm, waypoints, [T], None if speed is None else [speed], [gear], [rotor], grid=401)
    Jt = J + gear**2 * rotor
    expected = bang_bang(2.0, Jt, T, speed) + bang_bang(1.5, Jt, T, speed)
    # TOPP-RA's grid and piecewise-constant acceleration cost a little time against the continuous optimum
    assert tr.t[-1] == pytest.approx(expected, rel=1e-2)
    assert tr.t[-1] >= expected * (1 - 1e-6)
    assert np.allclose(tr.q[[0, 400, 800], 0], [0.0, 2.0, 0.5]) and np.allclose(tr.qd[[0, 400, 800]], 0)


#: three poses of the PUMA 560 a cycle joins (the benchmark's, benchmarks/bench_timing.py)
PUMA_WAYPOINTS = [(0, 0, 0, 0, 0, 0), (1.0, -0.7, 0.5, 0.3, -0.4, 0.9), (0.2, 0.3, -0.6, 0, 0.5, 0)]


def puma_drives():
    """(the PUMA 560's metrics arm, gear ratios, rotor inertias, peak torques, rated speeds) of the timing tests."""
    from designer.explore.joints import explore_arm
    from designer.project import load_project
    arm = explore_arm(load_project(ROBOTS / "puma560.json"))
    gear, rotor = np.array([62.6, 107.8, 53.7, 76.0, 71.9, 76.7]), np.full(6, 2e-4)
    T, V = np.array([180.0, 300.0, 160.0, 25.0, 20.0, 16.0]), np.array([2.0, 1.5, 2.5, 4.0, 4.0, 5.0])
    return arm, gear, rotor, T, V


def test_every_sample_of_a_puma_cycle_within_the_limits_with_one_active():
    from designer.explore.sizing import Trajectory, size_motors
    arm, gear, rotor, T, V = puma_drives()
    waypoints = PUMA_WAYPOINTS
    tr = time_optimal_cycle(arm, waypoints, T, V, gear, rotor)
    # the torques recomputed by the sizing's own path (not the timing's constraint coefficients)
    tau = size_motors(arm, Trajectory(tr.t, tr.q, tr.qd, tr.qdd), gear, rotor).torque
    load = np.maximum(np.abs(tau) / T, np.abs(tr.qd) / V)
    assert np.all(load <= 1 + 1e-3)
    # a limit active at each sample: exactly on the grid, but for the grid stage where the acceleration switches
    # (from one limit to another), which TOPP-RA's piecewise-constant acceleration takes from one side
    active = load.max(axis=1)
    assert np.all(active >= 0.95), active.min()
    assert np.count_nonzero(active < 1 - 1e-3) <= 4, np.flatnonzero(active < 1 - 1e-3)
    assert np.all(np.diff(tr.t) > 0)
    # scaled slower, the same path is feasible: halving the limits lengthens the cycle
    slow = time_optimal_cycle(arm, waypoints, T / 2, V / 2, gear, rotor)
    assert slow.t[-1] > tr.t[-1] * 1.3


def puma_with_drives(cycle, *requirements):
    from designer.model.extras import Drive
    from designer.model.requirements import Payload, Requirements
    from designer.project import load_project
    puma = load_project(ROBOTS / "puma560.json")
    N, rated = [62.6, 107.8, 53.7, 76.0, 71.9, 76.7], [90.0, 150.0, 80.0, 12.0, 10.0, 8.0]
    peak, speed = [180.0, 300.0, 160.0, 25.0, 20.0, 16.0], [2.0, 1.5, 2.5, 4.0, 4.0, 5.0]
    links = tuple(replace(link, drive=Drive(gear_ratio=n, motor_inertia=2e-4, rated_torque=r, peak_torque=p,
                                            rated_speed=v))
                  for link, n, r, p, v in zip(puma.links, N, rated, peak, speed))
    return replace(puma, links=links, requirements=Requirements(tuple(requirements), Payload(3.0, (0, 0, 0.1)),
                                                                cycle))


def test_cycle_time_is_a_requirement_and_the_motors_are_sized_on_the_time_optimal_motion():
    from designer.model.requirements import Cycle, Requirement, Where
    from designer.review import review
    from designer.review.timing import time_optimal_cycle
    waypoints = ((0, 0, 0, 0, 0, 0), (1.0, -0.7, 0.5, 0.3, -0.4, 0.9), (0.2, 0.3, -0.6, 0, 0.5, 0))
    reqs = [Requirement("cycle_time", "<=", 1.2, Where("cycle")),
            Requirement("torque_load", "<=", 1.0, Where("cycle")),
            Requirement("speed_load", "<=", 1.0, Where("cycle")),
            Requirement("peak_torque[2]", "<=", 1e4, Where("cycle"))]
    fast = review(puma_with_drives(Cycle(waypoints=waypoints, timing="time-optimal"), *reqs))
    slow = review(puma_with_drives(Cycle(waypoints=waypoints, time=4.0), *reqs))
    # the time-optimal cycle: faster than the quintic one, the peak torques then used up (to the solver's tolerance)
    assert fast[0].value < slow[0].value == pytest.approx(4.0)
    assert fast[1].value == pytest.approx(1.0, abs=1e-3) and slow[1].value < 0.9
    assert fast[1].passed and fast[2].passed   # the limits reached, never crossed by round-off
    assert fast[2].value <= 1
    assert "time-optimal" in fast[0].note and "quintic" in slow[0].note and fast[3].unit == "N m"
    # the review's cycle time is the timing module's with the payload on the arm: without it, the arm is faster
    from designer.explore.joints import explore_arm
    bare = time_optimal_cycle(explore_arm(puma_with_drives(None)), waypoints, [180.0, 300.0, 160.0, 25.0, 20.0, 16.0],
                              [2.0, 1.5, 2.5, 4.0, 4.0, 5.0], [62.6, 107.8, 53.7, 76.0, 71.9, 76.7], [2e-4] * 6)
    assert bare.t[-1] <= fast[0].value


def test_the_review_returns_its_timing_so_a_time_optimal_cycle_is_timed_once(monkeypatch):
    """review_cycle_job gives the motion the review took (the Requirements tab shows its duration): one call of the
    timing for the review and the sentence together, and that motion is cycle_motion's, computed on its own."""
    import designer.review.timing as timing
    from designer.jobs import run
    from designer.model.requirements import Cycle, Requirement, Where
    from designer.review import cycle_motion, review_cycle_job
    model = puma_with_drives(Cycle(waypoints=tuple(PUMA_WAYPOINTS), timing="time-optimal"),
                             Requirement("cycle_time", "<=", 1.2, Where("cycle")),
                             Requirement("torque_load", "<=", 1.0, Where("cycle")))
    alone, alone_timing = cycle_motion(model)
    calls = []
    real = timing.time_optimal_cycle

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(timing, "time_optimal_cycle", counted)
    outcomes, motion, said = run(review_cycle_job(model))
    assert len(calls) == 1
    assert motion.t[-1] == pytest.approx(outcomes[0].value) and motion.t[-1] == pytest.approx(alone.t[-1])
    assert np.allclose(motion.q, alone.q) and said == alone_timing and "time-optimal" in said
    # a cycle no requirement holds along is timed (once) for the sentence; no cycle: no motion
    calls.clear()
    only_pose = replace(model, requirements=replace(model.requirements, items=(Requirement("mass", "<=", 1e3),)))
    _, motion2, _ = run(review_cycle_job(only_pose))
    assert len(calls) == 1 and motion2.t[-1] == pytest.approx(alone.t[-1])
    no_cycle = replace(only_pose, requirements=replace(only_pose.requirements, cycle=None))
    assert run(review_cycle_job(no_cycle))[1:] == (None, "")


def test_a_time_optimal_cycle_round_trips_and_says_what_it_lacks(tmp_path):
    import json

    from designer.project import load_project, save_project
    from designer.review import review
    doc = json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    doc["cycle"] = {"waypoints": [[0, -0.6, 1.2], [1.5, -1.0, 1.6]], "timing": "time-optimal"}
    doc["requirements"] = [{"metric": "cycle_time", "bound": "<=", "value": 1.2, "where": "cycle"}]
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc))
    model = load_project(path)
    assert model.requirements.cycle.timing == "time-optimal"
    save_project(model, tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["cycle"] == doc["cycle"]
    # without drives' torque ratings there is no time-optimal timing: the requirement says so, no silent value
    bare = replace(model, links=tuple(replace(link, drive=None) for link in model.links))
    out = review(bare, strict=False)
    assert out[0].value is None and "peak_torque or rated_torque" in out[0].error


def test_optimize_minimizes_the_time_optimal_cycle_time(tmp_path):
    """`optimize --minimize cycle_time` through the review's metric: the design found is at least as fast as every
    design of a sweep of the same parameter (each reviewed on its own)."""
    import json

    from designer.cli import main
    from designer.project import load_project, loads_project
    from designer.review import review_value
    doc = json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    doc["cycle"] = {"waypoints": doc["cycle"]["waypoints"], "timing": "time-optimal"}
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "best.json"
    assert main(["optimize", str(path), "--vary", "D3", "0.04", "0.15", "--minimize", "cycle_time",
                 "--no-project-requirements", "--starts", "2", "--out", str(out)]) == 0
    best = review_value(load_project(out), "cycle_time")
    model = loads_project(json.dumps(doc))
    sweep = [review_value(model.with_parameters({"D3": d}), "cycle_time") for d in np.linspace(0.04, 0.15, 7)]
    assert best <= min(sweep) + 1e-6 and max(sweep) > min(sweep)


def test_optimize_cycle_file_made_time_optimal_as_a_project_cycle_is(tmp_path, capsys):
    """`optimize --cycle CSV --time-optimal`: the file's path re-timed for each design's drives, as the project's
    `"timing": "time-optimal"` times it (the review of such a project, computed on its own); without the flag the
    file's own timing; the written project keeps its own cycle."""
    import json

    from designer.cli import main
    from designer.project import load_project, loads_project
    from designer.review import cycle_motion
    doc = json.loads((ROBOTS / "tube_arm_requirements.json").read_text())
    own, _ = cycle_motion(loads_project(json.dumps(doc)))
    csv = tmp_path / "cycle.csv"
    np.savetxt(csv, np.column_stack([own.t, own.q]), delimiter=",", header="t,q1,q2,q3", comments="")

    def optimized(*flags):
        out = tmp_path / "best.json"
        args = ["optimize", str(tmp_path / "arm.json"), "--vary", "D3", "0.08", "0.0800001", "--minimize", "mass",
                "--no-project-requirements", "--require", "peak_torque[2]<=1e9", "--starts", "1",
                "--cycle", str(csv), *flags, "--format", "json", "--out", str(out)]
        (tmp_path / "arm.json").write_text(json.dumps(doc))
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(args) == 0
        return json.loads(buf.getvalue())["requirements"][0]["value"], load_project(out)

    fast, written = optimized("--time-optimal")
    slow, _ = optimized()
    from designer.optimize.sizing import cycle_loads

    def peak2(project: dict) -> float:   # optimize's peak_torque[2]: the mechanism's loads along the review's motion
        model = loads_project(json.dumps(project)).with_parameters({"D3": 0.08})
        return float(np.max(np.abs(cycle_loads(model, cycle_motion(model)[0])[1].torque)))
    expected = peak2(dict(doc, cycle={"trajectory": str(csv), "timing": "time-optimal"}))
    assert fast == pytest.approx(expected, rel=1e-3) and \
        slow == pytest.approx(peak2(dict(doc, cycle={"trajectory": str(csv)})), rel=1e-3)
    assert fast > 1.5 * slow   # the drives' peak torques used up, against a 3 s quintic cycle
    assert written.requirements.cycle == loads_project(json.dumps(doc)).requirements.cycle
    # a file that is not there, a project without a cycle: one message each, nothing written
    common = ["--vary", "D3", "0.05", "0.1", "--minimize", "mass", "--out", str(tmp_path / "x.json")]
    assert main(["optimize", str(tmp_path / "arm.json"), "--cycle", str(tmp_path / "none.csv"), "--time-optimal",
                 *common]) != 0
    assert "none.csv: no such file" in capsys.readouterr().err
    bare = {k: v for k, v in doc.items() if k not in ("cycle", "requirements")}
    (tmp_path / "bare.json").write_text(json.dumps(bare))
    assert main(["optimize", str(tmp_path / "bare.json"), "--time-optimal", *common]) != 0
    assert "--time-optimal times a cycle: give --cycle CSV or a cycle in the project" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
