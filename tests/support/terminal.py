"""The command line as a user at a terminal runs it: a subprocess, standard error on a pseudo-terminal,
Ctrl+C as the terminal sends it."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

from . import ROOT

__all__ = ["cli", "read_pty", "read_pty_until"]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli(*argv: str, env: dict | None = None, **kw) -> subprocess.Popen:
    """``python -m designer ARGV`` with this tree on the path and no Dask scheduler from the environment
    unless ``env`` gives one."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full.pop("DASK_SCHEDULER_ADDRESS", None)
    if env and "DASK_SCHEDULER_ADDRESS" in env:
        full["DASK_SCHEDULER_ADDRESS"] = env["DASK_SCHEDULER_ADDRESS"]
    # Ctrl+C as a terminal sends it: a test run started in the background (nohup, `cmd &` in a script) hands
    # its children SIGINT ignored, and Python then never raises KeyboardInterrupt
    return subprocess.Popen([sys.executable, "-m", "designer", *argv], cwd=ROOT, env=full,
                            preexec_fn=_default_sigint, **kw)


def read_pty(fd: int, proc: subprocess.Popen) -> bytes:
    """Everything the process writes to the pseudo-terminal ``fd`` until it exits."""
    out = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    return out


def read_pty_until(fd: int, proc: subprocess.Popen, text: bytes, timeout: float = 120.0) -> bytes:
    """What the process writes to ``fd`` until ``text`` appears (AssertionError if it exits or times out first)."""
    out = b""
    end = time.monotonic() + timeout
    while text not in out:
        assert time.monotonic() < end, f"no {text!r} within {timeout} s: {out!r}"
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
        else:
            assert proc.poll() is None, f"exited ({proc.returncode}) before {text!r}: {out!r}"
    return out
