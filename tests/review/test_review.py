"""The design review (designer/review; docs/project-format.md, "Requirements, version 4"): values against
independent computations, the `review` command's exit codes, hostile requirement fields, round trips of format
version 4."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from designer.cli import main
from designer.model.manipulator import PointMass
from designer.model.requirements import Cycle, Payload, Requirement, Requirements, Where
from designer.project import ProjectError, load_project, loads_project, save_project
from designer.project.io import to_dict
from designer.review import ReviewError, cycle_trajectory, review

ROBOTS = Path(__file__).resolve().parents[2] / "robots"
TUBE = ROBOTS / "tube_arm_requirements.json"


def with_requirements(model, *items, payload=None, cycle=None):
    return replace(model, requirements=Requirements(tuple(items), payload, cycle))


def pin_tau(model, q, qd, qdd):
    import pinocchio as pin
    from tests.support.dyn_reference import pin_model
    pm = pin_model(model)
    data = pm.createData()
    return np.array([pin.rnea(pm, data, a, b, c).copy() for a, b, c in zip(q, qd, qdd)])


def test_peak_and_rms_torque_along_the_cycle_match_pinocchio_rnea():
    """PUMA 560 with a 3 kg payload at an offset and drives' rotors: peak |tau_i| and RMS tau_i along a waypoint
    cycle against Pinocchio's RNEA of the model with the payload as a point mass, plus N^2 Jm qdd."""
    puma = load_project(ROBOTS / "puma560.json")
    N, Jm = np.array([62.6, 107.8, 53.7, 76.0, 71.9, 76.7]), np.full(6, 2e-4)
    from designer.model.extras import Drive
    rated, peak = np.array([90.0, 150.0, 80.0, 12.0, 10.0, 8.0]), np.array([180.0, 300.0, 160.0, 25.0, 20.0, 16.0])
    links = tuple(replace(link, drive=Drive(gear_ratio=float(n), motor_inertia=float(j), rated_torque=float(r),
                                            peak_torque=float(p)))
                  for link, n, j, r, p in zip(puma.links, N, Jm, rated, peak))
    puma = replace(puma, links=links)
    cycle = Cycle(waypoints=((0, 0, 0, 0, 0, 0), (1.0, -0.7, 0.5, 0.3, -0.4, 0.9), (0.2, 0.3, -0.6, 0, 0.5, 0)),
                  time=1.6)
    payload = Payload(3.0, (0.02, -0.01, 0.1))
    reqs = [Requirement(f"peak_torque[{j}]", "<=", 1e6, Where("cycle")) for j in (1, 2, 3, 5)] + \
        [Requirement("rms_torque[2]", "<=", 1e6, Where("cycle")), Requirement("peak_torque", "<=", 1e6, Where("cycle")),
         Requirement("thermal_load", "<=", 1.0, Where("cycle")), Requirement("torque_load", "<=", 1.0, Where("cycle"))]
    model = with_requirements(puma, *reqs, payload=payload, cycle=cycle)
    out = review(model)

    traj = cycle_trajectory(cycle, 6)
    # the cycle passes its waypoints at the shared times, at rest
    assert np.allclose(traj.q[[0, 100, 200]], np.array(cycle.waypoints)) and traj.t[-1] == pytest.approx(1.6)
    assert np.allclose(traj.qd[[0, 100, 200]], 0)
    loaded = replace(puma, point_masses=puma.point_masses + (PointMass(6, payload.mass, payload.offset),))
    tau = pin_tau(loaded, traj.q, traj.qd, traj.qdd) + N**2 * Jm * traj.qdd
    for o, j in zip(out[:4], (1, 2, 3, 5)):
        k = int(np.argmax(np.abs(tau[:, j - 1])))
        assert o.value == pytest.approx(abs(tau[k, j - 1]), rel=1e-9, abs=1e-9)
        assert o.time == pytest.approx(traj.t[k]) and o.joint == j and np.allclose(o.pose, traj.q[k])
    from scipy.integrate import simpson
    rms = np.sqrt(simpson(tau[:, 1] ** 2, x=traj.t) / 1.6)
    assert out[4].value == pytest.approx(rms, rel=1e-3)
    worst = np.unravel_index(np.argmax(np.abs(tau)), tau.shape)
    assert out[5].value == pytest.approx(np.abs(tau).max(), rel=1e-9) and out[5].joint == worst[1] + 1
    # against the drives' ratings: RMS over the rated (continuous) torque, the peak over the peak torque
    rms_all = np.sqrt(simpson(tau ** 2, x=traj.t, axis=0) / 1.6)
    assert out[6].value == pytest.approx((rms_all / rated).max(), rel=1e-3)
    assert out[6].joint == int(np.argmax(rms_all / rated)) + 1
    assert out[7].value == pytest.approx((np.abs(tau) / peak).max(), rel=1e-9)
    assert out[6].passed == (out[6].value <= 1.0) and out[7].passed == (out[7].value <= 1.0)


