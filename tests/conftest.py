"""Test set-up shared by every test module."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROBOTS = ROOT / "robots"
sys.path.insert(0, str(ROOT))
# shared test helpers (pin_reference: the Pinocchio model of a DH table) import by name
sys.path.insert(0, str(ROOT / "tests"))

# Property tests: the suite (`make test`, CI) replays the same examples every run, so a red
# run is reproducible and never a draw of the dice; `make fuzz` explores with fresh random
# examples, twenty times as many, to find new counterexamples (then fix them, add them here).
HYPOTHESIS_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "suite")


def examples(n: int) -> int:
    """A property test's example count: n in the suite, 20 n when fuzzing."""
    return n * 20 if HYPOTHESIS_PROFILE == "fuzz" else n


try:
    from hypothesis import settings as _hsettings

    _hsettings.register_profile("suite", derandomize=True, database=None, print_blob=True)
    _hsettings.register_profile("fuzz", derandomize=False, print_blob=True)
    _hsettings.load_profile(HYPOTHESIS_PROFILE)
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass

# The 3D view needs a real X server (Xvfb via pytest-xvfb); see docs and spec/headless-qt.md.
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")


def pytest_configure(config):
    # must happen before any QApplication exists (pyqtgraph shares shader programs across contexts)
    try:
        from PySide6.QtCore import QCoreApplication, Qt
    except ImportError:
        return
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


@pytest.fixture
def robots_dir() -> Path:
    return ROBOTS


def robot_path(name: str) -> Path:
    return ROBOTS / f"{name}.json"


@pytest.fixture
def no_dialogs(monkeypatch):
    """Fail on any message box instead of blocking on a modal one (GUI tests opt in)."""
    from PySide6.QtWidgets import QMessageBox

    def unexpected(*args, **kwargs):
        raise AssertionError(f"unexpected message box: {args[1:3]}")
    for name in ("question", "warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, unexpected)
