"""What still refuses a closed chain says what, in one line, and that the command without it takes one
(the message used to list the commands that took closed chains, and went stale as more did)."""

from __future__ import annotations

import json

import pytest

from designer.cli import main
from tests.support import robot_path


@pytest.mark.parametrize("command", ["eval", "simulate"])
def test_elastic_options_refuse_a_closed_chain_naming_the_option(tmp_path, capsys, command):
    path = str(robot_path("palletizer_parallelogram"))
    states = tmp_path / "states.json"
    states.write_text(json.dumps({"states": [{"q": [0] * 4, "qd": [0] * 4, "qdd": [0] * 4}]}))
    args = {"eval": ["--states", str(states)],
            "simulate": ["--q0", "0", "0", "0", "0", "--t", "0.1", "--quiet"]}[command]
    assert main([command, path, *args, "--elastic"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{command} --elastic takes serial arms only so far; {command} without --elastic takes it" in err
    # and the command without the option does take it
    assert main([command, path, *args]) == 0