def test_lowest_frequency_against_numpy_eig_of_K_and_M():
    """The tube arm's frequency requirement against sqrt(eig(K, M))/2pi with M from Pinocchio's CRBA (payload as a
    point mass), the gearboxes' K; the worst pose is the one with the lowest frequency."""
    import pinocchio as pin
    from tests.support.dyn_reference import pin_model
    model = load_project(TUBE)
    poses = np.array([[0, 0, 0], [0, -0.6, 1.2], [1.5, -1.0, 1.6]], float)
    where = Where("poses", poses=tuple(map(tuple, poses)))
    model = with_requirements(model, Requirement("frequency", ">=", 1.0, where), payload=model.requirements.payload)
    [o] = review(model)
    p = model.requirements.payload
    loaded = replace(model, point_masses=model.point_masses + (PointMass(3, p.mass, p.offset),))
    pm = pin_model(loaded)
    k = np.array([6e5, dict(model.parameters)["k2"], 1.5e5])
    freqs = []
    for q in poses:
        M = pin.crba(pm, pm.createData(), q)
        M = np.triu(M) + np.triu(M, 1).T
        w2 = np.linalg.eigvals(np.linalg.solve(M, np.diag(k))).real
        freqs.append(np.sqrt(w2.min()) / (2 * np.pi))
    assert o.value == pytest.approx(min(freqs), rel=1e-6)
    assert np.allclose(o.pose, poses[int(np.argmin(freqs))])
    assert o.passed and o.margin == pytest.approx(min(freqs) - 1.0)


def test_static_torque_equals_gravity_on_a_closed_chain():
    """A closed chain takes the same path (no branch on the kind): at held poses the review's peak torque of an
    actuated joint is the gravity torque |G_a| of explore's `gravity` metric, two different routes (the batch's
    inverse dynamics at rest against its G)."""
    from designer.explore.joints import explore_arm
    from designer.explore.metrics import evaluate
    model = load_project(ROBOTS / "palletizer_parallelogram.json")
    arm = explore_arm(model)
    n, numbers = arm.n, [i + 1 for i, link in enumerate(model.links) if link.actuated]
    rng = np.random.default_rng(4)
    poses = tuple(tuple(0.3 * rng.standard_normal(n)) for _ in range(4))
    j = numbers[1]
    model = with_requirements(model, Requirement(f"peak_torque[{j}]", "<=", 1e6, Where("poses", poses=poses)),
                              Requirement(f"gravity[{j}]", "<=", 1e6, Where("poses", poses=poses)))
    a, b = review(model)
    G = evaluate(arm, np.array(poses), f"gravity[{j}]")
    assert a.value == pytest.approx(np.abs(G).max(), rel=1e-7) and b.value == pytest.approx(a.value, rel=1e-7)
    assert a.joint == j


