"""What still refuses a closed chain says what, in one line, and that the command without it takes one
(the message used to list the commands that took closed chains, and went stale as more did)."""

from __future__ import annotations

import json

import pytest

from designer.cli import main
from tests.support import robot_path


@pytest.mark.parametrize("command", ["eval", "simulate", "linearize"])
def test_elastic_options_of_a_closed_chain_without_a_stiffness_say_so_in_one_line(tmp_path, capsys, command):
    """--elastic takes a closed chain's actuated joints' gearboxes; the bundled palletizer gives none a
    stiffness: one line naming the drive data it lacks, and the command without the option takes it."""
    path = str(robot_path("palletizer_parallelogram"))
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": [0] * 4, "qd": [0] * 4, "qdd": [0] * 4}]}))
    args = {"eval": ["--states", str(states)],
            "simulate": ["--q0", "0", "0", "0", "0", "--t", "0.1", "--quiet"],
            "linearize": ["--q", "0", "0", "0", "0", "--out", str(tmp_path / "lin.json")]}[command]
    assert main([command, path, *args, "--elastic"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "stiffness" in err, err
    assert main([command, path, *args]) == 0
