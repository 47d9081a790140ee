"""Every number of a project file, replaced by a value at the edge of floating point (huge, tiny,
denormal, 1e308 as a number or as text, NaN, infinity), gives a one-line message or a usable
model, never a traceback: `validate`, `info`, `fk` and `eval` through the command line.
(`validate` of a twist of -1e308 used to stop with an OverflowError in the exact-angle reader.)"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli_lines import run_message_or_success

PROJECT = {
    "format": "manipulator-designer", "version": 2, "name": "fuzz", "convention": "standard",
    "gravity": [0, 0, "-g"], "gravity_frame": "world", "parameters": {"g": 9.81, "L": 0.4},
    "base": {"xyz": [0.1, 0, 0.2], "rpy": [0, 0, 0.5]}, "tool": {"xyz": [0, 0, 0.1], "rpy": [0.1, 0, 0]},
    "links": [
        {"joint": "R", "a": 0, "alpha": 1.5707963267948966, "d": 0.3, "theta": 0, "mass": 2.0,
         "com": [0, 0.1, 0], "inertia": {"xx": 0.02, "yy": 0.03, "zz": 0.025}, "limits": [-3, 3],
         "drive": {"gear_ratio": 100, "motor_inertia": 1e-5, "viscous": 0.2, "coulomb": 0.5, "rated_torque": 50}},
        {"joint": "R", "a": "L", "alpha": 0, "d": 0, "theta": 0.3, "mass": 1.5,
         "com": [-0.2, 0, 0], "inertia": {"xx": 0.01, "yy": 0.02, "zz": 0.02, "xy": 0.001}},
        {"joint": "P", "a": 0, "alpha": -1.5707963267948966, "d": 0.1, "theta": 0, "mass": 0.5,
         "com": [0, 0, 0.05], "inertia": {"xx": 0.001, "yy": 0.001, "zz": 0.0005}, "limits": [0, 0.3]},
    ],
    "point_masses": [{"link": 3, "mass": 0.2, "position": [0, 0, 0.1]}],
}

EDGES = [1e308, -1e308, 1.7976931348623157e308, 1e300, -1e301, 1e50, 1e51, 1e-308, 5e-324, -0.0, 1e-300,
         "1e308", "-1e308", "1e999", "nan", "inf", "-inf", "1e-400", "10**400", "exp(1000)", 2**70]


def _leaves(node, path=()):
    """Paths of every number (and numeric text) in the project."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            yield from _leaves(v, (*path, k))
    elif isinstance(node, (int, float)) or (isinstance(node, str) and path and path[0] != "format"
                                              and path[-1] not in ("joint", "name", "convention", "gravity_frame")):
        yield path


LEAVES = list(_leaves(PROJECT))


def _set(data, path, value):
    node = data
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.sampled_from(LEAVES), st.sampled_from(EDGES)), min_size=1, max_size=3))
def test_edge_values_in_any_field_give_a_message_not_a_traceback(changes, tmp_path, capsys):
    data = json.loads(json.dumps(PROJECT))
    for path, value in changes:
        _set(data, path, value)
    project = tmp_path / "p.json"
    project.write_text(json.dumps(data))   # NaN/Infinity as JSON writes them: not valid JSON, said so
    states = tmp_path / "s.json"
    states.write_text(json.dumps({"states": [{"q": [0.1, -0.2, 0.05], "qd": [0.3, 0.1, -0.2], "qdd": [1, 0, 0]}]}))
    run_message_or_success(["validate", str(project)], capsys)
    run_message_or_success(["info", str(project)], capsys)
    run_message_or_success(["fk", str(project), "--q", "0.1,0.2,0.05"], capsys)
    run_message_or_success(["eval", str(project), "--states", str(states), "--quiet"], capsys)


def test_the_reported_case():
    """validate of a project whose twist is -1e308: the field named, exit 2."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path
    data = json.loads(json.dumps(PROJECT))
    data["links"][0]["alpha"] = -1e308
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.json"
        path.write_text(json.dumps(data))
        done = subprocess.run([sys.executable, "-m", "designer", "validate", str(path)], capture_output=True, text=True,
                              cwd=Path(__file__).parents[2])
    assert done.returncode == 2 and "links[1].alpha" in done.stderr and "Traceback" not in done.stderr