def test_mass_speed_load_and_payload_capacity():
    model = load_project(TUBE)
    out = {o.requirement.metric: o for o in review(model, strict=False)}
    from designer.kinematics import NumericArm
    arm = NumericArm.from_model(model)
    subs = model.substitutions(require_all=True)   # the links' and point masses' expressions, summed by sympy
    total = sum(link.mass for link in model.links) + sum(p.mass for p in model.point_masses)
    assert out["mass"].value == pytest.approx(float(total.xreplace(subs)), rel=1e-12)
    # speed load: the largest |qd_i| / rated speed over the quintic moves: 15/8 * step / segment time
    wp = np.array(model.requirements.cycle.waypoints)
    seg = model.requirements.cycle.time / (len(wp) - 1)
    peak = 15 / 8 * np.abs(np.diff(wp, axis=0)).max(axis=0) / seg
    assert out["speed_load"].value == pytest.approx((peak / np.array([3.0, 3.0, 3.5])).max(), rel=1e-3)
    # payload capacity: at the reported mass the worst joint is at its rating at the worst state
    cap = out["payload"]
    assert cap.value > 0
    from designer.explore.sizing import payload_envelope
    q = np.array([cap.pose])
    just = payload_envelope(arm, np.zeros((1, 3)), [150, 150, 60], q)
    assert just[0] >= cap.value - 1e-9   # held still it carries at least what it carries in motion


def test_review_command_exit_codes_and_json(tmp_path, capsys):
    assert main(["review", str(TUBE)]) == 1    # the sag at home fails as shipped
    text = capsys.readouterr().out
    assert "FAIL" in text and "7 of 8 requirement(s) pass" in text
    doc = json.loads(TUBE.read_text())
    doc["requirements"][0]["value"] = 1.5
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(doc))
    assert main(["review", str(ok), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True and len(data["requirements"]) == 8
    first = data["requirements"][0]
    assert first["margin"] == pytest.approx(1.5 - first["value"]) and first["worst"]["pose"] == [0.0, 0.0, 0.0]
    doc["requirements"][1]["metric"] = "frequncy"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert main(["review", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "requirements[2]" in err and "unknown metric 'frequncy'" in err and "Traceback" not in err
    assert main(["review", str(ROBOTS / "puma560.json")]) == 2
    assert "no requirements" in capsys.readouterr().err


def _doc(**top):
    doc = json.loads(TUBE.read_text())
    doc.update(top)
    return doc


@pytest.mark.parametrize("change, message", [
    ({"requirements": {"metric": "mass"}}, "requirements: must be a list"),
    ({"requirements": [{"metric": "mass", "bound": "<", "value": 1}]}, "requirements[1].bound: must be \"<=\" or"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": "1; import os"}]},
     "requirements[1].value: must be a number"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": True}]}, "requirements[1].value: must be a number"),
    ({"requirements": [{"metric": "__import__('os')", "bound": "<=", "value": 1}]}, "requirements[1].metric"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": 1, "colour": 1}]},
     "requirements[1]: unknown key(s) colour"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": 1, "where": "everywhere"}]}, "requirements[1].where"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": 1, "where": {"poses": [[0, 0]]}}]},
     "requirements[1].where.poses: has 2 joint value(s), the arm's metrics take 3"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": 1, "where": {"poses": [[0, 0, "x"]]}}]},
     "requirements[1].where.poses[1][3]: must be a number"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": 1,
                        "where": {"box": {"lo": [0, 0, 0], "hi": [1, -1, 1], "samples": 8}}}]},
     "requirements[1].where.box: hi must not be below lo"),
    ({"requirements": [{"metric": "mass", "bound": "<=", "value": 1,
                        "where": {"box": {"lo": [0, 0, 0], "hi": [1, 1, 1], "samples": 10 ** 9}}}]},
     "requirements[1].where.box.samples"),
    ({"payload": {"mass": -1}}, "payload.mass: must be at least 0"),
    ({"payload": {"mass": 1, "offset": [0, 0]}}, "payload.offset"),
    ({"cycle": {"waypoints": [[0, 0, 0]], "time": 1}}, "cycle.waypoints: needs at least two waypoints"),
    ({"cycle": {"waypoints": [[0, 0, 0], [1, 1, 1]], "time": 0}}, "cycle.time: must be positive"),
    ({"cycle": {"trajectory": 5}}, "cycle.trajectory"),
    ({"cycle": {"waypoints": [[0, 0, 0], [1, 1, 1]], "timing": "fast"}}, "cycle.timing: must be \"time-optimal\""),
    ({"cycle": {"waypoints": [[0, 0, 0], [1, 1, 1]], "timing": "time-optimal", "time": 2}},
     "cycle: give a time, or \"timing\": \"time-optimal\", not both"),
    ({"cycle": None}, "the project has no \"cycle\""),
    ({"version": 3}, "field(s) cycle, payload, requirements need format version 4"),
])
def test_hostile_requirement_fields_get_one_message_naming_them(change, message):
    with pytest.raises(ProjectError) as info:
        loads_project(json.dumps(_doc(**change)))
    assert message in str(info.value)


