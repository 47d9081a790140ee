"""`size` and `catalog` on the command line: a user catalog beside the project, the ranking in JSON, a bad
catalog refused in one line naming the field."""

from __future__ import annotations

import json
import shutil

import numpy as np

from designer.cli import main
from designer.explore.sizing import quintic
from tests.support import robot_path


def _setup(tmp_path):
    project = tmp_path / "arm.json"
    shutil.copy(robot_path("planar_two_link"), project)
    traj = quintic([-0.3, 0.2], [1.2, 1.4], 0.8, steps=201)
    cycle = tmp_path / "cycle.csv"
    rows = (f"{float(t)!r},{float(a)!r},{float(b)!r}\n" for t, (a, b) in zip(traj.t, traj.q))
    cycle.write_text("t,q1,q2\n" + "".join(rows))
    return project, cycle


def test_size_ranks_with_a_user_catalog_beside_the_project(tmp_path, capsys):
    project, cycle = _setup(tmp_path)
    (tmp_path / "shop.catalog.json").write_text(json.dumps({
        "format": "manipulator-designer catalog", "version": 1,
        "gearboxes": [{"name": "BIG-100", "kind": "strain-wave", "ratio": 100, "rated_torque_Nm": 200,
                       "peak_torque_Nm": 400, "mass_kg": 2.0, "max_input_speed_rpm": 6000}],
        "motors": [{"name": "TINY", "rated_torque_Nm": 0.5, "peak_torque_Nm": 1.5, "rated_speed_rpm": 3000,
                    "max_speed_rpm": 6000, "rotor_inertia_kgcm2": 0.3, "mass_kg": 0.6}]}))
    assert main(["size", str(project), "--cycle", str(cycle), "--format", "json", "--top", "1000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [j["joint"] for j in data["joints"]] == [1, 2]
    first = data["joints"][0]
    names = [(p["gearbox"], p["motor"]) for p in first["pairs"]]
    assert ("BIG-100", "TINY") in names   # the user's items are paired with the bundled ones
    for joint in data["joints"]:
        assert joint["feasible"] == len(joint["pairs"]) <= joint["tried"]
        for p in joint["pairs"]:
            assert min(p["margins"].values()) >= 0
            # the motor figures are the joint figures through the ratio
            assert np.isclose(p["motor_peak_torque"] * p["ratio"], p["peak_torque"])
    assert main(["size", str(project), "--cycle", str(cycle)]) == 0
    text = capsys.readouterr().out
    assert "joint 1:" in text and "BIG-100" in text


def test_a_bad_catalog_beside_the_project_is_named(tmp_path, capsys):
    project, cycle = _setup(tmp_path)
    bad = tmp_path / "bad.catalog.json"
    bad.write_text(json.dumps({"format": "manipulator-designer catalog", "version": 1,
                               "motors": [{"name": "X", "rated_torque_Nm": -1}]}))
    assert main(["size", str(project), "--cycle", str(cycle)]) != 0
    err = capsys.readouterr().err
    assert "bad.catalog.json: motors[0].rated_torque_Nm: must be a finite number > 0" in err
    assert err.count("\n") == 1


def test_a_cycle_with_the_wrong_joints_is_refused(tmp_path, capsys):
    project, _ = _setup(tmp_path)
    cycle = tmp_path / "c.csv"
    cycle.write_text("t,q1\n0,0\n1,1\n2,2\n")
    assert main(["size", str(project), "--cycle", str(cycle)]) != 0
    assert "missing column(s) q2" in capsys.readouterr().err


def test_catalog_lists_the_items(capsys):
    assert main(["catalog", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any(g["name"] == "NPT025-MF-5" for g in data["gearboxes"])
    assert all(m["source"] for m in data["motors"])


def test_size_takes_a_closed_chains_actuated_joints(tmp_path, capsys):
    # the palletizer's cycle names its actuated joints by their links (q1, q2, q4, q6)
    from designer.explore.joints import explore_joints
    from designer.project.io import load_project
    joints = explore_joints(load_project(robot_path("palletizer_parallelogram")))
    traj = quintic(np.zeros(joints.n), np.full(joints.n, 0.2), 2.0, steps=101)
    cycle = tmp_path / "cycle.csv"
    header = "t," + ",".join(f"q{k}" for k in joints.numbers)
    cycle.write_text(header + "\n" + "".join(",".join(repr(float(v)) for v in (t, *q)) + "\n"
                                             for t, q in zip(traj.t, traj.q)))
    assert main(["size", str(robot_path("palletizer_parallelogram")), "--cycle", str(cycle), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [j["joint"] for j in data["joints"]] == list(joints.numbers)


def test_size_checks_the_projects_own_pair(tmp_path, capsys):
    project, cycle = _setup(tmp_path)
    doc = json.loads(project.read_text())
    doc["version"] = 4
    doc["links"][1]["drive"] = {"gearbox": "NPS015-MF-7", "motor": "SGMSH-40A"}
    doc["links"][0]["drive"] = {"gearbox": "NPS015-MF-3", "motor": "SGMP-01B"}
    project.write_text(json.dumps(doc))
    assert main(["size", str(project), "--cycle", str(cycle), "--format", "json", "--top", "1000"]) == 0
    data = {j["joint"]: j for j in json.loads(capsys.readouterr().out)["joints"]}
    for joint in (1, 2):
        cur = data[joint]["current"]
        ranked = {(p["gearbox"], p["motor"]) for p in data[joint]["pairs"]}
        # the project's pair is feasible exactly when the ranking holds it
        assert (min(cur["margins"].values()) >= 0) == ((cur["gearbox"], cur["motor"]) in ranked)
    assert min(data[1]["current"]["margins"].values()) < 0 <= min(data[2]["current"]["margins"].values())
    assert main(["size", str(project), "--cycle", str(cycle)]) == 0
    text = capsys.readouterr().out
    assert "the project's pair: NPS015-MF-3 with SGMP-01B: fails:" in text
    assert "the project's pair: NPS015-MF-7 with SGMSH-40A: feasible" in text
