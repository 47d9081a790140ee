"""The command line starts light: ``python -m designer --help`` loads none of the heavy libraries (issue 29).

Not a timing test: each check reads ``sys.modules`` of a fresh interpreter after the command ran. numpy
alone costs more than the 0.2 s that ``--help`` may take (benchmarks/bench_startup.py measures it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sympy", "scipy", "matplotlib", "numpy", "tqdm")

# runs ``python -m designer ARGS`` in this interpreter, then prints the heavy modules it loaded
_PROBE = """
import json, runpy, sys
watched = set(json.loads(sys.argv[2]))
sys.argv = ["designer", *json.loads(sys.argv[1])]
code = 0
try:
    runpy.run_module("designer", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & watched)
sys.stderr.write("\\nLOADED " + json.dumps({"code": code, "heavy": heavy}) + "\\n")
"""


def _loaded(*argv: str) -> tuple[str, dict]:
    run = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(list(argv)), json.dumps(HEAVY)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    line = [x for x in run.stderr.splitlines() if x.startswith("LOADED ")]
    assert line, run.stderr
    return run.stdout, json.loads(line[-1][len("LOADED "):])


@pytest.mark.parametrize("argv", [["--help"], [], ["derive", "--help"], ["explore", "sweep", "--help"]])
def test_help_loads_no_heavy_library(argv):
    out, loaded = _loaded(*argv)
    assert loaded["code"] in (0, None)
    assert "usage:" in out
    assert loaded["heavy"] == [], f"python -m designer {' '.join(argv)} imported {loaded['heavy']}"


def test_a_command_still_loads_what_it_needs():
    # the probe sees a real command's imports: the check above could fail
    out, loaded = _loaded("info", str(ROOT / "robots" / "double_pendulum.json"))
    assert loaded["code"] in (0, None), out
    assert "sympy" in loaded["heavy"] and "numpy" in loaded["heavy"]


def test_written_out_choices_match_the_core():
    # the parser's choices are written out so that building it imports no sympy; they must stay the core's
    from designer.cli import build_parser
    from designer.cli.dynamics_commands import FORMS, METHODS, SIMPLIFY_MODES
    from designer.cli.numeric_commands import METHODS as NUMERIC_METHODS
    from designer.dynamics.results import Form, Method, SimplifyMode
    from designer.explore.distribute import SCHEDULER_ENV

    assert list(METHODS) == [m.value for m in Method] == NUMERIC_METHODS
    assert list(SIMPLIFY_MODES) == [s.value for s in SimplifyMode]
    assert set(FORMS) == {f.value for f in Form}
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    explore = sub.choices["explore"]
    sweep = next(a for a in explore._actions if a.dest == "what").choices["sweep"]
    assert f"${SCHEDULER_ENV}" in sweep.format_help().replace("\n", " ").replace("  ", " ")