def test_round_trip_with_a_trajectory_file_beside_the_project(tmp_path):
    doc = _doc(cycle={"trajectory": "pick.csv"})
    t = np.linspace(0, 2, 41)
    rows = ["t,q1,q2,q3"] + [f"{a},{0.5 * np.sin(a)},{-0.5 + 0.2 * a},{1.0}" for a in t]
    (tmp_path / "pick.csv").write_text("\n".join(rows) + "\n")
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(doc))
    model = load_project(path)
    assert Path(model.requirements.cycle.trajectory) == (tmp_path / "pick.csv").resolve()
    out = tmp_path / "again.json"
    save_project(model, out)
    written = json.loads(out.read_text())
    assert written["version"] == 4 and written["cycle"] == {"trajectory": "pick.csv"}
    assert written["requirements"] == doc["requirements"] and written["payload"] == doc["payload"]
    again = load_project(out)
    assert again == model and again.requirements == model.requirements
    speed = [o for o in review(model, strict=False) if o.requirement.metric == "speed_load"][0]
    # the file's q1 = 0.5 sin t: the largest |qd1| / 3 rad/s, differentiated numerically from the samples
    assert speed.value == pytest.approx(0.5 / 3.0, rel=2e-3)


def test_older_files_open_unchanged_and_a_model_without_requirements_is_not_written_as_4():
    model = load_project(ROBOTS / "tube_arm.json")
    assert not model.requirements and to_dict(model)["version"] == 3
    assert to_dict(load_project(ROBOTS / "puma560.json"))["version"] == 2


def test_a_requirement_that_cannot_be_evaluated_names_itself():
    model = load_project(ROBOTS / "puma560.json")   # no drive ratings
    model = with_requirements(model, Requirement("mass", "<=", 100), Requirement("torque_load", "<=", 1),
                              Requirement("rms_torque", "<=", 1))
    with pytest.raises(ReviewError) as info:
        review(model)
    text = str(info.value)
    assert "requirements[2] (torque_load): metric 'torque_load' needs every joint's peak_torque or rated_torque" in text
    assert "requirements[3] (rms_torque)" in text and "cycle" in text
    soft = review(model, strict=False)
    assert soft[0].passed and soft[1].error and not soft[1].passed


def test_the_design_report_includes_the_review(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["design-report", str(TUBE), "--out", str(out)]) == 0
    html = out.read_text()
    expected = review(load_project(TUBE), strict=False)
    assert '<h2 id="review">Design review</h2>' in html and "7 of 8 requirement(s) pass" in html
    for o in expected:
        assert f"{o.value:.4g}" in html and o.requirement.name in html
    assert html.count("<td>FAIL</td>") == sum(not o.passed for o in expected) == 1
    pdf = tmp_path / "report.pdf"
    assert main(["design-report", str(TUBE), "--out", str(pdf)]) == 0
    assert "3 pages" in capsys.readouterr().out    # the tables, what the arm is made of, the review


