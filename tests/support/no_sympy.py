"""Run code in a fresh process where sympy cannot be imported (issue 29: the window's first picture of the arm is
drawn before sympy loads), and read back what it prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a meta-path finder that refuses sympy goes in first: any import of it, however indirect, fails
_BLOCK = r"""
import sys

class NoSympy:
    def find_spec(self, name, path=None, target=None):
        if name == "sympy" or name.startswith("sympy."):
            raise ImportError("sympy is not to be imported here: " + name)
        return None

sys.meta_path.insert(0, NoSympy())
"""


def run_without_sympy(code: str, tmp_path: Path) -> dict:
    """Run ``code`` (which calls ``result(dict)`` once) with this repository's designer, sympy refused and the
    user's settings out of reach (XDG folders under ``tmp_path``); the dict it gave, after checking that the
    process exited 0 and that sympy was not imported."""
    epilogue = "\nprint('RESULT', json.dumps({**_result, 'sympy_loaded': 'sympy' in sys.modules}))\n"
    out = run_script(_BLOCK + "import json\n_result = {}\nresult = _result.update\n" + code + epilogue, tmp_path,
                     "RESULT")
    assert out.pop("sympy_loaded") is False
    return out


def run_script(script: str, tmp_path: Path, marker: str) -> dict:
    """Run ``script`` in a fresh process with this repository's designer and the user's settings out of reach
    (XDG folders under ``tmp_path``); the JSON it printed last after ``marker``, once the process exited 0."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=600)
    lines = [x for x in run.stdout.splitlines() if x.startswith(f"{marker} ")]
    assert run.returncode == 0 and lines, run.stdout + run.stderr
    return json.loads(lines[-1][len(marker) + 1:])
