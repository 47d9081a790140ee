"""The command line called in-process: exit 0, or exit 2 with one line on standard error, never a
traceback (an exception out of main fails the test)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from designer.cli import main

__all__ = ["run_message_or_success", "designer_command", "energy_kept"]

ROOT = Path(__file__).resolve().parents[2]


def run_message_or_success(argv: list[str], capsys) -> int:
    code = main(argv)
    out = capsys.readouterr()
    assert code in (0, 2), code
    if code == 2:
        assert out.err.count("\n") == 1 and out.err.startswith("error: "), out.err
    return code


def designer_command(*argv: str) -> subprocess.CompletedProcess:
    """``python -m designer ARGV`` as a user runs it, from the repository: it must exit 0."""
    run = subprocess.run([sys.executable, "-m", "designer", *argv], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert run.returncode == 0, (argv, run.stderr)
    return run


def energy_kept(run: subprocess.CompletedProcess, rtol: float = 1e-6) -> None:
    """A ``simulate`` run's energy at the end is its energy at the start (a passive arm keeps it)."""
    start, end = map(float, re.search(r"energy (\S+) J at the start, (\S+) J at the end",
                                      run.stdout + run.stderr).groups())
    assert abs(end - start) < rtol * abs(start), (start, end)