def test_peak_torque_of_a_closed_chain_along_a_cycle_matches_its_dynamics():
    """The palletizer (a closed chain, four actuated joints): the review's peak |tau| of each actuated joint along a
    waypoint cycle against the numeric interface's ClosedDynamics (load_dynamics) at the same samples."""
    from designer.numeric.mechanism import load_dynamics
    model = load_project(ROBOTS / "palletizer_parallelogram.json")
    numbers = [i + 1 for i, link in enumerate(model.links) if link.actuated]
    cycle = Cycle(waypoints=((0, 0, 0, 0), (0.8, 0.3, -0.2, 0.5), (0.2, -0.2, 0.3, 0)), time=2.0)
    reqs = [Requirement(f"peak_torque[{j}]", "<=", 1e9, Where("cycle")) for j in numbers]
    out = review(with_requirements(model, *reqs, cycle=cycle))
    traj = cycle_trajectory(cycle, len(numbers))
    tau = load_dynamics(model).tau(traj.q, traj.qd, traj.qdd)
    assert [o.joint for o in out] == numbers
    np.testing.assert_allclose([o.value for o in out], np.abs(tau).max(axis=0), rtol=1e-8)


def test_requirements_are_no_part_of_the_mechanism_s_equality():
    """Equations, metrics and results computed for a model stay current when only its requirements change: a
    model's == and hash leave them out (the document compares them itself for its edits)."""
    model = load_project(TUBE)
    bare = replace(model, requirements=Requirements())
    assert bare == model and hash(bare) == hash(model) and bare.requirements != model.requirements


def test_payload_capacity_per_sample_against_pinocchio():
    """The payload capacity at every sample of the tube arm's cycle (all samples at once through the batch
    dynamics): with that payload as a point mass, Pinocchio's RNEA puts the worst joint exactly at its rated
    torque; and each sample agrees with explore payload's envelope of that sample alone."""
    from designer.explore.sizing import payload_envelope
    from designer.review.evaluate import _Context, payload_per_sample
    model = load_project(TUBE)
    ctx = _Context(model)
    s = ctx.cycle()
    per = payload_per_sample(ctx, s)
    rated = np.array([150.0, 150.0, 60.0])
    assert len(per) == len(s.q) == 301 and np.all(np.isfinite(per)) and np.all(per > 0)
    base = pin_tau(model, s.q, s.qd, s.qdd)
    one = pin_tau(replace(model, point_masses=model.point_masses + (PointMass(3, 1.0, (0.0, 0.0, 0.0)),)),
                  s.q, s.qd, s.qdd)
    # the rotors' reflected inertia does not count for the capacity (the envelope's inverse dynamics are the arm's)
    loaded = base + per[:, None] * (one - base)    # the dynamics are affine in the point mass
    ratio = np.abs(loaded) / rated
    assert ratio.max(axis=1) == pytest.approx(np.ones(len(per)), rel=1e-7)
    for i in (0, 57, 150, 300):
        env = payload_envelope(ctx.bare, np.zeros((1, 3)), rated, s.q[i:i + 1], s.qd[i:i + 1], s.qdd[i:i + 1])
        assert per[i] == pytest.approx(env[0], rel=1e-12)


def test_a_bad_cycle_file_is_said_once_naming_every_requirement_it_stops(tmp_path, capsys):
    """The tube arm's cycle given as a trajectory CSV with one joint's column: every requirement along the cycle
    fails on that file. review says the file's problem once, after the requirements it stops, in one line; the
    requirements that do not read the cycle are not named."""
    from designer.review.evaluate import review
    data = json.loads(TUBE.read_text())
    (tmp_path / "cycle.csv").write_text("t,q1\n0,0.1\n1,0.2\n")
    data["cycle"] = {"trajectory": str(tmp_path / "cycle.csv")}
    path = tmp_path / "bad_cycle.json"
    path.write_text(json.dumps(data))
    stopped = [f"requirements[{o.index}] ({o.requirement.metric})"
               for o in review(load_project(path), strict=False) if o.error]
    assert len(stopped) >= 3
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.count("missing column(s) q2, q3") == 1, err
    assert ", ".join(stopped) + ": cycle.trajectory: " in err, err
    others = [f"requirements[{k}]" for k in range(len(data["requirements"]))
              if not any(name.startswith(f"requirements[{k}] ") for name in stopped)]
    assert others and not any(f"{name} (" in err for name in others), err
