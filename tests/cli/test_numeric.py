"""The eval and torques commands: against Pinocchio, across methods, and on bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from designer.cli import main
from designer.kinematics import NumericArm
from designer.project import load_project

from tests.support import robot_path

from tests.support.pin_reference import pin, pin_model

PUMA = str(robot_path("puma560"))


def _states(rng, n, count):
    return [{"q": rng.uniform(-2, 2, n).tolist(), "qd": rng.uniform(-2, 2, n).tolist(),
             "qdd": rng.uniform(-2, 2, n).tolist()} for _ in range(count)]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _pin_reference(project: str):
    arm = NumericArm.from_model(load_project(project))
    model = pin_model(arm)
    return model, model.createData()


def _check_against_pinocchio(result, states, model, data):
    for res, st in zip(result["results"], states):
        q, qd, qdd = (np.array(st[k]) for k in ("q", "qd", "qdd"))
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        G = pin.computeGeneralizedGravity(model, data, q)
        want = {"tau": pin.rnea(model, data, q, qd, qdd), "M": M, "G": G,
                "h": pin.rnea(model, data, q, qd, np.zeros_like(q)) - G}
        for key, w in want.items():
            assert np.max(np.abs(np.array(res[key]) - w)) <= 1e-10 * np.max(np.abs(w)), key


def test_eval_puma560_matches_pinocchio(tmp_path, capsys):
    states = _states(np.random.default_rng(0), 6, 4)
    path = tmp_path / "states.json"
    path.write_text(json.dumps({"states": states}))
    code, out, err = _run(capsys, "eval", PUMA, "--states", path)
    assert code == 0, err
    result = json.loads(out)
    assert result["method"] == "lagrange" and len(result["results"]) == 4
    _check_against_pinocchio(result, states, *_pin_reference(PUMA))


@pytest.mark.slow
@pytest.mark.parametrize("project", ["puma560", "stanford_modified"])
def test_eval_methods_agree(tmp_path, capsys, project):
    project = str(robot_path(project))
    n = load_project(project).n
    states = _states(np.random.default_rng(1), n, 3)
    path = tmp_path / "states.json"
    path.write_text(json.dumps({"states": states}))
    reference = _pin_reference(project)
    results = {}
    for method in ("lagrange", "newton-euler", "dalembert"):
        code, out, err = _run(capsys, "eval", project, "--states", path, "--method", method)
        assert code == 0, err
        results[method] = json.loads(out)
        assert results[method]["method"] == method
        _check_against_pinocchio(results[method], states, *reference)


BAD_STATES = [
    ("not json", "not valid JSON"),
    ('{"states": 3}', '"states"'),
    ('{"states": [{"q": [0, 0, 0, 0, 0, 0], "qd": [0, 0, 0, 0, 0, 0]}]}', "states[0].qdd: missing"),
    ('{"states": [{"q": [0, 0, 0], "qd": [0, 0, 0, 0, 0, 0], "qdd": [0, 0, 0, 0, 0, 0]}]}',
     "states[0].q: 3 values, the arm has 6 joints"),
    ('{"states": [{"q": [0, 0, 0, 0, "x", 0], "qd": [0, 0, 0, 0, 0, 0], "qdd": [0, 0, 0, 0, 0, 0]}]}',
     "states[0].q[4]"),
]


@pytest.mark.parametrize("text,message", BAD_STATES)
def test_eval_bad_states(tmp_path, capsys, text, message):
    path = tmp_path / "states.json"
    path.write_text(text)
    code, out, err = _run(capsys, "eval", PUMA, "--states", path)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_eval_bad_project_and_missing_values(tmp_path, capsys):
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": [0.1, 0.2], "qd": [0, 0], "qdd": [0, 0]}]}))
    code, _, err = _run(capsys, "eval", tmp_path / "nope.json", "--states", states)
    assert code == 2 and err.count("\n") == 1
    data = json.loads(robot_path("double_pendulum").read_text())
    del data["parameters"]["m2"], data["parameters"]["g"]
    project = tmp_path / "dp.json"
    project.write_text(json.dumps(data))
    code, out, err = _run(capsys, "eval", project, "--states", states)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "g" in err.split(":")[-1] and "m2" in err
    code, _, err = _run(capsys, "eval", project, "--states", tmp_path / "missing.json")
    assert code == 2 and "missing.json" in err


def _trajectory(path: Path, rng, n, rows, extra_t=True):
    names = [f"{p}{j}" for p in ("q", "qd", "qdd") for j in range(1, n + 1)]
    data = rng.uniform(-1.5, 1.5, (rows, 3 * n))
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow((["t"] if extra_t else []) + names[::-1])  # any column order
        for k, r in enumerate(data):
            w.writerow(([f"{0.01 * k:g}"] if extra_t else []) + [repr(float(v)) for v in r[::-1]])
    return data[:, :n], data[:, n:2 * n], data[:, 2 * n:]


@pytest.mark.parametrize("method", ["rnea", "newton-euler"])
def test_torques_match_pinocchio(tmp_path, capsys, method):
    Q, QD, QDD = _trajectory(tmp_path / "traj.csv", np.random.default_rng(2), 6, 25)
    out_csv = tmp_path / "tau.csv"
    code, out, err = _run(capsys, "torques", PUMA, tmp_path / "traj.csv", "--out", out_csv, "--method", method)
    assert code == 0, err
    model, data = _pin_reference(PUMA)
    want = np.array([pin.rnea(model, data, q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    with out_csv.open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["t"] + [f"tau{j}" for j in range(1, 7)]
    assert rows[3][0] == "0.02"
    got = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    assert np.max(np.abs(got - want)) <= 1e-10 * np.max(np.abs(want))
    # summary: one line per joint with peak |tau| and RMS
    lines = [l.split() for l in out.splitlines() if l[:1].isdigit() and len(l.split()) == 4]
    peak = np.array([float(l[2]) for l in lines])
    rms = np.array([float(l[3]) for l in lines])
    np.testing.assert_allclose(peak, np.abs(want).max(axis=0), rtol=1e-5)
    np.testing.assert_allclose(rms, np.sqrt((want**2).mean(axis=0)), rtol=1e-5)


def test_torques_without_out_writes_csv_to_stdout(tmp_path, capsys):
    _trajectory(tmp_path / "traj.csv", np.random.default_rng(3), 2, 4, extra_t=False)
    code, out, err = _run(capsys, "torques", robot_path("double_pendulum"), tmp_path / "traj.csv")
    assert code == 0, err
    assert out.splitlines()[0] == "tau1,tau2" and len(out.splitlines()) == 5
    assert "peak" in err


@pytest.mark.parametrize("content,message", [
    ("q1,q2,qd1,qd2,qdd1\n0,0,0,0,0\n", "missing column 'qdd2'"),
    ("q1,q2,qd1,qd2,qdd1,qdd2\n0,0,0,0,0,0\n0,0,x,0,0,0\n", "line 3: column qd1: 'x' is not a number"),
    ("q1,q2,qd1,qd2,qdd1,qdd2\n0,0,0,0,0,0\n\n0,0,0,0,0\n", "line 4: 5 fields, the header has 6"),
    ("q1,q2,qd1,qd2,qdd1,qdd2\n", "no data rows"),
    ("", "empty file"),
])
def test_torques_bad_trajectory(tmp_path, capsys, content, message):
    path = tmp_path / "traj.csv"
    path.write_text(content)
    code, out, err = _run(capsys, "torques", robot_path("double_pendulum"), path)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_torques_warns_of_joint_columns_the_arm_does_not_have(tmp_path, capsys):
    """A 6-joint trajectory given to the 2-joint pendulum: the extra joint columns are named on stderr
    (they pass through unchanged), and --strict refuses the file instead."""
    Q, QD, QDD = _trajectory(tmp_path / "six.csv", np.random.default_rng(4), 6, 5, extra_t=False)
    code, out, err = _run(capsys, "torques", robot_path("double_pendulum"), tmp_path / "six.csv")
    assert code == 0, err
    warning = err.splitlines()[0]
    assert warning.startswith("warning: ") and "six.csv, line 1" in warning and "beyond the arm's 2" in warning
    listed = warning.split(": columns ")[1].split(" are for")[0].split(", ")
    assert sorted(listed) == sorted(f"{p}{j}" for p in ("q", "qd", "qdd") for j in range(3, 7))
    header = out.splitlines()[0].split(",")
    assert header[-2:] == ["tau1", "tau2"] and "q3" in header
    # the two joints' torques are those of the same motion given as a 2-joint trajectory
    model, data = _pin_reference(robot_path("double_pendulum"))
    want = np.array([pin.rnea(model, data, q[:2], qd[:2], qdd[:2]) for q, qd, qdd in zip(Q, QD, QDD)])
    got = np.array([[float(v) for v in line.split(",")[-2:]] for line in out.splitlines()[1:]])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

    code, out, err = _run(capsys, "torques", robot_path("double_pendulum"), tmp_path / "six.csv", "--strict")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: ") and "q3" in err and "qdd6" in err and "beyond the arm's 2" in err


def test_torques_strict_accepts_a_trajectory_of_the_right_arm(tmp_path, capsys):
    _trajectory(tmp_path / "two.csv", np.random.default_rng(5), 2, 3)
    code, out, err = _run(capsys, "torques", robot_path("double_pendulum"), tmp_path / "two.csv", "--strict")
    assert code == 0 and "warning" not in err and out.splitlines()[0] == "t,tau1,tau2"
