"""Input files other than projects (states, trajectories, torque tables) are read bounded: a file
too large, or a device that never ends (/dev/zero), is one line and exit 2, not a hang."""

from __future__ import annotations

from designer import tables
from designer.cli import main
from tests.support import robot_path


def test_a_states_file_beyond_the_bound_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tables, "MAX_TEXT_BYTES", 1000)
    states = tmp_path / "states.json"
    states.write_text('{"states": [' + ", ".join(['{"q": [0, 0, 0], "qd": [0, 0, 0], "qdd": [0, 0, 0]}'] * 40) + "]}")
    assert main(["eval", str(robot_path("puma560_three_link")), "--states", str(states), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "states file is larger than 1000 bytes" in err

