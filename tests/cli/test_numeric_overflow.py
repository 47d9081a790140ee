"""eval and torques on numbers beyond what a float computes: one line naming the state, never
a traceback or a file holding inf/NaN that JSON and the next tool cannot read."""

from __future__ import annotations

import json

from designer.cli import main
from tests.support import robot_path

PENDULUM = robot_path("double_pendulum")


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _states(tmp_path, text: str):
    path = tmp_path / "states.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_integer_beyond_the_float_range_is_named(tmp_path, capsys):
    path = _states(tmp_path, '{"states": [{"q": [1' + "0" * 400 + ', 0], "qd": [0, 0], "qdd": [0, 0]}]}')
    code, out, err = _run(capsys, "eval", PENDULUM, "--states", path)
    assert code == 2 and out == ""
    assert "states[0].q[0]" in err and "not a finite number" in err and len(err.strip().splitlines()) == 1


def test_a_state_whose_torque_overflows_is_refused_naming_it(tmp_path, capsys):
    states = [{"q": [0.1, 0.2], "qd": [0, 0], "qdd": [0, 0]}, {"q": [0, 0], "qd": [1e308, 0], "qdd": [0, 0]}]
    path = _states(tmp_path, json.dumps({"states": states}))
    code, out, err = _run(capsys, "eval", PENDULUM, "--states", path)
    assert code == 2 and out == ""
    assert "states[1]" in err and "not finite" in err and len(err.strip().splitlines()) == 1


def test_torques_refuse_a_row_whose_torque_overflows(tmp_path, capsys):
    traj = tmp_path / "traj.csv"
    traj.write_text("q1,q2,qd1,qd2,qdd1,qdd2\n0,0,0,0,0,0\n0,0,1e308,0,0,0\n", encoding="utf-8")
    out_csv = tmp_path / "tau.csv"
    code, _, err = _run(capsys, "torques", PENDULUM, traj, "--out", out_csv)
    assert code == 2 and "data row 2" in err and len(err.strip().splitlines()) == 1
    assert not out_csv.exists()
